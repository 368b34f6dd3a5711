"""Screenplays (film/TV, plain text or Fountain-like): headings, action, CHARACTER cues, dialogue.

A state machine over blocks: `classify` names the `Kind` of the line that opens a block, its handler reads the
block; the `Screen` dataclass keeps the position, the scene count and the `State`. A speech (with its
parentheticals, across a page break) is one line. The layouts read: docs/script.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..characters import AliasResolver
from ..text import clean, join_lines
from .base import Emitter, ParseResult

HEADING_RE = re.compile(r"^(?:\d+[A-Z]?[.)]?\s+)?(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I\s*/\s*E|INT|EXT|EST|INTERIOR|EXTERIOR)[.\s]")
TRANSITION_RE = re.compile(
    r"^(?:>\s*)?(?:(?:[A-Z][A-Z .'’\-]*\s)?TO:|FADE IN:?|FADE OUT\.?|FADE TO BLACK\.?|CUT TO BLACK\.?|THE END\.?|"
    r"END CREDITS\.?|BACK TO (?:SCENE|PRESENT)\.?|CONTINUED:?|\(CONTINUED\)|\(MORE\)|\d+\.?|\(\d+\)|[A-Z ]*CUT:)$"
)
CUE_RE = re.compile(r"^(?P<name>[A-Z][A-Za-z0-9 .'’\-&#]*?)\s*(?P<ext>(?:\([^)]*\)\s*)*)\^?$")
FORCED_CUE_RE = re.compile(r"^@(?P<name>[^\s(][^(]*?)\s*(?P<ext>(?:\([^)]*\)\s*)*)\^?$")
_HEADING_NUM_TAIL = re.compile(r"\s+\d+[A-Z]?\.?$")


def _cue(s: str) -> tuple[str, str] | None:
    m = FORCED_CUE_RE.match(s)
    if not m:
        m = CUE_RE.match(s)
        if not m:
            return None
        name = m.group("name").strip()
        letters = [ch for ch in name if ch.isalpha()]
        if (
            len(letters) < 2
            or sum(ch.isupper() for ch in letters) < 0.75 * len(letters)  # "McCLANE" yes, "Tom" no
            or len(name) > 35
            or len(name.split()) > 5
            or name.endswith((".", ",", "-", "!", "?", ":"))
            or HEADING_RE.match(s)
            or TRANSITION_RE.match(s)
        ):
            return None
    ext = clean(m.group("ext").replace("(", " ").replace(")", " "))
    return clean(m.group("name")), ext


_COLUMNS_RE = re.compile(r"\s{4,}")


def _dual_cue(s: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """`ELSIE                    TOBY`: two cues side by side (dual dialogue printed in two columns)."""
    parts = _COLUMNS_RE.split(s.strip())
    if len(parts) != 2:
        return None
    a, b = _cue(parts[0]), _cue(parts[1])
    return (a, b) if a and b else None


def _dual_speeches(lines: list[str], i: int) -> tuple[int, list[list[str]], list[list[str]]]:
    """Read the two columns below a dual cue (from line i to the blank line): words and parentheticals."""
    words: list[list[str]] = [[], []]
    parens: list[list[str]] = [[], []]
    split_col = None
    while i < len(lines) and lines[i].strip():
        raw = lines[i].rstrip()
        i += 1
        stripped = raw.lstrip()
        indent = len(raw) - len(stripped)
        parts = _COLUMNS_RE.split(stripped, maxsplit=1)
        if len(parts) == 2:
            split_col = raw.index(parts[1], indent + len(parts[0]))
            cols = parts
        elif split_col is not None and indent >= split_col - 2:
            cols = ["", parts[0]]
        else:
            cols = [parts[0], ""]
        for side, t in enumerate(cols):
            if t.startswith("(") and t.endswith(")"):
                parens[side].append(t[1:-1].strip())
            elif t:
                words[side].append(t)
    return i, words, parens


_MORE_RE = re.compile(r"^\(\s*MORE\s*\)$")
_PAGE_FURNITURE_RE = re.compile(
    r"^(?:\d+[A-Z]?\.?|\(\d+\)|CONTINUED:?(?:\s*\(\d+\))?|\(CONTINUED\)|\d+[A-Z]?\s+CONTINUED:?(?:\s*\(\d+\))?\s*\d*[A-Z]?"
    # PDF-to-text running headers and footers: `Page 12`, `Page 3 of 110`, `- 12 -`, `"TITLE" - Rev. 3/4/99    12.`,
    # `BLUE REVISIONS 3/4/99`, `(c) 1999 ... All rights reserved`
    r"|[Pp]age\s+\d+(?:\s+of\s+\d+)?\.?|-\s*\d+\s*-|.*\b(?:Rev\.|REV\.|[Rr]evised|REVISED|[Rr]evisions?|REVISIONS?|[Dd]raft|DRAFT)"
    r"\s*:?\s*\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b.*|.*\bAll [Rr]ights [Rr]eserved\.?)$"
)
# a running header: the same text with only its page number changing, on 2+ pages
_NUMBERED_EDGE_RE = re.compile(r"^(?:(?P<a>.*\S)\s{3,}\d+[A-Z]?\.?|\d+[A-Z]?\.?\s{3,}(?P<b>.*\S))$")


def running_headers(lines: list[str]) -> set[str]:
    """Stripped lines that are a page header/footer: text + page number recurring with the number changing."""
    seen: dict[str, list[str]] = {}
    for ln in lines:
        s = ln.strip()
        m = _NUMBERED_EDGE_RE.match(s)
        if m and not HEADING_RE.match(s):
            seen.setdefault(re.sub(r"\d+", "#", m.group("a") or m.group("b")), []).append(s)
    return {s for group in seen.values() if len(set(group)) >= 2 for s in group}


def join_page_breaks(lines: list[str]) -> list[str]:
    """A speech cut by a page break — `(MORE)`, page furniture, then `OWEN (CONT'D)` — becomes one block:
    the lines from `(MORE)` to the repeated cue are dropped so the words join up."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if _MORE_RE.match(lines[i].strip()):
            j = i + 1
            while j < n and (not lines[j].strip() or _PAGE_FURNITURE_RE.match(lines[j].strip())):
                j += 1
            cue = _cue(lines[j].strip()) if j < n else None
            k = len(out)  # the speech block's first line is its cue
            while k > 0 and out[k - 1].strip():
                k -= 1
            speaker = _cue(out[k].strip()) if k < len(out) else None
            if cue and speaker and cue[0] == speaker[0]:
                i = j + 1  # skip (MORE) ... OWEN (CONT'D): the speech goes on
                continue
            i += 1  # a stray (MORE): drop it
            continue
        out.append(lines[i])
        i += 1
    return out


_FOUNTAIN_NOTE_RE = re.compile(r"\[\[.*?\]\]|/\*.*?\*/", re.DOTALL)
_FOUNTAIN_EMPHASIS_RE = re.compile(r"(\*{1,3}|_)(?=\S)(.+?)(?<=\S)\1")


def strip_fountain_markup(text: str) -> str:
    """Fountain notes `[[...]]` and boneyard `/* ... */` go; `*italic*`, `**bold**`, `_underline_` lose their marks."""
    text = _FOUNTAIN_NOTE_RE.sub("", text)
    return _FOUNTAIN_EMPHASIS_RE.sub(lambda m: m.group(2), text)


# -- the parser: classify the line that opens a block, then one handler per kind -----------------------------------

class Kind(Enum):
    SKIP = "skip"  # a blank line, a transition (`CUT TO:`) or page furniture
    HEADING = "heading"  # `INT. HOUSE - DAY`: a new scene
    DUAL_CUE = "dual cue"  # two cues side by side over two columns of speech
    CUE = "cue"  # a CHARACTER cue over its speech
    ACTION = "action"  # any other paragraph


class State(Enum):
    BEFORE_SCENE = "before scene"  # material before the first heading: unit "0"
    IN_SCENE = "in scene"  # after a heading: action paragraphs count towards the format score


@dataclass(slots=True)
class Screen:
    lines: list[str]
    out: Emitter
    i: int = 0  # the next line to read
    scenes: int = 0
    state: State = State.BEFORE_SCENE  # (the title page, before `FADE IN:` or a heading, is skipped)

    def more(self) -> bool:
        """Is there a non-blank line at `i`?"""
        return self.i < len(self.lines) and bool(self.lines[self.i].strip())


def classify(lines: list[str], i: int) -> Kind:
    s = lines[i].strip()
    if not s or TRANSITION_RE.match(s) or _PAGE_FURNITURE_RE.match(s):
        return Kind.SKIP
    if HEADING_RE.match(s):
        return Kind.HEADING
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if _dual_cue(s) and nxt:
        return Kind.DUAL_CUE
    if _cue(s) and nxt and not TRANSITION_RE.match(nxt):
        return Kind.CUE
    return Kind.ACTION


def on_skip(sc: Screen) -> None:
    sc.i += 1


def on_heading(sc: Screen) -> None:
    s = sc.lines[sc.i].strip()
    sc.i += 1
    sc.scenes += 1
    sc.state = State.IN_SCENE
    sc.out.unit = str(sc.scenes)
    heading = _HEADING_NUM_TAIL.sub("", re.sub(r"^\d+[A-Z]?[.)]?\s+", "", s))
    sc.out.narrate(heading, heading=heading)
    sc.out.result.covered_chars += len(s)


def _speech_extra(ext: str, parens: list[str], **extra) -> dict:
    if ext:
        extra["extension"] = ext
    if parens:  # a dual column keeps an empty `()`, a single speech drops it
        extra["parenthetical"] = "; ".join(parens if extra.get("dual") else (p for p in parens if p))
    return extra


def on_dual_cue(sc: Screen) -> None:
    dual = _dual_cue(sc.lines[sc.i].strip())
    sc.i, words2, parens2 = _dual_speeches(sc.lines, sc.i + 1)
    for (name, ext), said, paren in zip(dual, words2, parens2):
        extra = _speech_extra(ext, paren, dual=True)
        if said:
            sc.out.result.cue_lines += 1
            sc.out.say(name, join_lines(said), **extra)


def _parenthetical(sc: Screen, first: str) -> tuple[str, str]:
    """`(beat)` under a cue, maybe wrapped over lines: (its words, any speech after its `)`)."""
    buf = first
    while ")" not in buf and sc.more():
        buf += " " + sc.lines[sc.i].strip()
        sc.i += 1
    close = buf.find(")")
    inside = clean(buf[1:close] if close >= 0 else buf[1:])
    return inside, buf[close + 1 :].strip() if close >= 0 else ""


def on_cue(sc: Screen) -> None:
    name, ext = _cue(sc.lines[sc.i].strip())
    sc.i += 1
    words: list[str] = []
    parens: list[str] = []
    while sc.more():
        t = sc.lines[sc.i].strip()
        sc.i += 1
        if TRANSITION_RE.match(t) or _PAGE_FURNITURE_RE.match(t):
            continue
        if t.startswith("("):
            inside, rest = _parenthetical(sc, t)
            parens.append(inside)
            if rest:
                words.append(rest)
            continue
        words.append(t)
    extra = _speech_extra(ext, parens)
    said = join_lines(words)
    if said:
        sc.out.result.cue_lines += 1
        sc.out.say(name, said, **extra)
    elif parens:
        sc.out.act(f"{name} ({extra['parenthetical']})")


def on_action(sc: Screen) -> None:
    """An action paragraph, up to a blank line, a heading or a cue."""
    lines, n = sc.lines, len(sc.lines)
    para: list[str] = []
    while sc.more():
        t = lines[sc.i].strip()
        if para and (HEADING_RE.match(t) or (_cue(t) and sc.i + 1 < n and lines[sc.i + 1].strip())):
            break
        if not (TRANSITION_RE.match(t) or _PAGE_FURNITURE_RE.match(t)):
            para.append(t)
        sc.i += 1
    action = join_lines(para)
    sc.out.act(action)
    if sc.state is State.IN_SCENE:
        sc.out.result.covered_chars += len(action) // 2


HANDLERS = {Kind.SKIP: on_skip, Kind.HEADING: on_heading, Kind.DUAL_CUE: on_dual_cue, Kind.CUE: on_cue,
            Kind.ACTION: on_action}


def _title_page_end(lines: list[str]) -> int:
    """The first line after the title page: `FADE IN:` or the first heading (0 when there is neither)."""
    for i, ln in enumerate(lines):
        s = ln.strip()
        if HEADING_RE.match(s) or re.match(r"^FADE IN:?$", s):
            return i
    return 0


def parse_screenplay(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a screenplay; see the module docstring."""
    lines = strip_fountain_markup(text).split("\n")
    headers = running_headers(lines)
    lines = join_page_breaks(["" if ln.strip() in headers else ln for ln in lines])
    sc = Screen(lines, Emitter("screenplay", unit="0"), i=_title_page_end(lines))
    while sc.i < len(lines):
        HANDLERS[classify(lines, sc.i)](sc)
    return sc.out.result
