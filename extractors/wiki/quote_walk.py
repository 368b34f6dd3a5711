"""The state of the wiki quote parser (`quotes.py`): the `State` enum, the `Walk` dataclass that holds
everything the walk over a page's lines remembers, emitting a pending quote (`flush`), and the
look-ahead questions a handler asks about the lines below (`attribution_next`, `closes_ahead`...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from ..text import CLOSE_QUOTES as _CLOSE
from ..text import CLOSED_QUOTE_END_RE, QUOTE_PAIRS, clean, join_lines, unquote
from .attribution import Attribution
from .markup import _no_marks
from .page_lines import ATTRIB_RE, DIRECTION_LINE_RE, ItemKind, _is_cue, _Item, _quoted, inline_quote
from .records import Placed as _Out
from .records import Quote

_PARA_BREAK = "\x02"  # a paragraph break inside a pending quote


def _unquote_paragraphs(paras: list[str]) -> str:
    """A quote over several paragraphs: one pair of marks around all of them, or (the English
    convention) an opening mark on every paragraph and a closing one on the last."""
    whole = unquote(" ".join(paras))
    if whole != " ".join(paras).strip() or len(paras) == 1:
        return whole
    out = []
    for p in paras:
        u = unquote(p)
        if u == p.strip():
            if p[:1] in QUOTE_PAIRS and sum(p.count(c) for c in set(p[0]) | set(QUOTE_PAIRS[p[0]])) == 1:
                u = p[1:].strip()
            elif p[-1:] in _CLOSE and sum(p.count(c) for c in p[-1]) == 1:
                u = p[:-1].strip()
        out.append(u)
    return " ".join(out)




class State(Enum):
    IDLE = "idle"  # between blocks
    EXCHANGE = "exchange"  # a dialogue block is open (`Name: words` lines and directions)
    QUOTE = "quote"  # quote lines are pending, waiting for their end or attribution


@dataclass(slots=True)
class Walk:
    items: list[_Item]
    unit: str
    tables: dict[str, list[Quote]]
    is_character: Callable[[str], bool] | None
    tight: bool  # exchanges are runs of consecutive `Name: words` lines: a blank line ends one
    state: State = State.IDLE
    out: list[_Out] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)  # the open headings: (level, text)
    soft_run: bool = False  # the last item was a soft heading
    block: int = 0
    spoken: bool = False  # the open exchange has a `Name: words` line
    last_dialogue: _Out | None = None  # its last speech (a wrapped line continues it)
    pending: list[str] = field(default_factory=list)  # the lines of a pending quote
    pending_depth: int = 0
    pending_marks: str = ""
    pending_extra: dict = field(default_factory=dict)  # the pending quote's direction (`split_direction`)

    def cur_path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.path)

    def new_block(self) -> int:
        self.block += 1
        return self.block

    def open_exchange(self) -> None:
        if self.state is not State.EXCHANGE:
            self.new_block()
            self.state = State.EXCHANGE

    def end_exchange(self) -> None:
        if self.state is State.EXCHANGE:
            self.state = State.IDLE
        self.last_dialogue, self.spoken = None, False

    def add(self, q: Quote, block: int | None = None) -> _Out:
        placed = _Out(q, self.block if block is None else block, self.cur_path())
        self.out.append(placed)
        return placed


def flush(w: Walk, att: Attribution | None = None) -> None:
    """Emit the pending quote: by `att`'s speaker, else unattributed (an owner is found at the end)."""
    lines, w.pending = w.pending, []
    own_extra, w.pending_extra = w.pending_extra, {}
    if w.state is State.QUOTE:
        w.state = State.IDLE
    if not lines:
        return
    paras: list[list[str]] = [[]]
    for x in lines:
        if x == _PARA_BREAK:
            paras.append([])
        else:
            paras[-1].append(_no_marks(x))
    texts = [join_lines(p) for p in paras if p]
    words = clean(_unquote_paragraphs(texts)) if texts else ""
    if not words:
        return
    quoted = _quoted(" ".join(texts)) or all(_quoted(_no_marks(x)) for x in lines if x != _PARA_BREAK)
    extra = {**own_extra, **(att.extra if att else {})}
    if att and (att.name or att.narrating):
        kind = "narration" if att.narrating else "dialogue"
        w.add(Quote(kind, words, w.unit, None if att.narrating else att.name, extra), w.new_block())
        return
    q = Quote("dialogue", words, w.unit, None, extra)
    w.out.append(_Out(q, w.new_block(), w.cur_path(), owner_headings=w.cur_path() or ("",), quoted=quoted,
                      listed=w.pending_depth > 0))


def pend(w: Walk, text: str) -> None:
    w.pending.append(text)
    w.state = State.QUOTE


# -- looking ahead ---------------------------------------------------------------------------------------------------

def attribution_next(w: Walk, idx: int) -> bool:
    """Is the next line (past blanks and separators) a dash attribution? Then a pending quote waits for it."""
    for nx in w.items[idx + 1:]:
        if nx.kind in (ItemKind.BLANK, ItemKind.SEP):
            continue
        return nx.kind is ItemKind.LINE and bool(ATTRIB_RE.match(_no_marks(nx.text)))
    return False


def quote_open(w: Walk) -> bool:
    """Does the pending text open a quote that has not closed yet?"""
    first = next((_no_marks(x) for x in w.pending if x != _PARA_BREAK), "")
    last = _no_marks(w.pending[-1]) if w.pending[-1] != _PARA_BREAK else ""
    return bool(first) and first[0] in QUOTE_PAIRS and not (last and CLOSED_QUOTE_END_RE.search(last) and len(last) > 1)


def closes_ahead(w: Walk, idx: int) -> bool:
    """Is there, before the next heading, separator or cue (and within 12 lines), a line that closes a quote?"""
    for nx in w.items[idx + 1: idx + 13]:
        if nx.kind is ItemKind.BLANK:
            continue
        if nx.kind is not ItemKind.LINE or _is_cue(nx.text) or nx.depth != w.pending_depth:
            return False
        if ATTRIB_RE.match(_no_marks(nx.text)) or inline_quote(_no_marks(nx.text)):
            return False
        if CLOSED_QUOTE_END_RE.search(_no_marks(nx.text)):
            return True
    return False


def cue_next(w: Walk, idx: int) -> bool:
    for nx in w.items[idx + 1:]:
        if nx.kind is not ItemKind.BLANK:
            return nx.kind is ItemKind.LINE and (_is_cue(nx.text) is not None or bool(DIRECTION_LINE_RE.match(_no_marks(nx.text)))
                                                 or nx.text.strip().startswith("''"))
    return False
