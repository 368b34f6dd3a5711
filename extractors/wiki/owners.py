"""After the walk: give unattributed quotes an owner (a section named after a speaker, the page's
character) or drop them, then name the units (heading path, `#n` when a section holds several blocks).
"""

from __future__ import annotations

import re

from .attribution import _looks_like_name
from .directions import QUOTES_SECTION, owner_heading
from .records import Placed, Quote


_ABOUT_RE = re.compile(r"\babout\b|\büber\b|\bsur\b|à propos|\bon\s+\w+$|misattributed|disputed|attributed|关于|評價|评价|误传|存疑", re.IGNORECASE)
# a section that holds the page character's quotes: a plain '* words' item in it is theirs
_QUOTES_SECTION = QUOTES_SECTION


def _norm(name: str) -> str:
    return re.sub(r"[\W_]+", " ", name.lower()).strip()


def _named_owner(headings: tuple[str, ...], page_owner: str | None, page_heading: str | None = None) -> str | None:
    """The owner the headings name: 'Example lines said by Kyon', 'Kyon/Quotes', or 'Quotes' under '== Kyon =='
    or under the page's `<h1>` (a name-like heading of at most three words, each capitalised, on a page whose
    character is not known otherwise)."""
    if page_heading and not page_owner and headings and headings[0] and re.fullmatch(r"(?:[A-Z][^\s]*\s?){1,3}", page_heading):
        headings = (page_heading, *headings)
    for i in range(len(headings) - 1, -1, -1):
        named = owner_heading(headings[i])
        if named:
            return named
        if (i and not page_owner and _QUOTES_SECTION.match(headings[i]) and _looks_like_name(headings[i - 1])
                and len(headings[i - 1].split()) <= 3 and not _ABOUT_RE.search(headings[i - 1])):
            return headings[i - 1]
    return None


def _finish(out: list[Placed], base: str, page_character: str | None, is_character, page_heading: str | None = None
            ) -> list[Quote]:
    """Give unattributed quotes an owner (or drop them), then name the units."""
    speakers = {_norm(o.quote.name) for o in out if o.quote.name}
    speakers.discard("")

    def speaker_heading(h: str) -> str | None:
        n = _norm(h)
        if not n or not _looks_like_name(h) and not (is_character and is_character(h)):
            return None
        if n in speakers or (is_character and is_character(h)) or (page_character and n == _norm(page_character)):
            return h
        words = n.split()
        if len(words) > 1 and any(w in speakers for w in (words[0], words[-1]) if len(w) > 2):
            return h
        return None

    page_owner = page_character or (speaker_heading(page_heading) if page_heading else None)
    kept: list[Placed] = []
    for o in out:
        if o.owner_headings:
            owner = _named_owner(o.owner_headings, page_owner, page_heading) or next(
                (speaker_heading(h) for h in reversed(o.owner_headings) if speaker_heading(h)), None)
            if owner:
                o.quote.name = owner
            elif page_owner and (o.quoted or "source" in o.quote.extra or _QUOTES_SECTION.match(o.owner_headings[-1])
                                 or o.listed and o.owner_headings == ("",)
                                 ) and not any(_ABOUT_RE.search(h) for h in o.owner_headings):
                o.quote.name = page_owner  # a character page: '* words' / '** ''Work'' (1887)' is theirs
            else:
                continue
        kept.append(o)

    # units: the heading path, numbered when a section run holds more than one block
    runs: list[list[Placed]] = []
    for o in kept:
        if runs and runs[-1][-1].path == o.path:
            runs[-1].append(o)
        else:
            runs.append([o])
    result: list[Quote] = []
    for run in runs:
        path = " / ".join(run[0].path)
        blocks: list[int] = []
        for o in run:
            if not blocks or blocks[-1] != o.block:
                blocks.append(o.block)
        first: dict = {}  # a block's number: its first place in `blocks` (a dict, not `blocks.index`: quadratic)
        for i, b in enumerate(blocks):
            first.setdefault(b, i)
        for o in run:
            k = first[o.block] + 1
            if len(blocks) == 1:
                o.quote.unit = path or base
            elif path:
                o.quote.unit = f"{path} #{k}"
            else:
                o.quote.unit = str(k) if base == "1" else f"{base} #{k}"
            result.append(o.quote)
    return result
