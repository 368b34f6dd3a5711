"""Solo stories: the character's lines that answer no one, as stories of their own kind.

Run after the exchange pass of a unit (`segment.Segmenter.run`); each solo story is its occasion as `旁白:` lines,
then a run of the character's lines, and ends with one of them. The method and `segment.solo`: docs/wiki.md."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from extractors.records import Line

from .stories import NARRATOR, StoryBuffer, StoryLine
from .tokens import count_tokens

if TYPE_CHECKING:  # pragma: no cover
    from .segment import Segmenter

_BLOCK_NO = re.compile(r"\s*#\d+$")
_OCCASION_KEYS = ("episode", "source", "context")
_LIST_HEADING = re.compile(r"\b(?:quotes?|quotations|lines|voice[\s-]*(?:lines?|overs?)|sayings|catchphrases|dialogues?)\b"
                           r"|台词|台詞|语录|語錄|语音|語音|名言|セリフ", re.I)


def narrating(line: Line) -> bool:
    """Is the line the speaker's narration (not speech to someone)?"""
    return bool(line.extra and line.extra.get("narrating"))


def _own(seg: "Segmenter", it: StoryLine) -> bool:
    ln = it.line
    return ln.kind == "dialogue" and ln.speaker == seg.R and len(ln.text.strip()) >= seg.p.min_reply_chars


def _occasion_text(ln: Line) -> str | None:
    """What the source says about when the line was said: its episode, source or context, else the unit."""
    extra = ln.extra or {}
    parts = [str(extra[k]).strip() for k in _OCCASION_KEYS if isinstance(extra.get(k), str) and extra[k].strip()]
    if not parts:  # the unit's headings, less a page's list headings ('Quotes', 'Example lines said by Kyon')
        heads = [h.strip() for h in _BLOCK_NO.sub("", ln.unit or "").split(" / ")]
        parts = [h for h in heads if h and not h.isdigit() and not _LIST_HEADING.search(h) and h != ln.name]
        parts = [" / ".join(parts)] if parts else []
    return "; ".join(dict.fromkeys(parts)) or None


def _direction_text(seg: "Segmenter", ln: Line) -> str | None:
    extra = ln.extra or {}
    d = extra.get("direction")
    d = d.strip().strip("()[]（）*_'").strip() if isinstance(d, str) else ""
    if not d and narrating(ln):
        d = "narrating"
    if not d:
        return None
    return f"{seg.resolver.display(seg.R, fallback=ln.name)}, {d[0].lower() + d[1:] if d[1:2].islower() else d}"


def _narration_item(text: str, at: Line) -> StoryLine:
    line = Line(work=at.work, source=at.source, unit=at.unit, index=at.index, kind="narration", text=text)
    rendered = f"{NARRATOR}:{text}"
    return StoryLine(line, rendered, count_tokens(rendered) + 1, None)


def solo_stories(seg: "Segmenter", items: list[StoryLine], covered: set[int]) -> Iterator[list[StoryLine]]:
    """The solo stories of one unit: runs of R's lines that no exchange story holds, occasion first."""
    p = seg.p
    buf = StoryBuffer()
    context: list[StoryLine] = []  # narration/action since the last dialogue line

    def close() -> Iterator[list[StoryLine]]:
        if buf.items:
            yield buf.clear()

    for it in items:
        if it.line.kind != "dialogue":
            context = (context + [it])[-max(p.leading_context, 0):] if p.leading_context else []
            continue
        if not _own(seg, it) or id(it) in covered:
            yield from close()
            context = []
            continue
        lead = [c for c in context if id(c) not in covered]
        if not buf.items and not lead:
            occ = _occasion_text(it.line)
            lead = [_narration_item(occ, it.line)] if occ else []
        d = _direction_text(seg, it.line)
        add = lead + ([_narration_item(d, it.line)] if d else []) + [it]
        if buf.items and not _fits(buf, add, p):
            yield from close()
            if not lead:
                occ = _occasion_text(it.line)
                add = ([_narration_item(occ, it.line)] if occ else []) + add
        while add[:-1] and not _fits(buf, add, p):  # the occasion gives way before the line does
            add.pop(0)
        for a in add:
            buf.push(a)
        context = []
    yield from close()


def _fits(buf, add: list[StoryLine], p) -> bool:
    narration = sum(a.who is None for a in add)
    return (buf.tokens + sum(a.tokens for a in add) <= p.max_tokens
            and buf.narration + narration <= p.max_narration)
