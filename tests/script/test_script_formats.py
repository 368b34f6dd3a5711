"""Colon and screenplay scripts, format detection, encodings and bad input for the script extractor."""

from __future__ import annotations

import pytest

from extractors.characters import AliasResolver, Character
from extractors.errors import InputError
from extractors.script import extract_script, parse_text
from extractors.script.colon import match_cue

HARUHI = """\
第一幕 文艺部活动室
旁白:放学后，文艺部活动室里只有长门有希在看书。
阿虚:「你每天都在这里看书吗？」
长门:「……嗯。」
凉宫春日:「阿虚！我想到了一个好主意！」
阿虚：又是什么奇怪的主意？
凉宫春日:「我们要成立一个新社团，
去寻找外星人、未来人和超能力者！」
[春日用力拍了拍桌子]
阿虚:「这是在开玩笑吧。」
他说：这不可能。
会议在10:30开始，详见http://example.com。

第二幕 教室
scene:第二天早上的教室。
第3场
长门:「……」
凉宫春日:「社团的名字我已经想好了。」
阿虚:「说来听听。」
"""

SCREENPLAY = """\
                              NIGHT SHIFT

                              Written by

                              A. Writer


FADE IN:

1   INT. ALL-NIGHT DINER - NIGHT                                   1

Rain streaks the windows. MARGARET (60s, sharp-eyed) wipes the
counter. The door BANGS open.

TOM (30s) stumbles in, soaked to the bone.

                    MARGARET
          We're closed.

                    TOM
               (shaking off water)
          The sign says open.

                    MARGARET (CONT'D)
          The sign lies. Like most things
          around here.

                    RADIO (V.O.)
          ...the last train to Albany has
          been cancelled...

                                                  CUT TO:

2   EXT. TRAIN STATION - CONTINUOUS                                2

An empty platform. A lone BENCH.

                    TOM (O.S.)
          Hello?
               (beat)
          Anyone?

                    MARGARET
          Coffee's on me.

                                                  FADE OUT.
"""

PROSE = """\
It was a bright cold day in April, and the clocks were striking thirteen. The hallway
smelt of boiled cabbage and old rag mats. At one end of it a coloured poster, too large
for indoor display, had been tacked to the wall: it depicted simply an enormous face.

Winston made for the stairs. It was no use trying the lift. Even at the best of times
it was seldom working, and at present the electric current was cut off during daylight
hours. Note: this was part of the economy drive in preparation for Hate Week.
"""

RES = AliasResolver([Character("haruhi", "凉宫春日", "凉宫春日的忧郁", language="zh", aliases=["春日", "凉宫春日"]),
                     Character("kyon", "阿虚", "凉宫春日的忧郁", language="zh", aliases=["阿虚", "Kyon"])])


def test_colon_chatharuhi_form():
    result, fmt = parse_text(HARUHI, "auto", RES)
    assert fmt == "colon"
    ev = result.events
    dia = [(e.cue, e.text) for e in ev if e.kind == "dialogue"]
    assert dia[:5] == [
        ("阿虚", "你每天都在这里看书吗？"),
        ("长门", "……嗯。"),
        ("凉宫春日", "阿虚！我想到了一个好主意！"),
        ("阿虚", "又是什么奇怪的主意？"),
        ("凉宫春日", "我们要成立一个新社团，去寻找外星人、未来人和超能力者！"),  # wrapped line joined, 「」 stripped
    ]
    assert len(dia) == 9
    assert ev[-1].unit == "第二幕 第3场"
    assert [(e.unit, e.text) for e in ev if e.cue == "长门"] == [("第一幕", "……嗯。"), ("第二幕 第3场", "……")]
    kinds = [(e.kind, e.text) for e in ev if e.kind != "dialogue"]
    assert ("narration", "放学后，文艺部活动室里只有长门有希在看书。") in kinds
    assert ("action", "春日用力拍了拍桌子") in kinds
    assert ("narration", "他说：这不可能。") in kinds  # a sentence, not a cue
    assert ("narration", "第二天早上的教室。") in kinds
    assert (ev[0].unit, ev[0].kind, ev[0].text) == ("第一幕", "narration", "文艺部活动室")
    assert ("narration", "教室") in kinds


def test_colon_false_positive_guards():
    assert match_cue("Rosalind: I would cure you.") == ("Rosalind", "I would cure you.")
    assert match_cue("Dr. Watson: You have been in Afghanistan.") == ("Dr. Watson", "You have been in Afghanistan.")
    assert match_cue("GUARD 2: Halt!") == ("GUARD 2", "Halt!")
    assert match_cue("The train leaves at 10:30 sharp.") is None
    assert match_cue("10:30 the train leaves") is None
    assert match_cue("See http://example.com/a:b for more") is None
    assert match_cue("https://example.com") is None
    assert match_cue("He said: nothing at all.") is None
    assert match_cue("and then, after all that: silence") is None
    assert match_cue("他说：你好。") is None
    assert match_cue("张飞大叫道：「谁敢与我决一死战！」") is None


def test_colon_lines_resolve_to_configured_ids(tmp_path):
    p = tmp_path / "haruhi.txt"
    p.write_text(HARUHI, encoding="utf-8")
    lines, fmt = extract_script(p, "haruhi", resolver=RES)
    dia = [ln for ln in lines if ln.kind == "dialogue"]
    assert {ln.speaker for ln in dia} == {"kyon", "haruhi", "长门"}
    assert all(ln.evidence == "script" and ln.confidence == 1.0 for ln in dia)
    assert [ln.index for ln in lines] == list(range(len(lines)))


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16"])
def test_chinese_script_in_other_encodings_decodes(tmp_path, encoding):
    p = tmp_path / f"haruhi-{encoding}.txt"
    p.write_bytes(HARUHI.encode(encoding))
    lines, fmt = extract_script(p, "haruhi", resolver=RES)
    assert fmt == "colon"
    assert lines[2].text == "你每天都在这里看书吗？" and lines[2].speaker == "kyon"


def test_screenplay():
    result, fmt = parse_text(SCREENPLAY, "auto")
    assert fmt == "screenplay"
    ev = result.events
    assert ev[0].kind == "narration" and ev[0].text == "INT. ALL-NIGHT DINER - NIGHT" and ev[0].unit == "1"
    dia = [(e.cue, e.text, e.unit) for e in ev if e.kind == "dialogue"]
    assert dia == [
        ("MARGARET", "We're closed.", "1"),
        ("TOM", "The sign says open.", "1"),
        ("MARGARET", "The sign lies. Like most things around here.", "1"),
        ("RADIO", "...the last train to Albany has been cancelled...", "1"),
        ("TOM", "Hello? Anyone?", "2"),
        ("MARGARET", "Coffee's on me.", "2"),
    ]
    tom = next(e for e in ev if e.cue == "TOM")
    assert tom.extra == {"parenthetical": "shaking off water"}
    assert next(e for e in ev if e.cue == "RADIO").extra == {"extension": "V.O."}
    actions = [e.text for e in ev if e.kind == "action"]
    assert actions[0].startswith("Rain streaks the windows.") and "A lone BENCH." in actions[-1]
    assert not any("CUT TO" in e.text or "FADE" in e.text or "Written by" in e.text for e in ev)
    assert [e.text for e in ev if e.kind == "narration"] == ["INT. ALL-NIGHT DINER - NIGHT", "EXT. TRAIN STATION - CONTINUOUS"]


def test_prose_is_refused_not_emptied(tmp_path, samples):
    p = tmp_path / "prose.txt"
    p.write_text(PROSE)
    with pytest.raises(InputError, match="cannot recognise a script format.*--format"):
        extract_script(p, "w")
    with pytest.raises(InputError, match="cannot recognise a script format"):
        extract_script(samples / "alice29.txt", "alice")  # a real novel with a few colons and dots


def test_explicit_format_that_finds_nothing_is_an_error(tmp_path):
    p = tmp_path / "screen.txt"
    p.write_text(SCREENPLAY)
    with pytest.raises(InputError, match="no dialogue found .* colon script"):
        extract_script(p, "w", fmt="colon")
    with pytest.raises(InputError, match="unknown script format"):
        extract_script(p, "w", fmt="novel")


@pytest.mark.parametrize(
    "content,message",
    [(b"", "file is empty"), (b"   \n\n", "file is empty"), (bytes(range(256)) * 20, "binary")],
)
def test_bad_files(tmp_path, content, message):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError, match=message):
        extract_script(p, "w")


FRIENDS_STYLE = """\
The One Where Monica Gets A Roommate

[Scene: Central Perk, Chandler, Joey, Phoebe, and Monica are there.]

Monica: There's nothing to tell! He's just some guy I work with!

Joey: C'mon, you're going out with the guy! There's gotta be something wrong with him!

Phoebe: Wait, does he eat chalk?

(They all stare, bemused.)

[Time Lapse]

Ross: (mortified) Hi.

Joey: This guy says hello, I wanna kill myself. I paid (a lot) for this.

Ross: I just feel like someone reached down my throat, grabbed my small intestine, pulled it out of my
mouth and tied it around my neck...

Written by: Marta Kauffman & David Crane
"""


def test_colon_transcript_with_brackets_and_parentheticals():
    result, fmt = parse_text(FRIENDS_STYLE, "auto")
    assert fmt == "colon"
    got = [(e.kind, e.cue, e.text) for e in result.events]
    assert got[1] == ("narration", None, "Central Perk, Chandler, Joey, Phoebe, and Monica are there.")
    assert ("action", None, "They all stare, bemused.") in got and ("action", None, "Time Lapse") in got
    i = got.index(("action", None, "mortified"))
    assert got[i + 1] == ("dialogue", "Ross", "Hi.")
    assert ("dialogue", "Joey", "This guy says hello, I wanna kill myself. I paid (a lot) for this.") in got
    assert ("dialogue", "Ross", "I just feel like someone reached down my throat, grabbed my small intestine, "
            "pulled it out of my mouth and tied it around my neck...") in got
    assert got[-1] == ("narration", None, "Written by: Marta Kauffman & David Crane")
    assert [e.cue for e in result.events if e.kind == "dialogue"] == ["Monica", "Joey", "Phoebe", "Ross", "Joey", "Ross"]


def test_screenplay_mixed_case_cue_and_markdown_colon_names():
    sp = ("INT. NAKATOMI PLAZA - NIGHT\n\nMcCLANE crawls through the vent.\n\n"
          "                    McCLANE\n          Come out to the coast, we'll get\n          together, have a few laughs...\n\n"
          "                    HANS (V.O.)\n          Mr. Mystery Guest?\n\n                    Tom\n          Not a cue.\n")
    result, fmt = parse_text(sp)
    assert fmt == "screenplay"
    assert [(e.cue, e.text) for e in result.dialogue] == [
        ("McCLANE", "Come out to the coast, we'll get together, have a few laughs..."), ("HANS", "Mr. Mystery Guest?")]
    result, fmt = parse_text("**Kyon:** Hello.\n**Haruhi:** Hi!\n**Kyon:** Bye.\n")
    assert fmt == "colon" and [e.cue for e in result.dialogue] == ["Kyon", "Haruhi", "Kyon"]
