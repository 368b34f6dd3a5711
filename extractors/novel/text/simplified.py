"""Traditional Chinese read through a simplified copy: the Chinese rules (jieba's person names, the tag
verbs) see `說道`/`賈寶玉` as `说道`/`贾宝玉`, and what they find is written back as the text writes it.

The copy is made character by character with OpenCC's traditional-to-simplified table
(opencc-python-reimplemented), a character that would become more than one kept as it is, so every
offset of the copy is an offset of the original. A text is read as traditional when at least
TRADITIONAL_SHARE of its Chinese characters change.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import lru_cache

from extractors.characters import Character

TRADITIONAL_SHARE = 0.03  # 红楼梦 1-8: 1 of 48,208 characters changes; in traditional characters 13,526 (0.28)
_SAMPLE = 200_000


@lru_cache(maxsize=1)
def _converter():
    from opencc import OpenCC

    return OpenCC("t2s")


@lru_cache(maxsize=None)
def _simple(ch: str) -> str:
    """The one simplified character for `ch` (itself when OpenCC gives it unchanged or as more than one).
    Cached: analysis, discovery and the cast's completion each build a table for the same text."""
    s = _converter().convert(ch)
    return s if len(s) == 1 else ch


def _table(chars: set[str]) -> dict[int, str]:
    return {ord(ch): _simple(ch) for ch in chars if "\u4e00" <= ch <= "\u9fff" and _simple(ch) != ch}


class SimplifiedView:
    """The simplified copy of a traditional text, and the way back for names found in it."""

    def __init__(self, text: str, table: dict[int, str]):
        self.original = text
        self.text = text.translate(table)
        self._table = table
        self._seen: dict[str, str] = {}

    def simplify(self, s: str) -> str:
        return s.translate(self._table) if s else s

    def back(self, s: str) -> str:
        """A name as the text writes it (`贾宝玉` -> `賈寶玉`): the original where the copy first has it, else each
        character in the form the text uses most for it (`贾宝玉` where the text writes only `寶玉`)."""
        if s and s not in self._seen:
            i = self.text.find(s)
            self._seen[s] = self.original[i:i + len(s)] if i >= 0 else "".join(map(self._char_back, s))
        return self._seen.get(s, s)

    def _char_back(self, ch: str) -> str:
        at = [m.start() for m, _ in zip(re.finditer(re.escape(ch), self.text), range(200))]
        return Counter(self.original[i] for i in at).most_common(1)[0][0] if at else ch

    def character(self, c: Character) -> Character:
        """`c` with its names as the copy writes them (same id: what is attributed to it is theirs)."""
        return replace(c, name=self.simplify(c.name), aliases=[self.simplify(a) for a in c.aliases])


@lru_cache(maxsize=2)
def simplified_view(text: str) -> SimplifiedView | None:
    """The simplified copy of `text` when it is traditional Chinese, else None. Made once per text: the cast's
    discovery and completion, the ranking and the attribution of one run all read the same copy."""
    sample = text[:_SAMPLE]
    cjk = [ch for ch in sample if "\u4e00" <= ch <= "\u9fff"]
    if not cjk:
        return None
    table = _table(set(cjk))
    changed = sum(1 for ch in cjk if ord(ch) in table)
    if changed < TRADITIONAL_SHARE * len(cjk):
        return None
    return SimplifiedView(text, table if len(text) <= _SAMPLE else _table(set(text)))


def written_forms(chars: list[Character], text: str) -> list[Character]:
    """Configured characters with each name in the script the text uses: `贾宝玉`/`王熙凤` configured for a traditional
    text are `賈寶玉`/`王熙鳳`, and `賈寶玉` for a simplified one is `贾宝玉` (a name the text writes as configured stays)."""
    view = simplified_view(text)
    table = _table({ch for c in chars for n in (c.name, *c.aliases) for ch in n})

    def form(name: str) -> str:
        if not name or name in text:
            return name
        s = name.translate(table)
        return view.back(s) if view else s
    return [replace(c, name=form(c.name), aliases=[form(a) for a in c.aliases]) for c in chars]

