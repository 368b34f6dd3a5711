"""The play parser on the real As You Like It sample and on a Gutenberg-style `NAME.` excerpt."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from extractors.characters import AliasResolver, Character
from extractors.script import extract_script, parse_text
from extractors.textio import read_text

RESOLVER = AliasResolver(
    [
        Character("rosalind", "Rosalind", "As You Like It", aliases=["ROSALIND", "Ros.", "Ganymede"]),
        Character("orlando", "Orlando", "As You Like It", aliases=["ORLANDO", "Orl."]),
    ]
)


@pytest.fixture(scope="module")
def play(samples):
    lines, fmt = extract_script(samples / "asyoulik.txt", "asyoulik", fmt="auto", resolver=RESOLVER)
    return lines, fmt


def test_auto_picks_play_for_as_you_like_it(play):
    assert play[1] == "play"


def test_rosalind_speeches_counted_from_the_cues(play, samples):
    lines, _ = play
    text = read_text(samples / "asyoulik.txt")
    body = text[text.index("\nACT I\n") :]  # after the cast list
    cues = len(re.findall(r"^ROSALIND\t", body, flags=re.MULTILINE))
    assert cues == 201  # verified with grep: 202 lines minus the cast list entry
    ros = [ln for ln in lines if ln.kind == "dialogue" and ln.speaker == "rosalind"]
    # a speech interrupted by a direction ([Aside], [Reads]) becomes two lines; never fewer than the cues
    assert cues <= len(ros) <= cues + 15
    assert all(ln.name == "ROSALIND" and ln.evidence == "script" and ln.confidence == 1.0 for ln in ros)
    assert ros[0].unit == "ACT I SCENE II" and ros[0].text.startswith("Dear Celia, I show more mirth")


def test_first_scene_opens_with_orlando_then_adam(play):
    lines, _ = play
    first = [ln for ln in lines if ln.unit == "ACT I SCENE I" and ln.kind == "dialogue"]
    assert [ln.name for ln in first[:3]] == ["ORLANDO", "ADAM", "ORLANDO"]
    assert first[0].speaker == "orlando" and first[1].speaker == "adam"  # configured id / slug
    assert first[0].text.startswith("As I remember, Adam, it was upon this fashion bequeathed me by will")
    assert first[0].text.endswith("though yet I know no wise remedy how to avoid it.")  # continuation lines joined
    assert "  " not in first[0].text and "\t" not in first[0].text


def test_cast_list_is_not_dialogue(play):
    lines, _ = play
    texts = {ln.text for ln in lines}
    for cast_entry in ("living in banishment.", "daughter to the banished duke.", "a clown.", "a vicar.", "shepherds."):
        assert not any(t == cast_entry or t.startswith(cast_entry) for t in texts), cast_entry
    assert lines[0].unit == "ACT I SCENE I"
    assert all("|" not in ln.text for ln in lines)


def test_records_are_well_formed(play):
    lines, _ = play
    assert [ln.index for ln in lines] == list(range(len(lines)))
    assert all(ln.text.strip() and ln.source == "asyoulik.txt" and ln.work == "asyoulik" for ln in lines)
    for ln in lines:
        if ln.kind == "dialogue":
            assert ln.speaker and ln.name
        else:
            assert ln.speaker is None
    units = list(dict.fromkeys(ln.unit for ln in lines))
    assert units[:3] == ["ACT I SCENE I", "ACT I SCENE II", "ACT I SCENE III"]
    assert units[-1] == "EPILOGUE" and len(units) == 23  # 22 scenes + the epilogue


def test_stage_directions_become_action_lines(play, samples):
    lines, _ = play
    text = read_text(samples / "asyoulik.txt")
    directions = [" ".join(d.split()) for d in re.findall(r"\[([^\]]*)\]", text)]
    actions = Counter(ln.text for ln in lines if ln.kind == "action")
    assert len(directions) == 127
    assert not Counter(directions) - actions  # every [direction] is an action line
    assert not any("[" in ln.text or "]" in ln.text for ln in lines if ln.kind == "dialogue")
    # an inline direction is cut out of the speech and kept in place
    i = next(i for i, ln in enumerate(lines) if ln.kind == "action" and ln.text == "Aside to CELIA")
    assert lines[i + 1].speaker == "rosalind" and lines[i + 1].text.startswith("I will speak to him, like a saucy")
    # the speech after "[Exit DENNIS]" continues Oliver's
    j = next(i for i, ln in enumerate(lines) if ln.text == "Exit DENNIS")
    assert lines[j + 1].name == "OLIVER" and lines[j + 1].text == "'Twill be a good way; and to-morrow the wrestling is."


def test_scene_places_are_narration(play):
    lines, _ = play
    narr = [ln for ln in lines if ln.kind == "narration"]
    assert narr[0].text == "Orchard of Oliver's house." and narr[0].index == 0
    assert len(narr) == 22


GUTENBERG = """\
The Project Gutenberg eBook of As You Like It

*** START OF THE PROJECT GUTENBERG EBOOK AS YOU LIKE IT ***

AS YOU LIKE IT

Contents

ACT I
Scene I. Orchard of Oliver’s house.
Scene II. A Lawn before the Duke’s Palace.

Dramatis Personæ

DUKE SENIOR. Living in exile.
ORLANDO. Youngest son of Sir Rowland de Boys.
ROSALIND. Daughter to Duke Senior.

ACT I

SCENE II. A Lawn before the Duke’s Palace.

 Enter Rosalind and Celia.

CELIA.
I pray thee, Rosalind, sweet my coz, be merry.

ROSALIND.
Dear Celia, I show more mirth than I am mistress of, and
would you yet I were merrier?

 Enter Touchstone.

TOUCHSTONE. Mistress, you must come away to your father.
CELIA. Were you made the messenger?

TOUCHSTONE.
No, by mine honour, but I was bid to come for you.

 [_Exit._]

ROSALIND.
Where learned you that oath, fool?

*** END OF THE PROJECT GUTENBERG EBOOK AS YOU LIKE IT ***
Section 1. General Terms of Use.
"""

OLD_STYLE = """\
ACT I. SCENE I.
Orchard of OLIVER'S house

Enter ORLANDO and ADAM

  Orl. As I remember, Adam, it was upon this fashion bequeathed me by
    will but poor a thousand crowns.
  Adam. Yonder comes my master, your brother.
  Orl. Go apart, Adam, and thou shalt hear how he will shake me up.
                                                        [ADAM retires]
                       Enter OLIVER
  Oli. Now, sir! what make you here?
  Orl. Nothing; I am not taught to make any thing.
  Oli. What mar you then, sir?
  Orl. Marry, sir, I am helping you to mar that which God made.
                                                            Exeunt
"""


def test_gutenberg_name_dot_layout():
    result, fmt = parse_text(GUTENBERG, "auto", RESOLVER)
    assert fmt == "play"
    dia = [(e.cue, e.text) for e in result.events if e.kind == "dialogue"]
    assert dia == [
        ("CELIA", "I pray thee, Rosalind, sweet my coz, be merry."),
        ("ROSALIND", "Dear Celia, I show more mirth than I am mistress of, and would you yet I were merrier?"),
        ("TOUCHSTONE", "Mistress, you must come away to your father."),
        ("CELIA", "Were you made the messenger?"),
        ("TOUCHSTONE", "No, by mine honour, but I was bid to come for you."),
        ("ROSALIND", "Where learned you that oath, fool?"),
    ]
    acts = [e.text for e in result.events if e.kind == "action"]
    assert acts == ["Enter Rosalind and Celia.", "Enter Touchstone.", "Exit."]
    assert {e.unit for e in result.events} == {"ACT I SCENE II"}
    assert not any("Living in exile" in e.text or "General Terms" in e.text for e in result.events)


def test_abbreviated_cues_resolve_through_aliases():
    result, fmt = parse_text(OLD_STYLE, "play", RESOLVER)
    from extractors.script.base import events_to_lines

    lines = events_to_lines(result.events, "w", "old.txt", RESOLVER)
    dia = [(ln.speaker, ln.name) for ln in lines if ln.kind == "dialogue"]
    assert dia == [("orlando", "Orl"), ("adam", "Adam"), ("orlando", "Orl"), ("oli", "Oli"), ("orlando", "Orl"),
                   ("oli", "Oli"), ("orlando", "Orl")]
    assert lines[0].kind == "narration" and lines[0].text == "Orchard of OLIVER'S house"
    assert lines[2].text == "As I remember, Adam, it was upon this fashion bequeathed me by will but poor a thousand crowns."
    assert [ln.text for ln in lines if ln.kind == "action"] == ["Enter ORLANDO and ADAM", "ADAM retires", "Enter OLIVER", "Exeunt"]


WILDE = """FIRST ACT

SCENE

Morning-room in Algernon's flat in Half-Moon Street.  The room is
luxuriously and artistically furnished.

[Lane is arranging afternoon tea on the table, and after the music has
ceased, Algernon enters.]

Algernon.  Did you hear what I was playing, Lane?

Lane.  I didn't think it polite to listen, sir.

Algernon.  I'm sorry for that, for your sake.  I don't play
accurately--any one can play accurately--but I play with wonderful
expression.

Lane.  Yes, sir.  [Hands them on a salver.]

SECOND ACT

SCENE

Garden at the Manor House.

Algernon.  Lane!

Lane.  Yes, sir.
"""


def test_ordinal_acts_bare_scene_and_place_paragraph():
    """Wilde's layout (The Importance of Being Earnest, Gutenberg): `FIRST ACT`, a bare `SCENE`,
    the place as a paragraph after a blank line, mixed-case `Name.` cues (recurring 3 times or more)."""
    result, fmt = parse_text(WILDE, "auto", None)
    assert fmt == "play"
    ev = [(e.unit, e.kind, e.cue, e.text) for e in result.events]
    assert ev[0] == ("ACT FIRST", "narration", None,
                     "Morning-room in Algernon's flat in Half-Moon Street. The room is luxuriously and artistically furnished.")
    assert [(e[2], e[3][:20]) for e in ev if e[1] == "dialogue"] == [
        ("Algernon", "Did you hear what I "), ("Lane", "I didn't think it po"), ("Algernon", "I'm sorry for that, "),
        ("Lane", "Yes, sir."), ("Algernon", "Lane!"), ("Lane", "Yes, sir.")]
    assert ("ACT SECOND", "narration", None, "Garden at the Manor House.") in ev
