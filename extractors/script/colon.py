"""Colon scripts: `Name: words`, `Name：words`, `Name:「words」` (ChatHaruhi's own text form).

A state machine: `classify` gives each line a `Kind`, `step` runs its handler over the `State` (TEXT, SPEECH,
BLOCK, CAST) kept in the `Parser` dataclass. The name before the colon must look like a name, so `10:30`,
`http:` and `He said:` are no cues. The layouts read: docs/script.md."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from ..characters import AliasResolver
from ..speaker_cues import CUE_RE, NARRATION_NAMES, URL_SCHEMES, kagi_cue, match_cue, valid_name
from ..text import SCRIPT_QUOTE_PAIRS as QUOTE_PAIRS
from ..text import SPEECH_END
from ..text import unquote_pair as unquote
from .base import Emitter, ParseResult, join_lines

__all__ = ["parse_colon", "match_cue", "kagi_cue", "valid_name", "unquote", "strip_line_prefixes", "CUE_RE",
           "NARRATION_NAMES", "URL_SCHEMES", "QUOTE_PAIRS"]

# `CAST:` / `CHARACTERS:` on its own line: the cast list below it (up to a blank line) is skipped
CAST_HEADER_RE = re.compile(r"^\s*(?:the\s+)?(?:cast(?:\s+of\s+characters)?|characters|dramatis\s+person(?:ae|æ)|persons|"
                            r"人物表?|登场人物|登場人物)\s*[:：]?\s*$", re.IGNORECASE)
# radio/audio-drama cue lines that are directions, not speakers: `SOUND: DOOR BANGS`, `MUSIC: STING`
SOUND_NAMES = {"sound", "sounds", "sfx", "fx", "f/x", "f x", "sound fx", "sound effect", "sound effects", "effect",
               "effects", "music", "bgm", "se", "grams", "atmos", "atmosphere", "ambience", "biz", "business", "sting", "音效", "音乐", "音樂", "効果音", "ＳＥ", "ＢＧＭ"}
# a line number or a timestamp before the cue: `12. HOLMES: ...`, `[00:01:23] Monica: ...`, `00:01:23 MONICA: ...`
LINE_PREFIX_RE = re.compile(r"^\s*(?:\[\s*\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?\s*\]|\(\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?\)|"
                            r"\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?(?:\s*[-–—|]\s*|\s+)|\d{1,4}\.\s+)\s*(?=\S)")

SCENE_MARK_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:(?P<kw>scene|act|part|episode)\s+(?P<num>[IVXLCivxlc]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    r"[\s.,:\-–—]*(?P<rest>.*)|(?P<zh>第[一二三四五六七八九十百零〇\d]+[幕场場集章回节節])\s*(?P<zhrest>.*))$",
    re.IGNORECASE,
)
# directions inside a speech: "Ross: (mortified) Hi.", "春日:（笑）好啊", "[to Joey] Hey"
INLINE_DIRECTION_RE = re.compile(r"\[[^\]]*\]|\([^)]*\)|（[^）]*）|【[^】]*】|\{[^}]*\}")
SCREEN_HEADING_RE = re.compile(r"^(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I/E|INT|EXT)\.\s+[A-Z0-9]")
# screen/transcript voice marks after a name: `KIRK [OC]:`, `JERRY (V.O.):`, `ROSS (CONT'D):`
EXTENSION_RE = re.compile(r"^\s*(?:V\.?\s?O|O\.?\s?S|O\.?\s?C|CONT'?D|CONT|cont'd|on ?screen|on viewscreen|on phone|OFF|voice ?over|"
                          r"off|v\.?o|o\.?s|o\.?c)\.?\s*$")
_MARKDOWN_BOLD = re.compile(r"\*\*|__")
BRACKET_PAIRS = {"[": "]", "(": ")", "（": "）", "【": "】", "〔": "〕", "{": "}"}


def _bracketed(s: str) -> str | None:
    if s and s[0] in BRACKET_PAIRS and s.endswith(BRACKET_PAIRS[s[0]]):
        return s[1:-1]
    return None


def strip_line_prefixes(lines: list[str]) -> list[str]:
    """Drop line numbers / timestamps before the cues when most lines carry one (radio scripts,
    timed transcripts); a file with only a few numbered lines keeps them."""
    body = [ln for ln in lines if ln.strip()]
    hits = sum(1 for ln in body if LINE_PREFIX_RE.match(ln))
    if hits < 3 or hits < 0.4 * len(body):
        return lines
    return [LINE_PREFIX_RE.sub("", ln, count=1) for ln in lines]


# -- the parser: classify each line, then one handler per (state, kind) --------------------------------------------

class Kind(Enum):
    BLANK = "blank"
    CAST_HEADER = "cast header"  # `CAST:`: a cast list follows, up to a blank line
    SCENE = "scene mark"  # `Scene 2`, `## Act 1`, `第二幕`
    BRACKET = "bracketed"  # a stand-alone `[...]`, `(...)`, `（…）` line: a direction, or `[Scene: …]`
    HEADING = "screen heading"  # `INT. CENTRAL PERK - DAY` inside a transcript
    TITLE = "title"  # `Faust: Der Tragödie erster Teil` heading a file whose cues stand alone
    CUE = "cue"  # `Name: words`, `Name:` alone, `ハルヒ「…」`
    PLAIN = "plain"  # anything else: narration, or the wrapped tail of a speech


class State(Enum):
    TEXT = "text"  # no speech open
    SPEECH = "speech"  # a speech opened by `Name: words`: an unfinished sentence wraps onto the next line
    BLOCK = "block"  # a speech opened by `Name:` alone: every line up to a blank line is its words
    CAST = "cast"  # inside a `CAST:` list: skipped up to a blank line


# tested on every line: module names are much faster to read than Enum attributes
_BLANK, _CAST_HEADER, _BRACKET = Kind.BLANK, Kind.CAST_HEADER, Kind.BRACKET
_TEXT, _SPEECH, _BLOCK, _CAST = State.TEXT, State.SPEECH, State.BLOCK, State.CAST


@dataclass(slots=True)
class Row:
    kind: Kind
    raw: str  # the line with markdown bold marks removed
    s: str  # ... and stripped
    colon_cue: tuple[str, str] | None = None  # `match_cue(raw)`: decides whether a block speech goes on
    data: object = None  # the scene match, the bracket's inside, or the (name, words) of a cue


@dataclass(slots=True)
class Parser:
    out: Emitter
    alone_layout: bool  # most cues stand alone on their line (tiny-shakespeare layout)
    state: State = State.TEXT
    speaker: str = ""
    words: list[str] = field(default_factory=list)
    extension: str = ""  # `KIRK [OC]:`, `JERRY (V.O.):` -> extra.extension of the open speech
    scene_count: int = 0
    act: str | None = None


def classify(raw: str, idx: int, title: int, kagi: bool) -> Row:
    raw = _MARKDOWN_BOLD.sub("", raw)  # "**Name:** words"
    s = raw.strip()
    if not s:
        return Row(Kind.BLANK, raw, s)
    if CAST_HEADER_RE.match(s):
        return Row(Kind.CAST_HEADER, raw, s)
    colon_cue = match_cue(raw)
    sm = SCENE_MARK_RE.match(s)
    if sm and not colon_cue:
        return Row(Kind.SCENE, raw, s, colon_cue, sm)
    inner = _bracketed(s)
    if inner is not None:
        return Row(Kind.BRACKET, raw, s, colon_cue, inner)
    if SCREEN_HEADING_RE.match(s):
        return Row(Kind.HEADING, raw, s, colon_cue)
    cue = colon_cue or (kagi_cue(raw) if kagi else None)
    if cue and idx == title and cue[1].strip():
        return Row(Kind.TITLE, raw, s, colon_cue)
    return Row(Kind.CUE if cue else Kind.PLAIN, raw, s, colon_cue, cue)


def close_speech(p: Parser) -> None:
    """Emit the open speech, cutting directions out of it (`Ross: (mortified) Hi.`, `[to Joey]`, `（笑）`)."""
    if p.state is not _SPEECH and p.state is not _BLOCK:
        return
    p.state = _TEXT
    cue, words = p.speaker, unquote(join_lines(p.words))
    extra = {"extension": p.extension} if p.extension else {}
    pos = 0
    for m in INLINE_DIRECTION_RE.finditer(words):
        before = words[pos : m.start()].strip()
        paren = m.group(0)[0] not in "[{"
        at_edge = not before or before.endswith(SPEECH_END + ("—", "-")) or not words[m.end() :].strip()
        if paren and not (at_edge or not words[:m.start()].strip()):
            continue  # "(for one)" inside a sentence stays in the words
        p.out.say(cue, unquote(words[pos : m.start()]), **extra)
        p.out.act(m.group(0)[1:-1])
        pos = m.end()
    p.out.say(cue, unquote(words[pos:]), **extra)


def on_scene(p: Parser, row: Row) -> None:
    close_speech(p)
    sm = row.data
    p.scene_count += 1
    if sm.group("zh"):
        mark, rest = sm.group("zh"), sm.group("zhrest")
    else:
        mark, rest = f"{sm.group('kw').upper()} {sm.group('num').upper()}", sm.group("rest")
    if mark.startswith("ACT") or mark.endswith("幕"):
        p.act = p.out.unit = mark
    elif (mark.startswith("SCENE") or mark.endswith(("场", "場"))) and p.act:
        p.out.unit = f"{p.act} {mark}"  # "ACT I" then "SCENE 2" -> "ACT I SCENE 2"
    else:
        p.act, p.out.unit = None, mark
    p.out.narrate(rest)


def on_bracket(p: Parser, row: Row) -> None:
    close_speech(p)
    sm = re.match(r"^\s*(?:scene|场景)\s*[:：]\s*(.*)$", row.data, re.IGNORECASE)
    if sm:
        p.scene_count += 1
        p.out.unit = f"scene {p.scene_count}"
        p.out.narrate(sm.group(1))
    else:
        p.out.act(row.data)


def on_heading(p: Parser, row: Row) -> None:
    close_speech(p)  # `INT. CENTRAL PERK - DAY` inside a transcript: a new scene
    p.scene_count += 1
    p.out.unit = f"scene {p.scene_count}"
    p.out.narrate(row.s)


def _voice_mark(p: Parser, words: str) -> str:
    """`NAME (aside): words` / `DRAKE: (OFF) words`: an off-screen voice mark goes to the extension,
    another aside becomes an action line; returns the words after it."""
    p.extension = ""
    lead = re.match(r"^\[([^\]]*)\]\s*", words)
    if lead and EXTENSION_RE.match(lead.group(1)):
        p.extension = lead.group(1).strip()  # off-screen voice: not a stage direction
        return words[lead.end() :]
    if lead:
        p.out.act(lead.group(1))
        return words[lead.end() :]
    lead = re.match(r"^[(\[]([^)\]]*)[)\]]\s*", words)  # `DRAKE: (OFF) Mrs. Hale?` (radio)
    if lead and EXTENSION_RE.match(lead.group(1)):
        p.extension = lead.group(1).strip()
        return words[lead.end() :]
    return words


def on_cue(p: Parser, row: Row) -> None:
    close_speech(p)
    name, words = row.data
    p.out.result.cue_lines += 1
    if name.lower() in NARRATION_NAMES or name.rstrip("0123456789 ") in NARRATION_NAMES:
        p.out.narrate(unquote(words))
        p.out.result.covered_chars += len(name) + len(words)
    elif name.lower() in SOUND_NAMES:
        p.out.act(words)  # `SOUND: DOOR BANGS`, `MUSIC: THEME UP`: a direction
        p.out.result.covered_chars += len(name) + len(words)
    else:
        words = _voice_mark(p, words)
        p.speaker, p.words = name, [words]
        p.state = State.SPEECH if words.strip() else State.BLOCK


def on_plain(p: Parser, row: Row) -> None:
    if p.state is _SPEECH and not p.words[-1].rstrip().endswith(SPEECH_END):
        p.words.append(row.s)  # wrapped speech: the previous line stopped mid-sentence
        return
    close_speech(p)
    p.out.narrate(row.s)


def _continues_block(p: Parser, row: Row) -> bool:
    """Below a cue-only `Name:` line every line is the speech, up to a blank line; when most cues stand
    alone, a speech line that looks like a cue ("Marcius: ...") does not interrupt it either."""
    if p.state is not _BLOCK or row.kind is _BLANK or row.kind is _CAST_HEADER or row.kind is _BRACKET:
        return False
    return not row.colon_cue or (p.alone_layout and bool(row.colon_cue[1].strip()))


HANDLERS = {Kind.SCENE: on_scene, Kind.BRACKET: on_bracket, Kind.HEADING: on_heading, Kind.CUE: on_cue,
            Kind.PLAIN: on_plain, Kind.TITLE: lambda p, row: p.out.narrate(row.s)}


def step(p: Parser, row: Row) -> None:
    if row.kind is _BLANK:
        close_speech(p)
        p.state = _TEXT
    elif p.state is _CAST:
        return
    elif row.kind is _CAST_HEADER:
        close_speech(p)
        p.state = _CAST  # `CAST:` then one name a line, up to a blank line
    elif _continues_block(p, row):
        p.words.append(row.s)
    else:
        HANDLERS[row.kind](p, row)


def parse_colon(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a `Name: words` script into events (resolver unused: names are as written)."""
    lines = strip_line_prefixes(text.split("\n"))
    kagi = sum(1 for ln in lines if kagi_cue(ln)) >= 2
    cues = [c for c in (match_cue(_MARKDOWN_BOLD.sub("", ln)) for ln in lines) if c]
    alone_layout = len(cues) >= 2 and sum(1 for _, w in cues if not w.strip()) >= 0.8 * len(cues)
    # `Faust: Der Tragödie erster Teil` heading a file whose cues stand alone (`FAUST:`): a title
    first = next((i for i, ln in enumerate(lines) if ln.strip()), -1)
    title = first if alone_layout and first + 1 < len(lines) and not lines[first + 1].strip() else -1
    p = Parser(Emitter("colon", unit="1"), alone_layout)
    for idx, raw in enumerate(lines):
        step(p, classify(raw, idx, title, kagi))
    close_speech(p)
    return p.out.result
