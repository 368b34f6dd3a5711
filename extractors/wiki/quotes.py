"""Quote pages as text: raw wikitext, text copied from a browser, or HTML rewritten by `html.py`.

A state machine: lines are classified (`page_lines.ItemKind`), then one handler per kind runs over the `State`
(IDLE, EXCHANGE, QUOTE) kept in the `Walk` dataclass (quote_walk.py); a text line goes through `LINE_RULES` in
order. Units are heading paths, so the segmenter never joins two scenes. Forms read: docs/wiki.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..speaker_cues import NARRATION_NAMES
from ..text import clean, join_lines, unquote
from .attribution import parse_attribution, split_attribution
from .directions import owner_heading, split_direction
from .markup import _no_marks, strip_wikitext
from .owners import _finish
from .page_lines import (ATTRIB_RE, DIRECTION_LINE_RE, HYPHEN_ATTRIB_RE, LEADING_DIRECTION_RE, TAIL_INLINE_RE, ItemKind,
                         _classify, _is_cue, _Item, _mark_soft_headings, _quoted, inline_quote)
from .quote_walk import _PARA_BREAK, State, Walk, attribution_next, closes_ahead, cue_next, flush, pend, quote_open
from .records import Quote

__all__ = ["parse_quote_text", "Quote", "strip_wikitext", "unquote", "split_attribution", "parse_attribution"]

SITE_TITLE_RE = re.compile(r"\A\s*[^\n]{1,80}?\s[-—–|]\s*(?:Wikiquote|Wikipedia|Wikiquote,[^\n]*|Wikipédia[^\n]*|"
                           r"[^\n]{0,40}\bWiki(?:\s*\|\s*Fandom)?|Fandom|维基语录|維基語錄|萌娘百科[^\n]*)\s*$", re.M)


# -- handlers per item kind -------------------------------------------------------------------------------------------

def on_break(w: Walk, idx: int, it: _Item) -> None:
    """A blank line or a separator."""
    if it.kind is ItemKind.BLANK and w.state is State.QUOTE and quote_open(w) and closes_ahead(w, idx):
        w.pending.append(_PARA_BREAK)  # a quote over several paragraphs: its closing mark is ahead
        return
    if not (w.state is State.QUOTE and attribution_next(w, idx)):
        flush(w)
    if it.kind is ItemKind.SEP or w.tight and w.spoken:  # (a block of only directions sets the next exchange's scene)
        w.end_exchange()


def on_heading(w: Walk, idx: int, it: _Item) -> None:
    flush(w)
    w.end_exchange()
    if not it.text:
        return
    if it.level == 0:  # a soft heading (copied page): consecutive ones nest
        lvl = (w.path[-1][0] + 1) if (w.soft_run and w.path) else 2
        w.soft_run = True
    else:
        lvl = it.level or 2
        w.soft_run = False
    while w.path and w.path[-1][0] >= lvl:
        w.path.pop()
    w.path.append((lvl, it.text))


def on_table(w: Walk, idx: int, it: _Item) -> None:
    w.soft_run = False
    flush(w)
    w.end_exchange()
    b = w.new_block()
    for n, q in enumerate(w.tables.get(it.text, [])):
        if q.own_block and n:
            b = w.new_block()
        w.add(Quote(q.kind, q.text, w.unit, q.name, dict(q.extra)), b)


@dataclass(slots=True)
class TextLine:
    """A text line being handled: the item, its text without marks (`plain`), its index."""
    it: _Item
    idx: int
    plain: str


def continues_item(w: Walk, ln: TextLine) -> bool:
    """`*:` continues the `*` item above it (wikitext)."""
    marks = ln.it.marks
    if w.state is State.QUOTE and marks.endswith(":") and len(marks) > 1 and marks[:-1] == w.pending_marks:
        pend(w, ln.it.text)
        return True
    return False


def nested_attribution(w: Walk, ln: TextLine) -> bool:
    """A nested item under a pending quote: its attribution or source."""
    if w.state is State.QUOTE and ln.it.depth > w.pending_depth and w.pending_depth > 0:
        flush(w, parse_attribution(ln.it.text, w.is_character))
        return True
    return False


def tail_attribution(w: Walk, ln: TextLine) -> bool:
    """The last line of a quote over several lines, with its attribution: 'And all ... players." — Jaques'."""
    if not (w.state is State.QUOTE and ln.it.depth == w.pending_depth and quote_open(w)):
        return False
    m = TAIL_INLINE_RE.match(ln.plain)
    if m:
        att = parse_attribution(m.group("who"), w.is_character)
        if att.name or att.narrating:
            pend(w, m.group("quote"))
            flush(w, att)
            w.end_exchange()
            return True
    return False


def one_line_quote(w: Walk, ln: TextLine) -> bool:
    """'"quote" — Name' and the other one-line forms (`inline_quote`)."""
    iq = inline_quote(ln.plain, ln.it.text)
    if iq:
        att = parse_attribution(iq["who"], w.is_character)
        if att.name or att.narrating:
            flush(w)
            w.end_exchange()
            pend(w, iq["quote"])
            flush(w, att)
            return True
    return False


def dash_attribution(w: Walk, ln: TextLine) -> bool:
    """'-- Character, "Episode"' under a pending quote; under `Name: "words"` lines it closes that exchange."""
    dash = ATTRIB_RE.match(ln.plain)
    m = dash or (HYPHEN_ATTRIB_RE.match(ln.plain) if w.state is State.QUOTE else None)
    if m and w.state is State.QUOTE:
        att = parse_attribution(m.group("who"), w.is_character)
        if att.name or dash:
            flush(w, att)
            w.end_exchange()
            return True
    if dash:  # '―Alice and the Cat' under `Name: "words"` lines closes that exchange
        w.end_exchange()
        return True
    return False


def cue_line(w: Walk, ln: TextLine) -> bool:
    """`Name: words` (a speech), `Name: [direction]` (an action), `旁白: words` (narration)."""
    cue = _is_cue(ln.it.text)
    if not cue:
        return False
    flush(w)
    name, words = cue
    w.open_exchange()
    w.spoken = True
    extra: dict = {}
    d = LEADING_DIRECTION_RE.match(words)
    if d:
        extra["direction"] = d.group(1)[1:-1].strip()
        words = words[d.end():]
    words = clean(unquote(words))
    if name.lower() in NARRATION_NAMES:
        if words:
            w.add(Quote("narration", words, w.unit, None, extra))
        w.last_dialogue = None
    elif words:
        w.last_dialogue = w.add(Quote("dialogue", words, w.unit, name, extra))
    elif extra.get("direction"):
        w.add(Quote("action", f"{name} [{extra['direction']}]", w.unit, None, {}))
        w.last_dialogue = None
    return True


def direction_line(w: Walk, ln: TextLine) -> bool:
    """`[stage direction]` (or a whole line in italics, a transcript's direction): an action line."""
    s = ln.it.text
    if not ln.it.depth and re.fullmatch(r"''(?!')[^']+(?:'(?!')[^']*)*''[.!?]?", s.strip()) and not _quoted(ln.plain):
        ln.plain = "[" + ln.plain + "]"
    if not DIRECTION_LINE_RE.match(ln.plain):
        return False
    flush(w)
    if w.state is not State.EXCHANGE:  # a direction opens the exchange that follows it, if one does
        if not cue_next(w, ln.idx):
            return True
        w.open_exchange()
    w.add(Quote("action", ln.plain[1:-1].strip(), w.unit, None, {}))
    w.last_dialogue = None
    return True


def wrapped_speech(w: Walk, ln: TextLine) -> bool:
    """A plain line right after a `Name: words` line of the same level continues the speech."""
    it = ln.it
    continues = not it.depth or it.marks.endswith(":") and len(it.marks) > 1
    if (w.last_dialogue is not None and continues and w.state is not State.QUOTE and ln.idx > 0
            and w.items[ln.idx - 1].kind is ItemKind.LINE and not _quoted(ln.plain)):
        w.last_dialogue.quote.text = join_lines([w.last_dialogue.quote.text, ln.plain])
        return True
    return False


LINE_RULES = (continues_item, nested_attribution, tail_attribution, one_line_quote, dash_attribution, cue_line,
              direction_line, wrapped_speech)


def _owner_section(w: Walk) -> bool:
    """Under 'Example lines said by X:' every line is a line of its own (a copied page without bullets)."""
    return bool(w.path) and owner_heading(w.path[-1][1]) is not None and bool(re.search(r"[.!?…。！？」』\"”]$", w.pending[-1]))


def on_line(w: Walk, idx: int, it: _Item) -> None:
    w.soft_run = False
    ln = TextLine(it, idx, _no_marks(it.text))
    if any(rule(w, ln) for rule in LINE_RULES):
        return
    if w.state is State.QUOTE and (it.depth != w.pending_depth or (it.depth or _owner_section(w)) and not quote_open(w)):
        flush(w)  # another list item is another quote (`*:` and <br> continue one: `continues_item`)
    if w.state is not State.QUOTE:
        w.end_exchange()
        direction, words, narrating = split_direction(it.text)
        if direction and words:  # '(annoyed) Hey…', '*Narrating* Okay…': the direction is not spoken
            w.pending_extra = {"direction": direction, **({"narrating": True} if narrating else {})}
            it = _Item(it.kind, words, it.depth, it.level, it.marks)
    pend(w, it.text)  # a quote line: it waits for its end or attribution
    w.pending_depth, w.pending_marks = it.depth, it.marks


HANDLERS = {ItemKind.BLANK: on_break, ItemKind.SEP: on_break, ItemKind.HEADING: on_heading, ItemKind.TABLE: on_table,
            ItemKind.LINE: on_line}


def _items(text: str) -> tuple[list[_Item], bool]:
    """The page's lines, classified; and whether exchanges are runs of consecutive cue lines."""
    wikitext_headings = bool(re.search(r"^\s*==[^=\n]+==\s*$", text, re.M))
    items = [_classify(raw, wikitext_headings) for raw in text.split("\n")]
    # a page that marks exchanges with ----/<hr> keeps an exchange together across blank lines and <dl>
    # edges (MediaWiki renders a `:Name: x` line, a blank line and a `:Name: y` line as two <dl>s)
    ruled = any(it.kind is ItemKind.SEP for it in items)
    for it in items:
        if it.kind is ItemKind.SOFTSEP:
            it.kind = ItemKind.BLANK if ruled else ItemKind.SEP
    _mark_soft_headings(items)
    cue_lines = [i for i, it in enumerate(items) if it.kind is ItemKind.LINE and _is_cue(it.text)]
    tight = any(items[i + 1].kind is ItemKind.LINE and _is_cue(items[i + 1].text) for i in cue_lines if i + 1 < len(items))
    return items, tight and not ruled


def parse_quote_text(
    text: str,
    page_character: str | None = None,
    unit: str = "1",
    tables: dict[str, list[Quote]] | None = None,
    is_character: Callable[[str], bool] | None = None,
    page_heading: str | None = None,
) -> list[Quote]:
    """Parse the text of a quote page; `page_character` owns unattributed quoted lines.

    `page_heading` (the page's `<h1>`) owns them instead when no page character is given and it
    names someone who speaks elsewhere on the page (`Sherlock Holmes` when `Holmes to Watson` is
    an attribution there).

    `tables` maps `\\x00T<n>` marker lines to quotes already read from HTML tables (one block
    each); `is_character(name)` says whether a name is a configured character (accepted as a
    speaker even when it does not look like one, and as the owner of a section named after it).
    """
    text = strip_wikitext(text)
    # a copied page opens with the browser's title: 'Cyrano de Bergerac — Wikiquote, le recueil de citations libre'
    text = SITE_TITLE_RE.sub("", text, count=1)
    items, tight = _items(text)
    w = Walk(items, unit, tables or {}, is_character, tight)
    for idx, it in enumerate(items):
        HANDLERS[it.kind](w, idx, it)
    flush(w)
    return _finish(w.out, unit, page_character, is_character, page_heading)
