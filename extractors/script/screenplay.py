"""Screenplays (film/TV, plain text or Fountain-like): headings, action, CHARACTER cues, dialogue.

- Scene headings (`INT.`, `EXT.`, `INT./EXT.`, `I/E`, `EST.`, optionally numbered) are `narration`
  lines and start a new unit, numbered "1", "2"... (the heading itself is in `extra.heading`;
  material before the first heading is unit "0");
- a CHARACTER cue is a line in capitals (`McCLANE` too) on its own (any indent), followed directly by a
  non-blank line; extensions `(V.O.)`, `(O.S.)`, `(CONT'D)`... and the dual-dialogue `^` are
  stripped from the name and kept in `extra.extension`; Fountain's `@Name` forces a cue;
- `(parentheticals)` under a cue are kept with the speech in `extra.parenthetical` (they do
  not become lines of their own, so a speech stays one line);
- the dialogue runs until the next blank line; wrapped lines are joined with spaces;
- dual dialogue printed side by side (`ELSIE        TOBY` over two columns of words) gives two
  lines, left column first, each with `extra.dual`;
- a speech cut by a page break (`(MORE)`, maybe a page number or `CONTINUED:`, then the same
  `NAME (CONT'D)`) is one line: the words on both pages are joined;
- any other paragraph is an `action` line; transitions (`CUT TO:`, `FADE IN:`, `DISSOLVE TO:`,
  `FADE OUT.`), `(MORE)`, `(CONTINUED)`, `CONTINUED:` and page numbers are dropped, and so is PDF-to-text page furniture
  (`Page 12`, `- 12 -`, revision-date headers, any header/footer repeated with only its page number changing);
- a title page (everything before `FADE IN:` or the first heading) is skipped; Fountain notes
  `[[...]]`, boneyard `/* ... */` and emphasis marks (`*`, `**`, `_`) are removed.
"""

from __future__ import annotations

import re

from ..characters import AliasResolver
from .base import Emitter, ParseResult, clean, join_lines

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


def parse_screenplay(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a screenplay; see the module docstring."""
    lines = strip_fountain_markup(text).split("\n")
    headers = running_headers(lines)
    lines = join_page_breaks(["" if ln.strip() in headers else ln for ln in lines])
    start = 0
    for i, ln in enumerate(lines):
        s = ln.strip()
        if HEADING_RE.match(s) or re.match(r"^FADE IN:?$", s):
            start = i
            break
    out = Emitter("screenplay", unit="0")
    scenes = 0
    i, n = start, len(lines)
    while i < n:
        s = lines[i].strip()
        if not s or TRANSITION_RE.match(s) or _PAGE_FURNITURE_RE.match(s):
            i += 1
            continue
        if HEADING_RE.match(s):
            scenes += 1
            out.unit = str(scenes)
            heading = _HEADING_NUM_TAIL.sub("", re.sub(r"^\d+[A-Z]?[.)]?\s+", "", s))
            out.narrate(heading, heading=heading)
            out.result.covered_chars += len(s)
            i += 1
            continue
        dual = _dual_cue(s)
        if dual and i + 1 < n and lines[i + 1].strip():
            i, words2, parens2 = _dual_speeches(lines, i + 1)
            for (name, ext), said, paren in zip(dual, words2, parens2):
                extra = {"dual": True}
                if ext:
                    extra["extension"] = ext
                if paren:
                    extra["parenthetical"] = "; ".join(paren)
                if said:
                    out.result.cue_lines += 1
                    out.say(name, join_lines(said), **extra)
            continue
        cue = _cue(s)
        nxt = lines[i + 1].strip() if i + 1 < n else ""
        if cue and nxt and not TRANSITION_RE.match(nxt):
            name, ext = cue
            i += 1
            words: list[str] = []
            parens: list[str] = []
            while i < n and lines[i].strip():
                t = lines[i].strip()
                i += 1
                if TRANSITION_RE.match(t) or _PAGE_FURNITURE_RE.match(t):
                    continue
                if t.startswith("("):
                    buf = t
                    while ")" not in buf and i < n and lines[i].strip():
                        buf += " " + lines[i].strip()
                        i += 1
                    close = buf.find(")")
                    parens.append(clean(buf[1:close] if close >= 0 else buf[1:]))
                    rest = buf[close + 1 :].strip() if close >= 0 else ""
                    if rest:
                        words.append(rest)
                    continue
                words.append(t)
            extra = {}
            if ext:
                extra["extension"] = ext
            if parens:
                extra["parenthetical"] = "; ".join(p for p in parens if p)
            said = join_lines(words)
            if said:
                out.result.cue_lines += 1
                out.say(name, said, **extra)
            elif parens:
                out.act(f"{name} ({extra['parenthetical']})")
            continue
        # an action paragraph
        para: list[str] = []
        while i < n and lines[i].strip():
            t = lines[i].strip()
            if para and (HEADING_RE.match(t) or (_cue(t) and i + 1 < n and lines[i + 1].strip())):
                break
            if not (TRANSITION_RE.match(t) or _PAGE_FURNITURE_RE.match(t)):
                para.append(t)
            i += 1
        action = join_lines(para)
        out.act(action)
        if scenes:
            out.result.covered_chars += len(action) // 2
    return out.result
