"""Split a novel into chapters and paragraphs, keeping character offsets into the text.

Chapter headings recognised on a line of their own: `CHAPTER I`, `Chapter 12`, `Chapter One`, `CHAPTER` with its
number on the next line (a blank line may lie between: `CHAPTER ⏎ 1`), a bare roman numeral (`IV.`) when the text
uses them for several chapters, the parts a book is divided into (`BOOK ONE`, `Book II`, `PART THREE`, `BOOK THE
FIRST`, `VOLUME I`), `第…章`, `第…回`, `第…节`, `第…卷`, `第…部`. A part heading divides the units but ends no
conversation (`conversation_chapters`), and stays a paragraph for the attribution rules. A heading that runs over two
lines is one title with its words on one line (`CHAPTER 1`); `Chapter.head_end` is where it ends. Paragraphs are
blocks separated by blank lines; a text with (almost) no blank lines has one paragraph per non-empty line (common in
Chinese novels and e-book exports) or, broken at a fixed width, one per indent (`text_layout`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
                 "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty")
_ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
# the title on the same line: up to 80 characters, or up to 200 in capitals (`CHAPTER III. RELATES HOW OLIVER TWIST WAS
# VERY NEAR GETTING A PLACE…`, a wrapped title on one line)
_EN_HEAD = re.compile(r"^[ \t]*(?:CHAPTER|Chapter|CHAP\.|Chap\.)[ \t]+([IVXLCDM]+|\d+|[A-Z][a-z]+(?:-[a-z]+)?|[A-Z]+)\b"
                      r"(?:[^\n]{0,80}|[^a-z\n]{0,200})$", re.M)
# `CHAPTER` alone on its line, the number on the next one (after at most one blank line)
_EN_HEAD_BELOW = re.compile(
    r"^[ \t]*(?:CHAPTER|Chapter)\.?[ \t]*\n(?:[ \t]*\n)?[ \t]*((?:[IVXLCDM]+|\d+)\.?|(?i:(?:" + _NUMBER_WORDS
    + r")(?:-(?:" + _NUMBER_WORDS + r"))?))[ \t]*$", re.M)
# the parts of a book: `BOOK ONE`, `Book II`, `PART THREE`, `BOOK THE FIRST`, `VOLUME I`, `Part Two: The Return`
_PART_HEAD = re.compile(
    r"^[ \t]*(?:BOOK|Book|PART|Part|VOLUME|Volume)[ \t]+"
    r"(?:[IVXLC]+\b\.?|\d+\b\.?|(?i:the[ \t]+(?:" + _ORDINALS + r")\b)|"
    r"(?i:(?:" + _NUMBER_WORDS + r"|" + _ORDINALS + r")\b))"
    r"(?:[ \t]*[.:—–-][^\n]{0,60}|[ \t]+[A-Z][^\n]{0,60})?[ \t]*$", re.M)
_ROMAN_HEAD = re.compile(r"^[ \t]*([IVXLC]{1,7})\.?[ \t]*$", re.M)
_ZH_HEAD = re.compile(r"^[ \t\u3000]*(第[〇零一二三四五六七八九十百千两0-9０-９]+[章回节卷部])[^\n]{0,60}$", re.M)


@dataclass
class Chapter:
    number: int          # 1-based order in the text (0 = front matter before the first heading)
    title: str           # the heading as written, on one line ("" for front matter)
    start: int
    end: int
    head_end: int = -1   # where the heading ends (the start of the text after it; `start` for front matter)
    part: bool = False   # a part of the book (`BOOK ONE`, `PART II`), not a chapter

    def __post_init__(self):
        if self.head_end < 0:
            self.head_end = self.start


def _title(head: str) -> str:
    """The heading as written; one that runs over lines, on one line (`CHAPTER ⏎ 1` -> `CHAPTER 1`)."""
    head = head.strip()
    return " ".join(head.split()) if "\n" in head else head


def _heads(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, title, whether it heads a part) of every heading, in order."""
    def found(*patterns: re.Pattern) -> list[tuple[int, int, str]]:
        out = {m.start(): (m.start(), m.end(), _title(m.group(0))) for p in patterns for m in p.finditer(text)}
        return [out[k] for k in sorted(out)]

    heads = found(_ZH_HEAD)
    if heads:
        return [(s, e, t, False) for s, e, t in heads]
    chapters = found(_EN_HEAD, _EN_HEAD_BELOW)
    if not chapters:
        roman = found(_ROMAN_HEAD)
        chapters = roman if len(roman) >= 3 else []
    taken = [(s, e) for s, e, _ in chapters]
    parts = [(s, e, t, True) for s, e, t in found(_PART_HEAD) if not any(a <= s < b for a, b in taken)]
    return sorted([(s, e, t, False) for s, e, t in chapters] + parts)


def split_chapters(text: str) -> list[Chapter]:
    """Chapters in order, covering the whole text (front matter becomes chapter 0 if non-blank)."""
    heads = _heads(text)
    chapters: list[Chapter] = []
    if not heads:
        return [Chapter(1, "", 0, len(text))]
    if text[: heads[0][0]].strip():
        chapters.append(Chapter(0, "", 0, heads[0][0]))
    for i, (pos, head_end, title, part) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        chapters.append(Chapter(i + 1, title, pos, end, head_end, part))
    return chapters


def conversation_chapters(chapters: list[Chapter]) -> list[int]:
    """For each chapter, the chapter whose conversation it goes on: itself, or for a part heading the chapter before
    it. A part heading divides the stories but ends no exchange for the attribution (Daisy Miller, in two parts and
    no chapters, opens its second with the aunt still talking to Winterbourne)."""
    out: list[int] = []
    for i, ch in enumerate(chapters):
        out.append(out[-1] if ch.part and out else i)
    return out


_BLOCK = re.compile(r"(?:[^\n]|\n(?![ \t\u3000]*\n))+")
_LINE = re.compile(r"[^\n]+")


def _width(line: str) -> int:
    """Columns a line takes: a wide (CJK) character two, as a text wrapped at 35 Chinese characters takes 70."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def hard_wrapped(chunk: str) -> bool:
    """Lines broken at a fixed width (Gutenberg's ~70 columns): most lines end near the longest ones. Such a
    text keeps blank lines between paragraphs even where long speeches leave few of them."""
    lens = sorted(_width(m.group(0).rstrip()) for m in _LINE.finditer(chunk) if m.group(0).strip())
    if not lens:
        return False
    p95 = lens[int(0.95 * (len(lens) - 1))]
    return 40 <= p95 <= 100 and sum(1 for n in lens if n >= p95 - 15) >= 0.5 * len(lens)


_INDENTED = re.compile(r"^[ \t\u3000]+\S", re.M)
_INDENT_BREAK = re.compile(r"\n(?=[ \t\u3000]+\S)")


def text_layout(chunk: str, blocks: int | None = None) -> str:
    """How a text parts its paragraphs: `blank` lines between them; a paragraph a `line` (hardly any blank lines,
    lines not broken at a fixed width: some e-book exports); or an `indent` opening each one (hardly any blank lines,
    lines broken at a fixed width, at least one line in 20 indented)."""
    n_lines = chunk.count("\n") + 1
    blocks = sum(1 for _ in _BLOCK.finditer(chunk)) if blocks is None else blocks
    if blocks * 8 >= n_lines or n_lines <= 20:
        return "blank"
    if not hard_wrapped(chunk):
        return "line"
    return "indent" if len(_INDENTED.findall(chunk)) * 20 >= n_lines else "blank"


def _indent_split(chunk: str, s: int, e: int) -> list[tuple[int, int]]:
    """chunk[s:e] cut before every line that opens with an indent."""
    cuts = [m.start() for m in _INDENT_BREAK.finditer(chunk, s, e)]
    return list(zip([s, *cuts], [*cuts, e]))


def split_paragraphs(text: str, start: int = 0, end: int | None = None, layout: str | None = None
                     ) -> list[tuple[int, int]]:
    """(start, end) offsets of the non-blank paragraphs of text[start:end], whitespace trimmed. `layout`: the whole
    text's (`text_layout`), so a short chapter is split as the rest is, whatever its own lines suggest; None: the
    chunk's own layout decides, but a part of a text is never `indent` on its own (indented lines in a chapter of a
    text with blank lines are a letter or verse set off from the narration, not paragraph openings)."""
    end = len(text) if end is None else end
    chunk = text[start:end]
    blocks = [m.span() for m in _BLOCK.finditer(chunk)]
    if layout is None:
        layout = text_layout(chunk, len(blocks))
        if layout == "indent" and (start, end) != (0, len(text)):
            layout = "blank"
    if layout == "line":
        blocks = [m.span() for m in _LINE.finditer(chunk)]
    elif layout == "indent":  # a block runs on until a line opens with an indent
        blocks = [span for s, e in blocks for span in _indent_split(chunk, s, e)]
    out = []
    for s, e in blocks:
        seg = chunk[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((start + s + ls, start + s + rs))
    return out
