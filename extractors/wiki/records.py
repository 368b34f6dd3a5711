"""The wiki parser's records: a `Quote` (one line of the page) and a `Placed` quote (its block, heading
path and, when unattributed, the headings that may own it).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Quote:
    kind: str  # dialogue / narration / action
    text: str
    unit: str
    name: str | None = None
    extra: dict = field(default_factory=dict)
    own_block: bool = False  # from a table of separate quotes: a unit of its own, not part of one exchange


@dataclass
class Placed:
    quote: Quote
    block: int
    path: tuple[str, ...]
    owner_headings: tuple[str, ...] = ()  # set for unattributed quotes: who may own them
    quoted: bool = False
    listed: bool = False  # a list item (a bullet of a character page)
