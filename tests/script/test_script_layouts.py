"""Real script layouts (tests/fixtures/script/, provenance in its README.md): for each file, the format
`auto` picks, the exact sequence of (speaker cue, first words) of the dialogue lines, and that the stage
directions end up in action lines, never inside the dialogue text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extractors.errors import InputError
from extractors.script import extract_script

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "script"

IBSEN_DOLL = ([
    ("HELMER", "Is that my little lark"), ("NORA", "Yes, it is!"), ("HELMER", "Is it my little squirrel"),
    ("NORA", "Yes!"), ("HELMER", "When did my squirrel"), ("NORA", "Just now."), ("NORA", "Come in here, Torvald,"),
    ("HELMER", "Don't disturb me."), ("HELMER", "Bought, did you say?"), ("MRS LINDE", "How do you do, Nora?"),
    ("NORA", "How do you do--"), ("MRS LINDE", "You don't recognise me"),
], ["calls out from his room", "busy opening some of the parcels",
    "Puts the bag of macaroons into her pocket and wipes her mouth.", "The door-bell rings in the hall.",
    "in a dejected and timid voice", "doubtfully"])

# file -> (format auto must pick, [(cue as written, first words)], directions that must be action lines)
CASES: dict[str, tuple[str, list[tuple[str, str]], list[str]]] = {
    "colon_tinyshakes_coriolanus.txt": ("colon", [
        ("First Citizen", "Before we proceed"), ("All", "Speak, speak."), ("First Citizen", "You are all resolved"),
        ("All", "Resolved. resolved."), ("First Citizen", "First, you know"), ("All", "We know't"),
        ("First Citizen", "Let us kill him, and we'll have corn at our own price. Is't a verdict?"),
        ("All", "No more talking"), ("Second Citizen", "One word"),
        ("MENENIUS", "What work's, my countrymen, in hand? where go you With bats"),
    ], []),
    "colon_caps_synge_riders.txt": ("colon", [
        ("MAURYA", "Where is he?"), ("CATHLEEN", "He's gone down"), ("MAURYA", "He won't go this day with"),
        ("NORA", "He won't go this day. The young"), ("CATHLEEN", "Is the sea bad"), ("NORA", "Middling bad"),
    ], ["in a low voice", "looking out anxiously"]),
    "colon_tv_caps_transcript.txt": ("colon", [
        ("MARTY", "Did anybody see a ladder"), ("DEB", "A ladder. Going by."), ("MARTY", "Howard borrowed it"),
        ("DEB", "Seven letters"), ("MARTY", "Howard!"), ("HOWARD", "Okay, before anyone"), ("MARTY", "Half."),
        ("HOWARD", "I brought back the good half."), ("CLERK", "Can I help you?"), ("MARTY", "Do you sell"),
        ("CLERK", "Aisle nine."),
    ], ["entering, out of breath", "without looking up", "The door opens. HOWARD walks in holding half a ladder.",
        "holding up the half"]),
    "colon_sitcom_mixedcase.txt": ("colon", [
        ("Lena", "Has anyone seen my umbrella?"), ("Sam", 'Define "seen."'), ("Priya", "He means he took it"),
        ("Sam", "I was going to tell her."), ("Lena", "It was raining, Sam."), ("Sam", "I will buy you"),
        ("Priya", "So did he buy"), ("Lena", "He bought me a raincoat."),
    ], ["mortified", "Sam slides lower on the sofa."]),
    "colon_chatharuhi_zh.txt": ("colon", [
        ("林小满", "你又迟到了。"), ("周远", "我去买了两瓶汽水"), ("林小满", "橘子的。"), ("周远", "我就知道。"),
        ("林小满", "明天就要比赛了"), ("周远", "紧张啊，可是紧张也没有用。"), ("林小满", "那就别想了。"),
    ], ["林小满接过汽水，看着远处的操场"]),
    "colon_zh_huaju.txt": ("colon", [
        ("掌柜", "今天怕是没什么客人了。"), ("伙计", "掌柜的，门口来了"), ("掌柜", "快请进来。"), ("先生", "有热茶吗？"),
        ("掌柜", "有，有！您请坐。"), ("掌柜", "小三，沏一壶龙井！"), ("伙计", "好嘞！"),
    ], ["擦着桌子", "一位穿长衫的先生进门，收起雨伞。", "转身"]),
    "play_zh_huaju_space.txt": ("play", [
        ("掌柜", "今天怕是没什么客人了。"), ("伙计", "掌柜的，门口来了"), ("掌柜", "快请进来。"), ("先生", "有热茶吗？"),
        ("掌柜", "有，有！您请坐。"), ("掌柜", "小三，沏一壶龙井！"), ("伙计", "好嘞！"), ("先生", "这雨，怕是要下一夜了。"),
    ], ["擦着桌子", "一位穿长衫的先生进门，收起雨伞。", "转身", "坐下"]),
    "play_ibsen_dolls_house.txt": ("play", *IBSEN_DOLL),
    "play_gutenberg_full_dolls_house.txt": ("play", IBSEN_DOLL[0], IBSEN_DOLL[1]),
    "play_ibsen_ghosts_archer.txt": ("play", [
        ("REGINA", "What do you want?"), ("ENGSTRAND", "It's the Lord's own rain"), ("REGINA", "It's the devil's rain"),
        ("ENGSTRAND", "Lord, how you talk, Regina."), ("ENGSTRAND", "It's just this as I wanted"),
        ("REGINA", "Don't clatter"), ("MANDERS", "Good morning, Miss Engstrand."), ("MRS. ALVING", "So here you are"),
        ("MANDERS", "How do you do, Mrs. Alving?"),
    ], ["In a low voice.", "Limps a step or two forward into the room.", "PASTOR MANDERS enters by the hall door.",
        "Enters by the door on the left."]),
    "play_shaw_pygmalion.txt": ("play", [
        ("THE DAUGHTER", "I'm getting chilled to the bone."), ("THE MOTHER", "Not so long."),
        ("A BYSTANDER", "He won't get no cab"), ("THE MOTHER", "But we must have a cab."),
        ("THE BYSTANDER", "Well, it ain't my fault"), ("THE DAUGHTER", "If Freddy had a bit"),
        ("THE MOTHER", "What could he have done, poor boy?"), ("THE DAUGHTER", "Well, haven't you got a cab?"),
        ("FREDDY", "There's not one to be had"),
    ], ["in the space between the central pillars, close to the one on her left", "on her daughter's right",
        "on the lady's right", "Freddy rushes in out of the rain"]),
    "play_synge_riders.txt": ("play", [
        ("NORA", "Where is she?"), ("CATHLEEN", "She's lying down, God help her, and may be sleeping, if she's able."),
        ("CATHLEEN", "What is it you have?"), ("NORA", "The young priest"), ("NORA", "We're to find out"),
        ("CATHLEEN", "Did you ask him"),
    ], ["in a low voice", "Nora comes in softly, and takes a bundle from under her shawl.", "spinning the wheel rapidly",
        "looking out anxiously"]),
    "play_wilde_earnest.txt": ("play", [
        ("Algernon", "Did you hear what I was playing"), ("Lane", "I didn't think it polite"),
        ("Algernon", "I'm sorry for that"), ("Lane", "Yes, sir."), ("Algernon", "And, speaking of the science"),
        ("Lane", "Yes, sir."), ("Algernon", "Oh! . . . by the way, Lane"), ("Lane", "Yes, sir; eight bottles"),
    ], ["Hands them on a salver.", "Inspects them, takes two, and sits down on the sofa."]),
    "play_chekhov_cherry_orchard.txt": ("play", [
        ("LOPAKHIN", "The train's arrived"), ("DUNYASHA", "It will soon be two."), ("DUNYASHA", "It is light already."),
        ("LOPAKHIN", "How much was the train late?"), ("LOPAKHIN", "I have made a fool of myself!"),
        ("DUNYASHA", "I thought you had gone."), ("DUNYASHA", "I think I hear them coming."), ("LOPAKHIN", "No...."),
    ], ["Blows out candle", "Yawns and stretches himself", "Listening", "Listens", "Pause"]),
    "play_gutenberg_modern_hamlet.txt": ("play", [
        ("BARNARDO", "Who’s there?"), ("FRANCISCO", "Nay, answer me."), ("BARNARDO", "Long live the King!"),
        ("FRANCISCO", "Barnardo?"), ("BARNARDO", "He."), ("FRANCISCO", "You come most carefully"),
        ("BARNARDO", "’Tis now struck twelve."), ("FRANCISCO", "For this relief much thanks."),
        ("HORATIO", "Friends to this ground."), ("MARCELLUS", "And liegemen to the Dane."),
        ("FRANCISCO", "Give you good night."), ("MARCELLUS", "Holla, Barnardo!"),
    ], ["Enter Horatio and Marcellus.", "Exit."]),
    "play_gutenberg_old_hamlet.txt": ("play", [
        ("Ber", "Who's there.?"), ("Fran", "Nay, answer me."), ("Ber", "Long live the King!"), ("Fran", "Bernardo?"),
        ("Ber", "He."), ("Fran", "You come most carefully"), ("Ber", "'Tis now struck twelve."),
        ("Fran", "For this relief much thanks."), ("Ber", "Have you had quiet guard?"), ("Fran", "Not a mouse stirring."),
        ("Ber", "Well, good night. If you do meet Horatio"), ("Fran", "I think I hear them."),
        ("Hor", "Friends to this ground."), ("Mar", "And liegemen to the Dane."), ("Fran", "Give you good night."),
        ("Mar", "O, farewell, honest soldier. Who hath reliev'd you?"),
        ("Fran", "Bernardo hath my place. Give you good night."),
    ], ["Enter Horatio and Marcellus.", "Exit."]),
    "play_caps_alone_mit_hamlet.txt": ("play", [
        ("BERNARDO", "Who's there?"), ("FRANCISCO", "Nay, answer me"), ("BERNARDO", "Long live the king!"),
        ("FRANCISCO", "Bernardo?"), ("BERNARDO", "He."), ("FRANCISCO", "You come most carefully"),
        ("BERNARDO", "'Tis now struck twelve"), ("FRANCISCO", "For this relief much thanks: 'tis bitter cold, And I am"),
        ("HORATIO", "Friends to this ground."), ("MARCELLUS", "And liegemen to the Dane."),
        ("FRANCISCO", "Give you good night."), ("MARCELLUS", "Holla! Bernardo!"),
    ], ["FRANCISCO at his post. Enter to him BERNARDO", "Enter HORATIO and MARCELLUS", "Exit"]),
    "play_caps_alone_moliere_miser.txt": ("play", [
        ("VALÈRE", "What, charming Élise"), ("ÉLISE", "No, Valère"), ("VALÈRE", "Ah! Élise"),
        ("ÉLISE", "I fear a hundred things"), ("CLÉANTE", "I am very glad"), ("ÉLISE", "Here I am, brother."),
    ], []),
    "play_mixedcase_alone_asyoulike.txt": ("play", [
        ("Celia", "I pray thee, Rosalind"), ("Rosalind", "Dear Celia, I show more mirth"),
        ("Celia", "Herein I see thou lovest me"), ("Touchstone", "Mistress, you must come away"),
    ], ["Enter Rosalind and Celia."]),
    "play_marlowe_faustus.txt": ("play", [
        ("CHORUS", "Not marching now in fields of Thrasimene"), ("FAUSTUS", "Settle thy studies, Faustus"),
        ("FAUSTUS", "Wagner, commend me to my dearest friends"), ("WAGNER", "I will, sir."),
        ("FAUSTUS", "Their conference will be"), ("GOOD ANGEL", "O, Faustus, lay that damned book aside"),
        ("EVIL ANGEL", "Go forward, Faustus"),
    ], ["Enter CHORUS.", "Exit.", "FAUSTUS discovered in his study.", "Enter WAGNER.", "Enter GOOD ANGEL and EVIL ANGEL.",
        "Exeunt Angels."]),
    "play_gilbert_pinafore.txt": ("play", [
        ("CHORUS", "We sail the ocean blue"), ("BUT", "Hail, men-o'-war's men"), ("BOAT", "Ay, Little Buttercup"),
        ("BUT", "Red, am I?"), ("BOAT", "No, my lass"), ("DICK", "I have thought it often."), ("BUT", "Yes, you look like it!"),
    ], ["Enter LITTLE BUTTERCUP, with large basket on her arm.", "All recoil from him.",
        "Enter DICK DEADEYE. He pushes through sailors, and comes down."]),
    "screenplay_numbered_shooting.txt": ("screenplay", [
        ("ELSIE", "My father kept this light"), ("TOBY", "The boat's gone."), ("ELSIE", "Gone where?"),
        ("TOBY", "Gone gone. Rope's cut clean. Somebody doesn't want us leaving."), ("ELSIE", "Then we stay."),
        ("TOBY", "Then we swim."), ("RADIO", "...gale warning"),
        ("ELSIE", "Nobody swims. We fix the radio, we call the mainland, and we wait for morning like sensible people."),
        ("TOBY", "You sound just like him."),
    ], ["Waves break on black rocks.", "Elsie finally turns. She holds out a wrench.", "The sea is flat and grey."]),
    "screenplay_imsdb_plain.txt": ("screenplay", [
        ("GRANDPA", "Margaret! Supper!"), ("MAGGIE", "Coming!"), ("GRANDPA", "You'll spoil your appetite"),
        ("MAGGIE", "Apples don't count. Everybody knows apples don't count."),
        ("GRANDPA", "When I was your age I had to walk four miles to find a single apple."),
        ("MAGGIE", "You say that about everything."),
    ], ["Rows of apple trees.", "She drops to the ground."]),
    "screenplay_fountain.txt": ("screenplay", [
        ("NADIA", "It's late again."), ("OLD MAN", "It's always late on Tuesdays."), ("NADIA", "I didn't see you there."),
        ("McKENZIE", "Nobody ever does."),  # Fountain *emphasis* marks dropped
        ("NADIA", "Are you getting on?"), ("McKENZIE", "Are you?"),
        ("McKENZIE", "Not tonight."),
    ], ["Rain drums on the roof.", "Headlights. The bus, at last."]),
    "play_folger_hamlet.txt": ("play", [
        ("BARNARDO", "Who's there?"), ("FRANCISCO", "Nay, answer me."), ("BARNARDO", "Long live the King!"),
        ("FRANCISCO", "Barnardo?"), ("BARNARDO", "He."), ("FRANCISCO", "You come most carefully"),
        ("BARNARDO", "'Tis now struck twelve."), ("FRANCISCO", "For this relief much thanks. 'Tis bitter cold, And I"),
        ("BARNARDO", "Have you had quiet guard?"), ("FRANCISCO", "Not a mouse stirring."),
        ("BARNARDO", "Well, good night. If you do meet"), ("FRANCISCO", "I think I hear them."),
        ("HORATIO", "Friends to this ground."), ("MARCELLUS", "And liegemen to the Dane."),
        ("FRANCISCO", "Give you good night."), ("MARCELLUS", "O farewell, honest soldier."),
        ("FRANCISCO", "Barnardo hath my place."), ("MARCELLUS", "Holla, Barnardo."),
    ], ["Enter Barnardo and Francisco, two sentinels.", "Enter Horatio and Marcellus.", "Francisco exits."]),
    "play_markdown_hamlet.md": ("play", [
        ("BERNARDO", "Who's there?"), ("FRANCISCO", "Nay, answer me"), ("BERNARDO", "Long live the king!"),
        ("FRANCISCO", "For this relief much thanks: 'tis bitter cold, And I am sick at heart."),
        ("BERNARDO", "Well, good night. If you do meet"), ("FRANCISCO", "I think I hear them."),
        ("HORATIO", "Friends to this ground."), ("MARCELLUS", "And liegemen to the Dane."),
        ("FRANCISCO", "Give you good night."), ("MARCELLUS", "Holla! Bernardo!"),
    ], ["FRANCISCO at his post. Enter to him BERNARDO", "Enter HORATIO and MARCELLUS", "Exit"]),
    "play_centred_cues_everyman.txt": ("play", [
        ("MESSENGER", "I pray you all give your audience, And hear"), ("GOD", "I perceive, here in my majesty"),
        ("DEATH", "Almighty God, I am here"), ("GOD", "Go thou to Everyman"), ("DEATH", "Lord, I will in the world"),
    ], []),
    "screenplay_imsdb_page.html": ("screenplay", [
        ("RUTH", "You're not supposed to be up here."), ("KIT", "Neither are you."), ("RUTH", "Fair point."),
        ("KIT", 'Kit. It\'s short for "Katherine" but nobody calls me that.'),
    ], ["Fog. A foghorn. RUTH (50s) leans on the rail & smokes.", "KIT, nine years old, climbs out"]),
    "play_html_export.html": ("play", [
        ("Algernon", "Did you hear what I was playing"), ("Lane", "I didn’t think it polite"),
        ("Algernon", "I’m sorry for that"), ("Lane", "Yes, sir."), ("Algernon", "Oh! by the way, Lane"),
        ("Lane", "Yes, sir; eight bottles"),
    ], ["Hands them on a salver.", "Inspects them, takes two, and sits down on the sofa.",
        "Lane is arranging afternoon tea"]),
    # second round: layouts the first round had not seen
    "colon_crlf_bom_nbsp.txt": ("colon", [
        ("Ada", "Did you leave the oven on"), ("Ben", "Only a little."), ("Ada", 'There is no "a little"'), ("Ben", "Toast?"),
        ("Ada", "I'll make coffee instead."), ("Ben", "Good plan."),
    ], ["Ben opens the oven door. Smoke."]),
    "colon_radio_drama.txt": ("colon", [
        ("ANNOUNCER", "The Lantern at Gull Rock. Tonight"), ("MARGARET", "Tom? Is that you?"), ("TOM", "It's me, Mrs. Hale."),
        ("MARGARET", "Anything for me?"), ("TOM", "One letter."), ("MARGARET", "An inspector will call"),
        ("TOM", "Thursday's tomorrow."), ("MARGARET", "I know what day"), ("DRAKE", "Mrs. Hale? Inspector Drake"),
        ("MARGARET", "Hide the book."), ("TOM", "Where?"), ("ANNOUNCER", "Will Margaret keep"),
    ], ["THEME UP, THEN UNDER", "WIND. SURF AGAINST ROCKS. A DOOR BANGS.", "OFF, APPROACHING", "DOOR CLOSES. WIND CUT OFF.",
        "ENVELOPE TORN OPEN", "READING", "STING", "KNOCKING AT THE DOOR", "LOW, TO TOM", "THEME UP AND OUT"]),
    "colon_radio_unnumbered.txt": ("colon", [
        ("ANNOUNCER", "And now, another adventure"), ("WATSON", "It was a raw morning"), ("HOLMES", "Come in, come in!"),
        ("GARRIDEB", "You're Mr. Holmes?"), ("HOLMES", "You appear to be a Garrideb"), ("GARRIDEB", "That's the trouble."),
        ("WATSON", "I confess that"), ("HOLMES", "Three Garridebs."), ("HOLMES", "Well, Watson"), ("WATSON", "Only that he lied"),
    ], ["VIOLIN THEME, ESTABLISH, FADE UNDER", "CARRIAGE WHEELS ON COBBLES", "DOOR OPENS AND CLOSES", "AMERICAN, BREATHLESS",
        "CHAIR CREAKS", "NARRATING", "BRIDGE", "RAIN ON WINDOWS"]),
    "colon_timestamp_bracket.txt": ("colon", [
        ("Marta", "Has anyone seen the spare key?"), ("Joel", "What does it look like?"), ("Marta", "Like a key, Joel."),
        ("Joel", "Then no."), ("Chester", "Why is everyone staring"), ("Marta", "The key is gone."),
        ("Chester", "Is this a mystery now?"), ("Fern", "I used it to open"), ("Marta", "You opened a can"),
        ("Fern", "It was a very determined soup."),
    ], ["Opening credits", "Chester enters from the hallway", "from the couch"]),
    "colon_timestamp_plain_caps.txt": ("colon", [
        ("GRACE", "I told you the boat"), ("DEV", "And I told you"), ("GRACE", "Is that water coming in?"), ("DEV", "That's... a feature."),
        ("GRACE", "Dev, we are sinking."), ("DEV", "Gently."), ("HARBOURMASTER", "You two again?"), ("GRACE", "Don't say anything."),
        ("HARBOURMASTER", "I wasn't going to."),
    ], ["WAVES CRASHING", "MUSIC"]),
    "colon_tv_sitcom_scenes.txt": ("colon", [
        ("NINA", "Okay, who borrowed the canoe?"), ("DAVE", 'Define "borrowed."'), ("NINA", "It means you brought it back."),
        ("DAVE AND TOM", "Ohhh."), ("ALL", "Hey, Leo."), ("LEO", "DON'T ASK ME ABOUT THE CANOE."), ("TOM", "It's a lake."),
        ("NINA", "It's not the canoe"), ("LEO", "Is that it?"), ("DAVE", "That is definitely the bottom half"),
    ], ["to Nina", "Leo enters carrying a paddle", "Nina is pacing.", "Cut to the lake.", "whispering"]),
    "colon_zh_curly_quotes.txt": ("colon", [
        ("王掌柜", "小二，把门口的灯笼点上。"), ("小二", "好嘞！"), ("王掌柜", "不急，先把客人送走。"), ("老者", "还有座位吗？"),
        ("王掌柜", "有，有！您里边请。"), ("老者", "给我来一壶茉莉花"), ("小二", "马上就来！"), ("王掌柜", "老先生，您不是本地人吧？"),
        ("老者", "四十年前"),
    ], ["一位老者拄着拐杖走进来。"]),
    "colon_zh_name_kagikakko.txt": ("colon", [
        ("春日", "阿虚，你来得正好！"), ("阿虚", "我每次都来得正好"), ("春日", "少废话。"), ("长门", "……"), ("阿虚", "长门，你也说句话啊。"),
        ("长门", "雨，会在六点十二分停。"), ("春日", "你看，连有希都支持我！"), ("阿虚", "她什么都没说吧。"),
    ], []),
    "play_french_avare.txt": ("play", [
        ("VALÈRE", "Hé quoi! charmante Élise"), ("ÉLISE", "Non, Valère"), ("VALÈRE", "Hé! que pouvez-vous craindre"),
        ("ÉLISE", "Hélas! cent choses"), ("HARPAGON", "Hors d'ici tout à l'heure"), ("LA FLÈCHE", "Je n'ai jamais rien vu"),
        ("HARPAGON", "Tu murmures"), ("LA FLÈCHE", "Pourquoi me chassez-vous?"), ("HARPAGON", "Ce coquin-là"),
        ("HARPAGON", "Sors vite"),
    ], ["à part", "bas", "Haut."]),
    "play_spanish_vida_sueno.txt": ("play", [
        ("ROSAURA", "Hipogrifo violento,"), ("CLARÍN", "Di dos, y no me dejes"), ("ROSAURA", "No quise darte parte"),
        ("CLARÍN", "¡Tanto de tu parte era!"), ("CLARÍN", "¡Qué bien dice!"), ("SEGISMUNDO", "¡Ay mísero de mí"),
    ], ["Aparte."]),
    "play_german_minna.txt": ("play", [
        ("Just", "Schurke von einem Wirte!"), ("Just", "He da! schon wieder?"), ("Der Wirt", "Guten Morgen, Herr Just"),
        ("Just", "Sage Er, was Er will."), ("Der Wirt", "Ich sage nichts als"), ("Just", "Großen Dank!"),
        ("Der Wirt", "Man ist verdrießlich"),
    ], ["sitzet in einem Winkel, schlummert und redet im Traume", "Er holt aus und erwacht durch die Bewegung.", "Er geht ab."]),
    "play_folio_hamlet.txt": ("play", [
        ("Barnardo", "Who's there?"), ("Fran", "Nay answer me"), ("Bar", "Long liue the King"), ("Fran", "Barnardo?"),
        ("Bar", "He"), ("Fran", "You come most carefully"), ("Bar", "'Tis now strook twelue"),
        ("Fran", "For this releefe much thankes: 'Tis bitter cold, And I am sicke at heart"), ("Barn", "Haue you had quiet Guard?"),
        ("Fran", "Not a Mouse stirring"), ("Barn", "Well, goodnight. If you do meet Horatio and Marcellus, the Riuals"),
        ("Fran", "I thinke I heare them."), ("Hor", "Friends to this ground"), ("Mar", "And Leige-men to the Dane"),
        ("Fran", "Giue you good night"), ("Mar", "O farwel honest Soldier"), ("Fra", "Barnardo ha's my place"),
        ("Mar", "Holla Barnardo"),
    ], ["Enter Barnardo and Francisco two Centinels.", "Enter Horatio and Marcellus.", "Exit Fran."]),
    "play_greek_murray_margin.txt": ("play", [
        ("NURSE", "Would God no Argo e'er had winged the seas To Colchis"), ("ATTENDANT", "Thou ancient treasure"),
        ("NURSE", "Old man, good guide of Jason's little ones, A good slave"), ("MEDEA", "Oh, shame and pain"),
        ("NURSE", "Children, ye hear it!"), ("CHORUS", "I heard a voice and a moaning, A voice of the eastern seas."),
        ("LEADER", "Thou hast heard her, Nurse?"),
    ], ["The ATTENDANT comes from the house with the two children.", "within", "Strophe."]),
    "play_greek_jebb_antigone.txt": ("play", [
        ("ANTIGONE", "Ismene, sister, mine own dear sister"), ("ISMENE", "To me, Antigone"), ("ANTIGONE", "I knew it well"),
        ("ISMENE", "What is it?"), ("CHORUS", "Beam of the sun"), ("CHORUS", "He stood above our dwellings"),
        ("LEADER OF THE CHORUS", "But lo, the king"), ("CREON", "Sirs, the vessel of our State"),
    ], ["Exeunt ANTIGONE and ISMENE.", "Strophe 1", "Antistrophe 1"]),
    "play_formfeed_nbsp_crlf.txt": ("play", [
        ("HOST", "Snow again."), ("MAID", "Somebody does, sir."), ("STRANGER", "Is there a room?"),
        ("HOST", "There is a room, and a fire, and a bottle, for those who can pay."), ("STRANGER", "I can pay."),
        ("MAID", "Gold!"), ("HOST", "I saw."),
    ], ["The door opens. A STRANGER enters, shaking snow from his cloak.", "He puts a coin on the table.", "aside"]),
    "play_tab_twelfth_night.txt": ("play", [
        ("DUKE ORSINO", "If music be the food of love, play on; Give me excess"), ("CURIO", "Will you go hunt"),
        ("DUKE ORSINO", "What, Curio?"), ("CURIO", "The hart."), ("DUKE ORSINO", "Why, so I do"),
        ("DUKE ORSINO", "How now! what news from her?"), ("VALENTINE", "So please my lord"),
        ("DUKE ORSINO", "Away before me"), ("VIOLA", "What country, friends, is this?"), ("Captain", "This is Illyria, lady."),
    ], ["Enter DUKE ORSINO, CURIO, and other Lords; Musicians attending", "Enter VALENTINE",
        "Exeunt, the musicians playing softly", "Enter VIOLA, a Captain, and Sailors"]),
    "play_french_cue_alone.txt": ("play", [
        ("VALÈRE", "Hé quoi! charmante Élise"), ("ÉLISE", "Non, Valère"), ("VALÈRE", "Elle soupire encore."),
        ("ÉLISE", "Mais, à vous dire vrai"), ("CLÉANTE", "Je suis bien aise"), ("ÉLISE", "Que va-t-il m'apprendre?"),
        ("CLÉANTE", "J'aime."),
    ], ["à part", "bas"]),
    "screenplay_pdf_text.txt": ("screenplay", [
        ("JUNE", "I'm at the bridge."), ("SHERIFF BOYD", "Then turn around, June."), ("JUNE", "Somebody already did."),
        ("SHERIFF BOYD", "June? June, you still there?"), ("MAN", "You're late."), ("JUNE", "You're dead."),
    ], ["SUPER: \"NORTHERN CALIFORNIA, 1987\"", "INTERCUT - JUNE / SHERIFF'S OFFICE", "INSERT - THE MAP",
        "MONTAGE - JUNE'S DRIVE SOUTH", "END MONTAGE", "Rain hammers a lonely two-lane road"]),
    "colon_german_faust.txt": ("colon", [
        ("FAUST", "Habe nun, ach! Philosophie, Juristerei und Medizin, Und leider auch Theologie Durchaus studiert"),
        ("WAGNER", "O Tod! ich kenn's"), ("FAUST", "Es wird mein schönstes Glück zunichte!"),
        ("WAGNER", "Verzeiht! ich hör Euch deklamieren; Ihr last"), ("FAUST", "Ja, wenn der Pfarrer"),
    ], []),
    "play_italian_locandiera.txt": ("play", [
        ("MARCHESE", "Fra voi e me"), ("CONTE", "Sulla locanda"), ("MARCHESE", "Ma se la locandiera"), ("CONTE", "Per qual ragione?"),
        ("MARCHESE", "Io sono il Marchese"), ("CONTE", "Ed io sono il Conte"),
    ], ["Il Marchese di Forlipopoli ed il Conte d'Albafiorita."]),
    "play_german_kabale.txt": ("play", [
        ("Miller", "Einmal für allemal!"), ("Frau", "Das macht"), ("Miller", "Ich nehme alles so hoch?"), ("Frau", "Dummes Zeug!"),
        ("Miller", "Ich will nichts mehr"), ("Frau", "Ach, du lieber Gott!"), ("Miller", "Geh hin und mach Kaffee."),
    ], ["Miller steht eben vom Sessel auf", "schnell auf- und abgehend", "zornig", "weinerlich"]),
    "colon_radio_bbc.txt": ("colon", [
        ("MRS PIKE", "Who's there?"), ("ALFIE", "It's only me"), ("MRS PIKE", "At this hour?"), ("ALFIE", "The pipes have burst."),
        ("MRS PIKE", "Then you'd best come in."),
    ], ["SIGNATURE TUNE. FADE UNDER.", "FOOTSTEPS ON SNOW. A GATE CREAKS.", "DISTANT TRAFFIC", "SHE UNBOLTS THE DOOR", "LINK MUSIC"]),
    "colon_ja_colon.txt": ("colon", [
        ("ハルヒ", "ちょっと、キョン！"), ("キョン", "まだ集合時間の五分前だぞ"), ("ハルヒ", "あたしより遅く来たら遅刻なの！"),
        ("みくる", "あ、あの、お茶をどうぞ……"), ("キョン", "ありがとうございます"), ("長門", "……"),
    ], []),
    "colon_ja_name_kagikakko.txt": ("colon", [
        ("ハルカ", "遅い！"), ("ユウ", "掃除当番だったんだよ。"), ("ハルカ", "言い訳は聞かないわ。"), ("ミオ", "あの……"),
        ("ユウ", "いや、いいよ。"), ("ハルカ", "ちょっと、なんでミオには"), ("ユウ", "普段の行いの差"), ("ハルカ", "……まあいいわ。"),
    ], []),
}

# what a stage direction or page furniture looks like when it leaks into the words
LEAKS = re.compile(r"[\[\]（）*<>#]|^_|_$|CONTINUED|&\w+;|\(MORE\)|CONT'D|^\(|\)$|\bExit\.?$|\bExeunt\b|CUT TO|FADE")


@pytest.fixture(scope="module", params=sorted(CASES))
def parsed(request):
    name = request.param
    lines, fmt = extract_script(FIXTURES / name, "w")
    return name, lines, fmt


def test_every_fixture_has_a_case():
    assert sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".txt", ".html", ".md") and p.name != "README.md") == sorted(CASES)
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert all(name in readme for name in CASES)  # provenance of each fixture


def test_auto_picks_the_layouts_format(parsed):
    name, _, fmt = parsed
    assert fmt == CASES[name][0]


def test_speakers_and_first_words_follow_the_cues(parsed):
    name, lines, _ = parsed
    expected = CASES[name][1]
    got = [(ln.name, ln.text) for ln in lines if ln.kind == "dialogue"]
    assert [n for n, _ in got] == [n for n, _ in expected], name
    for (cue, text), (_, start) in zip(got, expected):
        assert text.startswith(start), (name, cue, text, start)


def test_stage_directions_are_action_lines_not_words(parsed):
    name, lines, _ = parsed
    actions = [ln.text for ln in lines if ln.kind == "action"]
    for d in CASES[name][2]:
        assert any(d in a for a in actions), (name, d, actions)
    assert not any("[[" in ln.text or "Note:" in ln.text for ln in lines), name  # Fountain notes dropped
    assert not any("CONTINUED" in ln.text or re.fullmatch(r"\d+\.?", ln.text) for ln in lines), name  # page furniture
    for ln in lines:
        if ln.kind == "dialogue":
            assert not LEAKS.search(ln.text), (name, ln.name, ln.text)
            assert not any(d in ln.text for d in CASES[name][2] if len(d) > 6), (name, ln.text)


def test_voice_marks_are_extensions_not_directions():
    lines, _ = extract_script(FIXTURES / "colon_tv_caps_transcript.txt", "w")
    assert (lines[-1].name, lines[-1].text, lines[-1].extra) == ("CLERK", "Aisle nine. Next to the regret.", {"extension": "OC"})
    assert "OC" not in [ln.text for ln in lines if ln.kind == "action"]
    lines, _ = extract_script(FIXTURES / "screenplay_numbered_shooting.txt", "w")
    assert [ln.extra for ln in lines if ln.name == "RADIO"] == [{"extension": "O.S."}]


def test_gutenberg_frame_and_cast_list_are_not_lines():
    lines, _ = extract_script(FIXTURES / "play_gutenberg_full_dolls_house.txt", "w")
    text = " ".join(ln.text for ln in lines)
    assert "Gutenberg" not in text and "Nora, his wife" not in text and "Doctor Rank" not in text
    assert (lines[0].kind, lines[0].unit, lines[0].text) == (
        "narration", "ACT I", "A room furnished comfortably and tastefully, but not extravagantly.")


def test_prose_is_still_refused(samples):
    with pytest.raises(InputError, match="cannot recognise a script format"):
        extract_script(samples / "alice29.txt", "alice")


def test_second_round_colon_details():
    """Radio cue lines, header lines and cast lists are not speakers; `(OFF)` is a voice mark; a
    transcript's `INT.` heading opens a scene; kana names are joined without spaces."""
    lines, _ = extract_script(FIXTURES / "colon_radio_drama.txt", "w")
    names = {ln.name for ln in lines if ln.kind == "dialogue"}
    assert not names & {"MUSIC", "SOUND", "SFX", "F/X", "CAST", "Episode 4"}
    assert "INSPECTOR DRAKE" not in " ".join(ln.text for ln in lines)  # the cast list is skipped
    assert [ln.extra for ln in lines if ln.name == "DRAKE"] == [{"extension": "OFF"}]
    assert not any(ln.text[:1].isdigit() for ln in lines if ln.kind == "dialogue")  # line numbers dropped
    lines, _ = extract_script(FIXTURES / "colon_tv_sitcom_scenes.txt", "w")
    tom = next(ln for ln in lines if ln.name == "TOM")
    assert (tom.unit, lines[tom.index - 2].text) == ("scene 2", "INT. NINA'S APARTMENT - NIGHT")
    lines, _ = extract_script(FIXTURES / "colon_ja_name_kagikakko.txt", "w")
    assert [ln.kind for ln in lines].count("narration") == 4 and lines[0].unit == "第一章"


def test_second_round_foreign_headings():
    lines, _ = extract_script(FIXTURES / "play_french_avare.txt", "w")
    units = list(dict.fromkeys(ln.unit for ln in lines))
    assert units == ["ACTE PREMIER SCÈNE PREMIÈRE", "ACTE PREMIER SCÈNE III"]
    assert "Harpagon, père de Cléante" not in " ".join(ln.text for ln in lines)  # PERSONNAGES list skipped
    lines, _ = extract_script(FIXTURES / "play_spanish_vida_sueno.txt", "w")
    assert [ln.unit for ln in lines][0] == "JORNADA PRIMERA ESCENA PRIMERA" and lines[-1].unit == "JORNADA PRIMERA ESCENA II"
    assert lines[0].kind == "narration" and lines[0].text.startswith("Sale en lo alto de un monte ROSAURA")
    assert not any("PERSONAS" in ln.text or "gracioso" in ln.text for ln in lines)


def test_second_round_cast_list_names_and_folio_indents():
    """Mixed-case cues known from the cast list (`Just.`, `Fra.` for Francisco) and, with no cast
    list, from the indents where recurring cues stand (`  Hor.` between `   Mar.` lines)."""
    from extractors.script import parse_text

    lines, _ = extract_script(FIXTURES / "play_german_minna.txt", "w")
    assert [(ln.kind, ln.text) for ln in lines if ln.text.startswith("Der Wirt. Just")] == [("narration", "Der Wirt. Just.")]
    assert lines[0].unit == "ERSTER AUFZUG ERSTER AUFTRITT" and lines[-1].unit == "ERSTER AUFZUG ZWEITER AUFTRITT"
    text = (FIXTURES / "play_folio_hamlet.txt").read_text(encoding="utf-8")
    no_cast = text[: text.index("The Names")] + text[text.index("Actus Primus") :]
    result, fmt = parse_text(no_cast)
    cues = [e.cue for e in result.dialogue]
    assert fmt == "play" and "Hor" in cues and cues[0] == "Barnardo"
    assert result.events[0].unit == "ACTUS PRIMUS SCOENA PRIMA"


def test_second_round_verse_numbers_are_not_words():
    lines, _ = extract_script(FIXTURES / "play_greek_murray_margin.txt", "w")
    assert not any(re.search(r"\d", ln.text) for ln in lines if ln.kind == "dialogue")
    lines, _ = extract_script(FIXTURES / "play_formfeed_nbsp_crlf.txt", "w")
    assert not any("\f" in ln.text or "\u00a0" in ln.text or "\r" in ln.text for ln in lines)


def test_second_round_pdf_page_furniture_dropped():
    lines, _ = extract_script(FIXTURES / "screenplay_pdf_text.txt", "w")
    text = " ".join(ln.text for ln in lines)
    assert "Rev." not in text and "Page 3" not in text and "LOW TIDE" not in text
    assert [ln.extra for ln in lines if ln.kind == "dialogue"][:3] == [
        {"parenthetical": "into phone"}, {"extension": "V.O."}, {"extension": "CONT'D"}]
    assert lines[-1].text == "You're dead. I went to your funeral."


def test_second_round_title_line_of_a_cue_alone_file_is_not_a_speech():
    lines, _ = extract_script(FIXTURES / "colon_german_faust.txt", "w")
    assert (lines[0].kind, lines[0].text) == ("narration", "Faust: Der Tragödie erster Teil")
    assert ("narration", "Es klopft.") in [(ln.kind, ln.text) for ln in lines]

