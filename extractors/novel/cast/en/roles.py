"""Role speakers of English cast discovery (`cast/en/discover.py`): people a novel tags by a lower-case role noun
(`said the mariner`, `the matron cried`) rather than by a name.

A role noun is one of (counts behind each class: docs/benchmarks.md):
- generic, several people (`_GENERIC`): `the man`, `the other`, `the voice`, `the woman`, `the lady`, `the boy`,
  `the first` / `the second`, `the old` / `the young`; `the girl`, `the gentleman`, `the child`, `the stranger`
  (one person in a scene, a new one in each); kinship and gendered nouns (`speech_tags.NOUN_GENDER`,
  `kinship.KIN_NOUNS`) and titles resolved scene by scene (`role_descr.ROLE_TITLES`): never a member of their own.
- another name of a named member (`the beadle` = Mr. Bumble): joined only where the narration ties it by
  apposition (`Mrs. Corney, the matron of the workhouse`) to that one member of a fitting gender (`_tied`).
- one person who has no name (`the mariner`): confined to one episode (tags spanning at most 5% of the book), with
  at least 8 tags it is a member of its own, `The Mariner`.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .merge import _gender_of, _Person
from .scan import _Form, _pronoun_evidence, _Scan
from ...attribution.kinship import KIN_NOUNS
from ...attribution.role_descr import ROLE_TITLES
from ...text.speech_tags import NOUN_GENDER

_GENERIC = {"man", "woman", "lady", "gentleman", "girl", "boy", "lad", "child", "voice", "other", "others", "first",
            "second", "third", "last", "stranger", "old", "young", "little", "poor", "latter", "former", "same",
            "one", "two", "person", "people", "fellow", "visitor", "newcomer", "speaker", "whole", "rest", "next",
            "elder", "younger", "eldest", "youngest", "company", "party", "crowd"}
ALONE_TAGS = 8      # tags a role without a name needs to be a member of its own
ALONE_SPAN = 0.05   # ... all within this share of the book (one episode)
TIED_TAGS = 3       # tags a role needs before an apposition may join it to a named member


def role_nouns(roles: dict[str, list[int]]) -> dict[str, list[int]]:
    """The role nouns (noun -> offsets of its tags) that may name one person: not generic, kin or a title."""
    skip = _GENERIC | set(NOUN_GENDER) | set(KIN_NOUNS) | set(ROLE_TITLES.values())
    return {n: sorted(at) for n, at in roles.items() if n not in skip and len(at) >= TIED_TAGS}


def _mentions(text: str, nouns) -> dict[str, list[tuple[int, int]]]:
    """Noun -> spans of its mentions `the <noun>` (the noun only, so `to the mariner` is no place), one pass."""
    out = {n: [] for n in nouns}
    if out:
        for m in re.finditer(r"\b[Tt]he\s+((?i:" + "|".join(sorted(out, key=len, reverse=True)) + r"))\b", text):
            out[m.group(1).lower()].append(m.span(1))
    return out


def _role_form(scan: _Scan, noun: str, tags: int, spans: list[tuple[int, int]]) -> _Form:
    """`The Mariner`: the role as a name form, its mentions (`the mariner`) and `he`/`she` evidence."""
    surface = "The " + noun.capitalize()
    scan.mentions[surface] = spans
    form = _Form(surface, "the", None, (noun.capitalize(),), count=len(spans) or tags, speaks=tags,
                 at=spans[0][0] if spans else 0, role=True)
    _pronoun_evidence(scan, form)
    return form


# `Mrs. Corney, the matron of the workhouse`, `Mr. Sowerberry, the parochial undertaker.`: a name in apposition
_APPOS_END = r"(?=\s*[,.;:!?)\u2014]|\s+(?:of|who|whom|whose|in|at|from)\b)"


def _tied(scan: _Scan, noun: str, form: _Form, people: list[_Person], ends: list[tuple[int, int]],
          spoken: list[tuple[int, int]]) -> _Person | None:
    """The one named member the narration puts in apposition with the role (`<name>, the [adj] <noun>`), whose
    gender does not contradict the role's `he`/`she` evidence; None when none or several. `ends`: sorted
    (end offset of a mention, index of its person in `people`); `spoken`: sorted quotation spans, where a
    vocative is no apposition (`"Run, Oliver, the beadle!"`)."""
    keys = [e for e, _ in ends]
    hits = set()
    for m in re.finditer(r",\s+the\s+(?:[a-z\-]+\s+){0,2}?" + noun + r"\b" + _APPOS_END, scan.text):
        k = bisect_right(keys, m.start()) - 1
        q = bisect_right(spoken, (m.start(), len(scan.text))) - 1
        if k >= 0 and keys[k] == m.start() and not (q >= 0 and spoken[q][1] > m.start()):
            hits.add(ends[k][1])
    if len(hits) != 1:
        return None
    person = people[hits.pop()]
    g = _gender_of(form.pron, strong=True)
    return None if g and person.gender() not in (g, None) else person


def add_roles(scan: _Scan, roles: dict[str, list[int]], people: list[_Person],
              spoken: list[tuple[int, int]]) -> list[_Person]:
    """Join each role tied to one named member to that member; make the frequent one-episode roles members.
    `spoken`: the sorted spans of the quotations (with their quote marks)."""
    out = list(people)
    named = {f.surface: f for p in people for f in p.forms}
    nouns = role_nouns(roles)
    for noun in [n for n in nouns if "The " + n.capitalize() in named]:  # `said the Mariner` too: a name form
        named["The " + noun.capitalize()].speaks += len(nouns.pop(noun))
    ends = sorted((e, i) for i, p in enumerate(people) for f in p.forms for _, e in scan.mentions.get(f.surface, ())) \
        if nouns else []
    spans = _mentions(scan.text, nouns)
    for noun, at in nouns.items():
        form = _role_form(scan, noun, len(at), spans[noun])
        person = _tied(scan, noun, form, people, ends, spoken)
        if person is not None:
            person.forms.append(form)
        elif len(at) >= ALONE_TAGS and (at[-1] - at[0]) <= ALONE_SPAN * len(scan.text):
            out.append(_Person(form))
    return out
