"""A name the others only call someone by joins the person who answers to it (English cast discovery).

`"You are quite right, Harry,"` … `"Of course I am," said Lord Henry`: speakers address a person by a name
(`Harry`, `Cousin Charlotte`, `Miss Eliza`) that the narration never uses in a speech tag, so name merging
(`cast.en.merge`) keeps it apart from the tagged name (`Lord Henry`), and the turn model then takes the
vocative for a third person. Here such a name joins the one person whose tagged line answers the quotation
that addresses it: the next quotation, in one of the two paragraphs after it, tagged with a name.

The rule, for names with at least MIN_VOCATIVES vocatives and at most MAX_TAGS speech tags (before roles and
places are settled): answered at least MIN_ANSWERS times, by one person at least MIN_SHARE of the time, never
replying to that person or addressed in their tagged lines (`cast.en.discover._apart`; a sentence naming both does not
count: `looking over at Lord Henry, said, "Harry, did it ever`), no conflict of gender, and neither of two
shapes that answer for someone else in a family: a title with a surname other people of the cast bear
(`Miss Bennet`: Jane in the narration, Elizabeth when Lady Catherine speaks) or the answerer's surname with a
first name the answerer is never called by (`Tom Gradgrind`, answered by his father `Mr. Gradgrind`).

The guards and thresholds keep every join right on the PDNC dev books (figures: docs/benchmarks.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from .merge import _Person
from ...text.quotes import Quote

MIN_VOCATIVES = 4
MAX_TAGS = 1
MIN_ANSWERS = 3
MIN_SHARE = 0.6


def answered_merges(people: list[_Person], quotes: list[Quote], tags: list[str | None], vocs: list[list[str]],
                    apart: Counter) -> list[_Person]:
    """`people` with each name others only call someone by joined to the person who answers to it."""
    owner = {f.surface: k for k, p in enumerate(people) for f in p.forms}
    answers = _answers(quotes, tags, vocs, owner)
    joined: dict[int, int] = {}
    for v, counts in answers.items():
        p = _answerer(people, v, counts, apart)
        if p is not None and p not in joined and v not in joined.values():
            joined[v] = p
    for v, p in joined.items():
        people[p].forms.extend(people[v].forms)
    return [p for k, p in enumerate(people) if k not in joined]


def _answers(quotes: list[Quote], tags: list[str | None], vocs: list[list[str]], owner: dict[str, int]
             ) -> dict[int, Counter]:
    """Person addressed -> Counter of who answers (a person index, or the tag's surface when it is no person)."""
    out: dict[int, Counter] = defaultdict(Counter)
    for i, names in enumerate(vocs):
        j = i + 1
        while j < len(quotes) and quotes[j].para == quotes[i].para:
            j += 1
        if not names or j >= len(quotes) or not tags[j] or quotes[j].para - quotes[i].paras[-1] > 2:
            continue
        who = owner.get(tags[j], tags[j])
        for s in names:
            if s in owner:
                out[owner[s]][who] += 1
    return out


def _answerer(people: list[_Person], v: int, counts: Counter, apart: Counter) -> int | None:
    """The one person who answers to person v's names, when v qualifies (see the module docstring)."""
    person = people[v]
    if sum(f.speaks for f in person.forms) > MAX_TAGS or sum(f.vocative for f in person.forms) < MIN_VOCATIVES:
        return None
    total = sum(counts.values())
    who, n = counts.most_common(1)[0]
    if total < MIN_ANSWERS or n < MIN_SHARE * total or not isinstance(who, int) or who == v:
        return None
    other = people[who]
    if _family_address(person, people) or _relative(person, other):
        return None
    if any(apart[frozenset((f.surface, g.surface))] for f in person.forms for g in other.forms):
        return None
    g, og = person.gender(), other.gender()
    return None if g and og and g != og else who


def _family_address(person: _Person, people: list[_Person]) -> bool:
    """`Miss Bennet`: only titles with a surname that at least two other people of the cast bear (which sister
    is meant changes from scene to scene)."""
    if any(len(f.names) != 1 or not f.cls for f in person.forms):
        return False
    last = {f.names[0] for f in person.forms}
    return sum(1 for p in people if p is not person and any(g.names[-1] in last for g in p.forms)) >= 2


def _relative(person: _Person, other: _Person) -> bool:
    """`Tom Gradgrind` answered by `Mr. Gradgrind`: the same surname with a first name the other is never called
    by, as a son, a sister or a wife would be."""
    firsts = {f.names[0] for f in other.forms if len(f.names) >= 2} | {f.names[0] for f in other.forms if f.first}
    lasts = {f.names[-1] for f in other.forms}
    return any(len(f.names) >= 2 and f.names[-1] in lasts and f.names[0] not in firsts for f in person.forms)
