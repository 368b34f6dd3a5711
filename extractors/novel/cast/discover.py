"""Meet the cast of a novel before attributing it: the people who speak or are spoken to, with the
aliases that belong together, a gender guess, counts, and the first-person narrator.

`discover_cast(text, language)` is the one entry point; English rules live in `cast/en/discover.py`, Chinese
(jieba person-name tagging) in `cast/zh/discover.py`. `CastMember.to_character()` (`cast/member.py`) turns a
member into the `Character` every other stage uses, so `extract novel` on a work with no configured characters runs
on the discovered cast.
"""

from __future__ import annotations

from .member import CastMember
from ..text.simplified import simplified_view


def discover_cast(text: str, language: str, top: int | None = None, by_lines: bool = True) -> list[CastMember]:
    """The cast of a novel, most frequent speaker first: by the lines the rules give each member
    (`cast.rank`), then `speaks`, then `count`; `top` keeps the first N. `by_lines=False` skips the
    attribution that ranking costs (order by `speaks`, then `count`), for a caller that attributes anyway."""
    if language == "zh":
        from .zh.discover import discover_zh as find
    else:
        from .en.discover import discover_en as find
    view = simplified_view(text) if language == "zh" else None  # traditional: found in a simplified copy
    cast = find(view.text if view else text)
    if view:
        for m in cast:
            m.name, m.aliases = view.back(m.name), [view.back(a) for a in m.aliases]
    cast.sort(key=lambda m: (-m.speaks, -m.count, m.name))
    if by_lines:
        from .rank import rank_by_lines
        cast = rank_by_lines(text, cast, language)
    return cast[:top] if top else cast
