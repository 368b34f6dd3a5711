"""Stage plays: `NAME<TAB>words` or `NAME. words` cues, indented continuation lines, `[...]` directions.

A state machine: `classify` gives each line a `Kind`, `step` runs its handler; the `State` (TEXT, SPEECH,
AFTER_HEADING) and the rest the walk keeps live in the `Play` dataclass (play_state.py). The layouts read
(Gutenberg, Folger, Ibsen, Shaw, 话剧, French, German, Spanish, Italian plays): docs/script.md."""

from __future__ import annotations

from enum import Enum

from ..characters import AliasResolver
from ..text import clean
from .base import Emitter, ParseResult
from .play_cues import _Cues, _skip_range
from .play_state import Play, State, act, close_speech, prepare_lines, set_unit, take_paragraph
from .play_structure import (ACT_RE, BARE_SCENE_RE, DIRECTION_RE, ORD_ACT_RE, PART_RE, SCENE_PLACE_RE, SCENE_RE,
                             ZH_HEADING_RE, _CLEARS_SPEAKER, _is_heading, foreign_heading)

__all__ = ["parse_play", "foreign_heading"]


# -- the parser: classify each line, then one handler per kind over the states -----------------------------------------

class Kind(Enum):
    BLANK = "blank"
    PLACE = "place"  # the line (or paragraph) below a heading without a place, or who is on stage
    TITLE = "title"  # the play's title repeated before an act
    ACT = "act"  # `ACT I`, `ACT I. SCENE 2. place`
    SCENE = "scene"  # `SCENE II<TAB>place`
    ORD_ACT = "ordinal act"  # `FIRST ACT`
    SCENE_PLACE = "scene place"  # `SCENE.--Quarter-deck of H.M.S. Pinafore`
    ZH_HEADING = "zh heading"  # `第一幕`, `第二场`
    FOREIGN_HEADING = "foreign heading"  # `ACTE PREMIER`, `Zweiter Auftritt`
    BARE_SCENE = "bare scene"  # `SCENE` alone
    PART = "part"  # `PROLOGUE`, `EPILOGUE`
    BRACKET = "bracket"  # `[Enter ORLANDO and ADAM]`, maybe over several lines
    PAREN = "paren"  # a stand-alone `(direction)` between speeches
    CUE = "cue"  # a speaker cue (with or without words)
    ZH_INDENT = "zh indent"  # `　　一位先生进门。` in a 话剧: a direction
    DIRECTION = "direction"  # `Enter ...`, `Exeunt`, `_italic direction_`
    INLINE_DIRECTION = "inline direction"  # a flush-left paragraph without a cue in a `NAME. words` play
    WORDS = "words"  # more of the current speech, or unattributed text



# the walk tests the state on every line: module names are much faster to read than Enum attributes
_TEXT, _SPEECH, _AFTER_HEADING = State.TEXT, State.SPEECH, State.AFTER_HEADING


# -- classifying a line --------------------------------------------------------------------------------------------

def heading_kind(raw: str) -> tuple[Kind, object] | None:
    """The kind of act/scene heading the line is (with its match), or None."""
    m = ACT_RE.match(raw)
    if m and len(m.group("rest")) < 80:
        return Kind.ACT, m
    for kind, rx in ((Kind.SCENE, SCENE_RE), (Kind.ORD_ACT, ORD_ACT_RE)):
        m = rx.match(raw)
        if m:
            return kind, m
    m = SCENE_PLACE_RE.match(raw) if "\t" not in raw else None
    if m:
        return Kind.SCENE_PLACE, m
    m = ZH_HEADING_RE.match(raw)
    if m and len(m.group("rest")) < 40:
        return Kind.ZH_HEADING, m
    fh = foreign_heading(raw)
    if fh:
        return Kind.FOREIGN_HEADING, fh
    if BARE_SCENE_RE.match(raw):
        return Kind.BARE_SCENE, None
    m = PART_RE.match(raw)
    return (Kind.PART, m) if m else None


def _is_place(p: Play, raw: str, s: str) -> bool:
    """Below a heading without a place: `Der Wirt. Just.` (who is on stage) or a line that is no cue,
    heading or direction (the place)."""
    return p.cues.is_name_list(s) or (not p.cues.match(raw) and not _is_heading(raw) and not s.startswith("[")
                                      and not DIRECTION_RE.match(s))


def _is_direction(p: Play, raw: str, s: str) -> bool:
    indent = len(raw) - len(raw.lstrip(" "))
    short_direction = DIRECTION_RE.match(s) and (indent >= 12 or (len(s.split()) <= 4 and s[-1:] in ".]_"))
    return bool(short_direction or (p.state is not _SPEECH and (DIRECTION_RE.match(s) or (s.startswith("_") and s.endswith("_")))))


def classify(p: Play, raw: str, after_blank: bool) -> tuple[Kind, object]:
    s = raw.strip()
    if not s:
        return Kind.BLANK, None
    if p.state is _AFTER_HEADING and _is_place(p, raw, s):
        return Kind.PLACE, None
    if s == p.title and p.title and p.title.upper() == p.title:
        return Kind.TITLE, None
    heading = heading_kind(raw)
    if heading:
        return heading
    if s.startswith("["):
        return Kind.BRACKET, None
    if s.startswith("(") and s.endswith(")") and p.state is not _SPEECH:
        return Kind.PAREN, None
    cue = p.cues.match(raw)
    if cue:
        return Kind.CUE, cue
    if raw.startswith("\u3000") and p.cues.zh_names:
        return Kind.ZH_INDENT, None
    if _is_direction(p, raw, s):
        return Kind.DIRECTION, None
    if (p.inline and after_blank and raw[:1].strip() and p.speaker is not None and p.seen_structure
            and not p.awaiting_words and not p.manner):
        return Kind.INLINE_DIRECTION, None
    return Kind.WORDS, None


# -- handlers ------------------------------------------------------------------------------------------------------

def open_heading(p: Play, place: str | None, wait_for_place: bool | None = None) -> None:
    """After any heading: no speaker; the place (if the heading gave none, the next line may be it)."""
    p.speaker, p.pending_place, p.seen_structure = None, place, True
    wait = place is None if wait_for_place is None else wait_for_place
    p.state = State.AFTER_HEADING if wait else State.TEXT


def on_act(p: Play, s: str, m) -> None:
    p.act, p.scene, place = f"ACT {m.group('n').upper()}", None, None
    rest = m.group("rest")
    sm = SCENE_RE.match(rest) if rest else None
    if sm:
        p.scene = f"SCENE {sm.group('n').upper()}"
        place = clean(sm.group("place")) or None
    set_unit(p)
    open_heading(p, place)


def on_scene(p: Play, s: str, m) -> None:
    p.scene = f"SCENE {m.group('n').upper()}"
    set_unit(p)
    open_heading(p, clean(m.group("place")) or None)


def on_ord_act(p: Play, s: str, m) -> None:
    p.act, p.scene = f"ACT {m.group('n').upper()}", None
    set_unit(p)
    open_heading(p, None)


def on_scene_place(p: Play, s: str, m) -> None:
    place = clean(" ".join(take_paragraph(p, [m.group("place")], ("[",))))  # the place may wrap over lines
    open_heading(p, place, wait_for_place=False)


def on_zh_heading(p: Play, s: str, m) -> None:
    if m.group("kind") == "幕":
        p.act, p.scene = m.group("n") + "幕", None
    else:
        p.scene = m.group("n") + m.group("kind")
    p.out.unit = " ".join(x for x in (p.act, p.scene) if x)
    open_heading(p, clean(m.group("rest")) or None)


def on_foreign_heading(p: Play, s: str, fh) -> None:
    f_act, f_scene, rest = fh
    if f_act:
        p.act, p.scene = f_act, None
    if f_scene:
        p.scene = f_scene
    set_unit(p)
    open_heading(p, rest or None)


def on_part(p: Play, s: str, m) -> None:
    p.act, p.scene = m.group("n").upper(), None
    set_unit(p)
    open_heading(p, None)


def on_place(p: Play, s: str, _) -> None:
    if p.cues.is_name_list(s):
        p.pending_place = s  # `Der Wirt. Just.`: the persons of the scene
    else:  # "ACT I. SCENE I." then the place (a line or a paragraph) below it
        p.pending_place = " ".join(take_paragraph(p, [s], ("[",)))


def on_bracket(p: Play, s: str, _) -> None:
    buf = s
    while "]" not in buf and p.i < len(p.lines) and p.lines[p.i].strip():
        buf += " " + p.lines[p.i].strip()
        p.i += 1
    close = buf.find("]")
    direction, rest = (buf[1:close], buf[close + 1 :]) if close >= 0 else (buf[1:], "")
    act(p, direction)
    if _CLEARS_SPEAKER.match(direction.replace("_", "")):
        p.speaker = None
    p.seen_structure = True
    if clean(rest) and p.speaker:
        p.speech.append(rest)
        p.state = State.SPEECH
    else:
        p.state = State.TEXT


def on_paren(p: Play, s: str, _) -> None:
    act(p, s[1:-1])
    # `(Haut.)` / `(Aparte.)` between two paragraphs of one speech: the next one is still words
    p.manner = p.speaker is not None and len(s.split()) <= 3


def on_cue(p: Play, s: str, cue) -> None:
    p.speaker = cue[0]
    p.speech = [cue[1]] if cue[1].strip() else []
    p.awaiting_words = not p.speech  # `CHORUS.` then a blank line, then the song
    p.out.result.cue_lines += 1
    p.out.result.covered_chars += len(cue[0])
    p.state, p.seen_structure = State.SPEECH, True


def on_zh_indent(p: Play, s: str, _) -> None:
    act(p, s)  # `　　一位先生进门。`: an indented paragraph between speeches is a direction
    p.state, p.seen_structure = State.TEXT, True


def on_direction(p: Play, s: str, _) -> None:
    direction = " ".join(take_paragraph(p, [s]))  # Enter ..., Exit ..., possibly over several lines
    act(p, direction)
    if _CLEARS_SPEAKER.match(direction.replace("_", "")):
        p.speaker = None
    p.state, p.seen_structure = State.TEXT, True


def on_inline_direction(p: Play, s: str, _) -> None:
    act(p, " ".join(take_paragraph(p, [s])))
    p.state = State.TEXT


def on_words(p: Play, s: str, _) -> None:
    """A continuation of the current speech, or of the last speaker after a direction."""
    p.awaiting_words = False
    if p.speaker is not None:
        p.speech.append(s)
        p.state = State.SPEECH
    elif p.seen_structure:  # unattributed text inside the play: a direction paragraph
        act(p, " ".join(take_paragraph(p, [s], ("[", "("))))


def on_blank(p: Play, s: str, _) -> None:
    if p.state is State.SPEECH:
        p.state = State.TEXT  # a heading's place may follow after a blank line


# handlers that end the open speech first
CLOSING = {Kind.ACT: on_act, Kind.SCENE: on_scene, Kind.ORD_ACT: on_ord_act, Kind.SCENE_PLACE: on_scene_place,
           Kind.ZH_HEADING: on_zh_heading, Kind.FOREIGN_HEADING: on_foreign_heading, Kind.PART: on_part,
           Kind.BARE_SCENE: lambda p, s, _: open_heading(p, None), Kind.BRACKET: on_bracket, Kind.PAREN: on_paren,
           Kind.CUE: on_cue, Kind.ZH_INDENT: on_zh_indent, Kind.DIRECTION: on_direction,
           Kind.INLINE_DIRECTION: on_inline_direction}
OTHERS = {Kind.BLANK: on_blank, Kind.PLACE: on_place, Kind.TITLE: lambda p, s, _: None, Kind.WORDS: on_words}
# per kind: (ends the open speech first?, spends a `(Haut.)` manner?, handler); one lookup a line
ROUTES = {kind: (kind in CLOSING, kind in (Kind.INLINE_DIRECTION, Kind.WORDS), CLOSING.get(kind) or OTHERS[kind])
          for kind in Kind}


def step(p: Play, raw: str) -> None:
    s = raw.strip()
    after_blank, p.prev_blank = p.prev_blank, not s
    kind, data = classify(p, raw, after_blank)
    closes, spends_manner, handler = ROUTES[kind]
    if s and p.state is _AFTER_HEADING:
        p.state = _TEXT
    if spends_manner:
        p.manner = False  # a `(Haut.)` direction lets one paragraph go on as words
    if closes:
        close_speech(p)
    handler(p, s, data)


def parse_play(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a stage play; see the module docstring for the layouts understood."""
    lines = prepare_lines(text)
    cues = _Cues(lines, resolver)
    # inline-cue layout (`THE MOTHER. words` on the cue's line): a flush-left paragraph after a
    # blank line that has no cue is a stage direction (Shaw: "Freddy rushes in out of the rain...")
    cue_texts = [bool(m[1].strip()) for m in (cues.match(ln) for ln in lines) if m]
    inline = len(cue_texts) >= 3 and sum(cue_texts) >= 0.8 * len(cue_texts)
    first = next((ln for ln in lines if ln.strip()), "")
    title = "" if (_is_heading(first) or cues.match(first)) else clean(first)
    p = Play(lines, cues, Emitter("play", unit="1"), inline, title)
    skip_from, skip_to = _skip_range(lines, cues)
    while p.i < len(lines):
        if skip_from <= p.i < skip_to:
            p.i = skip_to
            continue
        p.i += 1
        step(p, lines[p.i - 1])
    close_speech(p)
    return p.out.result
