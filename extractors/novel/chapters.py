"""Split a novel into chapters and paragraphs, keeping character offsets into the text.

Chapter headings recognised on a line of their own: `CHAPTER I`, `Chapter 12`, `Chapter One`,
a bare roman numeral (`IV.`) when the text uses them for several chapters, `第…章`, `第…回`,
`第…节`. Paragraphs are blocks separated by blank lines; a text with (almost) no blank lines
(common in Chinese novels) has one paragraph per non-empty line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EN_HEAD = re.compile(
    r"^[ \t]*(?:CHAPTER|Chapter|CHAP\.|Chap\.)[ \t]+([IVXLCDM]+|\d+|[A-Z][a-z]+(?:-[a-z]+)?|[A-Z]+)\b[^\n]{0,80}$", re.M)
_ROMAN_HEAD = re.compile(r"^[ \t]*([IVXLC]{1,7})\.?[ \t]*$", re.M)
_ZH_HEAD = re.compile(r"^[ \t\u3000]*(第[〇零一二三四五六七八九十百千两0-9０-９]+[章回节卷])[^\n]{0,60}$", re.M)


@dataclass
class Chapter:
    number: int          # 1-based order in the text (0 = front matter before the first heading)
    title: str           # the heading line as written ("" for front matter)
    start: int
    end: int


def split_chapters(text: str) -> list[Chapter]:
    """Chapters in order, covering the whole text (front matter becomes chapter 0 if non-blank)."""
    heads = [(m.start(), m.group(0).strip()) for m in _ZH_HEAD.finditer(text)]
    if not heads:
        heads = [(m.start(), m.group(0).strip()) for m in _EN_HEAD.finditer(text)]
    if not heads:
        roman = [(m.start(), m.group(0).strip()) for m in _ROMAN_HEAD.finditer(text)]
        if len(roman) >= 3:
            heads = roman
    chapters: list[Chapter] = []
    if not heads:
        return [Chapter(1, "", 0, len(text))]
    if text[: heads[0][0]].strip():
        chapters.append(Chapter(0, "", 0, heads[0][0]))
    for i, (pos, title) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        chapters.append(Chapter(i + 1, title, pos, end))
    return chapters


_BLOCK = re.compile(r"(?:[^\n]|\n(?![ \t\u3000]*\n))+")
_LINE = re.compile(r"[^\n]+")


def hard_wrapped(chunk: str) -> bool:
    """Lines broken at a fixed width (Gutenberg's ~70 characters): most lines end near the longest ones. Such a
    text keeps blank lines between paragraphs even where long speeches leave few of them."""
    lens = sorted(len(m.group(0).rstrip()) for m in _LINE.finditer(chunk) if m.group(0).strip())
    if not lens:
        return False
    p95 = lens[int(0.95 * (len(lens) - 1))]
    return 40 <= p95 <= 100 and sum(1 for n in lens if n >= p95 - 15) >= 0.5 * len(lens)


def split_paragraphs(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the non-blank paragraphs of text[start:end], whitespace trimmed."""
    end = len(text) if end is None else end
    chunk = text[start:end]
    blocks = [m.span() for m in _BLOCK.finditer(chunk)]
    n_lines = chunk.count("\n") + 1
    if len(blocks) * 8 < n_lines and n_lines > 20 and not hard_wrapped(chunk):
        blocks = [m.span() for m in _LINE.finditer(chunk)]  # hardly any blank lines, long lines: a paragraph a line
    out = []
    for s, e in blocks:
        seg = chunk[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((start + s + ls, start + s + rs))
    return out
