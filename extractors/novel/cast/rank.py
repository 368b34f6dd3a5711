"""Order a discovered cast by how much each member speaks in the book, not only by the tags that name them.

A tag count (`said Mrs. Mingott`) misses people whose lines are mostly untagged turns or pronoun tags: old Mrs.
Manson Mingott speaks 56 quotations of The Age of Innocence and is named in one tag. So each member's `lines`
are the quotations the rules give them (every guess, whatever its confidence) when the whole discovered cast is
attributed, and the cast is ordered by lines, then tags (`speaks`), then mentions (`benchmarks/cast_discovery.py`).
Every guess counts, not only those above the hold: a ranking counts who speaks, and a wrong guess moves a count by one.
"""

from __future__ import annotations

from collections import Counter

from .member import CastMember


def rank_by_lines(text: str, cast: list[CastMember], language: str) -> list[CastMember]:
    """`cast` with `lines` filled in, most lines first (then `speaks`, `count`, name)."""
    from ..analysis import analyse

    chars = [m.to_character("cast", language) for m in cast]
    if not chars:
        return cast
    attrs = analyse(text, chars, language, 0.0)[4]
    n = Counter(a.speaker for a in attrs if a.speaker)
    for m, c in zip(cast, chars):
        m.lines = n[c.id]
    return sorted(cast, key=lambda m: (-m.lines, -m.speaks, -m.count, m.name))
