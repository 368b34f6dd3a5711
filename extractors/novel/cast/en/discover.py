"""The cast of an English novel from its text alone: who speaks, who is spoken to, which names belong
together, a gender guess, and the first-person narrator (the steps: docs/novel.md, "English cast discovery").

Names and speakers are scanned in `cast/en/scan.py`, merged and gendered in `cast/en/merge.py` and
`cast/en/answers.py`, role speakers in `cast/en/roles.py`; this module ranks, finds the narrator and puts the
members together.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict

from .answers import answered_merges
from .merge import ROLE_CLASSES, _merge, _Person, join_her_surname
from .roles import add_roles
from .scan import _Form, _pieces, _pron_tag, _pronoun_evidence, _role_tag, _Scan, _split, _tag, _vocatives
from ..member import CastMember
from ...text.chapters import split_paragraphs
from ..name_gender import first_name_gender
from ...text.quotes import Quote, detect_style, find_quotes

def _resolve_pronouns(scan: _Scan, people: list[_Person], quotes: list[Quote], paras: list[tuple[int, int]],
                      prons: list[tuple[int, str]]) -> dict[int, int]:
    """Quotation index -> person index for pronoun tags (`she said`): the nearest preceding name of that
    gender in the narration of the same or the previous paragraph. Weak evidence of who talks."""
    owner = {f.surface: i for i, p in enumerate(people) for f in p.forms}
    genders = [p.gender() for p in people]
    cuts = sorted(s for q in quotes for s in q.outer)
    pos = sorted((s, owner[surf]) for surf, spans in scan.mentions.items() if surf in owner for s, _ in spans)
    starts = [s for s, _ in pos]
    cut_starts = [s for s, _ in cuts]
    out = {}
    for qi, g in prons:
        q = quotes[qi]
        lo = paras[max(q.para - 1, 0)][0]
        k = bisect_left(starts, q.outer[0][0]) - 1
        while k >= 0 and starts[k] >= lo:
            s, who = pos[k]
            c = bisect_right(cut_starts, s) - 1
            if not (c >= 0 and cuts[c][0] <= s < cuts[c][1]) and genders[who] == g:
                out[qi] = who
                break
            k -= 1
    return out


_WEAK = 0.5  # what a pronoun tag resolved to a person (`_resolve_pronouns`) adds to `speaks`


def _member(person: _Person, weak: int = 0) -> CastMember:
    forms = sorted(person.forms, key=lambda f: (f.role, f.count < 2, -len(f.names), -f.count))
    name = forms[0].surface  # the fullest name the text uses more than once (a role only for want of a name)
    aliases = [f.surface for f in sorted(person.forms, key=lambda f: -f.count) if f.surface != name]
    return CastMember(name=name, aliases=aliases, gender=person.gender() or _first_name_gender(person),
                      count=sum(f.count for f in person.forms),
                      speaks=sum(f.speaks for f in person.forms) + int(weak * _WEAK))


def _first_name_gender(person: _Person) -> str | None:
    """The gender the dictionary gives the first names of a person's untitled forms, when they agree."""
    got = {first_name_gender(f.names[0]) for f in person.forms if f.cls is None and not f.surname and not f.role}
    return got.pop() if len(got) == 1 else None


def _collect(text: str, scan: _Scan):
    """Speech-tag counts, vocative counts, narrator tag count, vocatives next to the narrator's lines, each
    quotation's tag and vocatives, and the role tags (`said the mariner`: role noun -> offsets of its quotations)."""
    paras = split_paragraphs(text)
    quotes = find_quotes(text, paras, detect_style(text)) if paras else []
    speaks, voc = Counter(), Counter()
    tags = []
    vocs = []
    prons = []  # (quotation index, gender) of pronoun tags
    roles = defaultdict(list)
    for i, (q, (gaps, after, before)) in enumerate(zip(quotes, _pieces(text, paras, quotes))):
        who = _tag(scan, gaps, after, before)
        tags.append(who)
        if who:
            speaks[who] += 1
        elif g := _pron_tag(gaps, after, before):
            prons.append((i, g))
        elif role := _role_tag(gaps, after, before):
            roles[role].append(q.outer[0][0])
        v = _vocatives(scan, q.text(text))
        vocs.append(v)
        voc.update(v)
    near = Counter()
    for i, who in enumerate(tags):
        if who != "I":
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(quotes) and tags[j] != "I" and quotes[j].para != quotes[i].para:
                near.update(vocs[j])
    return quotes, speaks, voc, near, (tags, vocs), paras, prons, roles


def _apart(quotes: list[Quote], tags: list[str | None], vocs: list[list[str]]) -> Counter:
    """Pairs of names that are two people: one replies to the other (tags of consecutive quotes in
    different paragraphs), or one speaks to the other (a vocative in a tagged quote)."""
    out = Counter()
    for i, who in enumerate(tags):
        if not who:
            continue
        nxt = tags[i + 1] if i + 1 < len(tags) and quotes[i + 1].para != quotes[i].para else None
        for other in ([nxt] if nxt else []) + vocs[i]:
            if other != who:
                out[frozenset((who, other))] += 1
    return out


def _forms(scan: _Scan, speaks: Counter, voc: Counter) -> list[_Form]:
    """Name forms worth a member: tagged speakers, repeated vocatives, and fuller names that contain them."""
    seeds = {s for s, n in speaks.items() if s != "I"} | {s for s, n in voc.items() if n >= 2}
    words = {w for s in seeds for w in _split(s)[2]}
    out = {}
    for surface, ends in scan.mentions.items():
        cls, gender, names, _ = _split(surface)
        once = cls in ROLE_CLASSES and len(names) == 1  # `Doctor Losberne`, once, joins `Mr. Losberne`
        if surface in seeds or ((len(ends) >= 2 or once) and set(names) & words):
            if names and (cls != "the" or surface in seeds):
                out[surface] = _Form(surface, cls, gender, names, count=len(ends) or 1,
                                     speaks=speaks[surface], vocative=voc[surface], at=ends[0][0] if ends else 0)
    for s in seeds - set(out):
        cls, gender, names, _ = _split(s)
        if names:
            out[s] = _Form(s, cls, gender, names, count=voc[s] + speaks[s], speaks=speaks[s], vocative=voc[s])
    lasts = {n[-1] for n in (_split(s)[2] for s in scan.mentions) if len(n) >= 2}
    for f in out.values():
        f.surname = len(f.names) == 1 and f.names[0] in lasts
    return [f for f in out.values() if f.speaks >= 2 or not _two_names(f, out.values())]


def _two_names(form: _Form, forms) -> bool:
    """`Luyden Newland` (from `van der Luyden Newland Archer`): two people's names run together,
    seen where the last word is only ever a first name elsewhere. A last word the text also writes
    after a title at least 3 times (`Mrs. Manson`, `Marchioness Manson`) is a surname: `Medora Manson`
    is one woman though `Manson Mingott` opens with it."""
    if len(form.names) < 2:
        return False
    others = [f for f in forms if len(f.names) >= 2 and f is not form]
    last = form.names[-1]
    titled = any(f.names == (last,) and f.cls not in (None, "the") and f.count >= 3 for f in forms)
    return any(f.names[0] == last for f in others) and not titled and not any(f.names[-1] == last for f in others)


def _narrator(members: list[CastMember], tags_i: int, n_quotes: int, near: Counter) -> list[CastMember]:
    """Mark (or add) the first-person narrator when `said I` tags are frequent."""
    if tags_i < 5 or tags_i < 0.02 * n_quotes:
        return members
    named = [(n, c) for n, c in near.most_common(3) if c >= 2]
    if named:
        best = named[0][0]
        for m in members:
            if best == m.name or best in m.aliases:
                m.narrator, m.speaks = True, m.speaks + tags_i
                return members
    members.append(CastMember(name="Narrator", speaks=tags_i, narrator=True))
    return members


def discover_en(text: str) -> list[CastMember]:
    """The cast of an English novel (unsorted; `discover_cast` orders and cuts it)."""
    scan = _Scan(text)
    quotes, speaks, voc, near, (tags, vocs), paras, prons, roles = _collect(text, scan)
    scan.index()
    apart = _apart(quotes, tags, vocs)
    scan.together.update(apart)
    forms = _forms(scan, speaks, voc)
    for f in forms:
        _pronoun_evidence(scan, f)
    people = join_her_surname(answered_merges(_merge(forms, scan.together), quotes, tags, vocs, apart), forms)
    people = add_roles(scan, roles, people, sorted(s for q in quotes for s in q.outer))
    weak = Counter(_resolve_pronouns(scan, people, quotes, paras, prons).values())
    members = [_member(p, weak[i]) for i, p in enumerate(people)]
    members = [m for m, p in zip(members, people) if (sum(f.speaks for f in p.forms) or sum(voc[a] for a in [m.name, *m.aliases]) >= 2)
               and not _place(text, scan, p)]
    return _narrator(members, speaks["I"], len(quotes), near)


_LOCATIVE = re.compile(r"\b(?:in|at|to|from|into|near|across|through|towards?|outside|inside|within|throughout|beyond)\s+$", re.I)


def _place(text: str, scan: _Scan, person: _Person) -> bool:
    """A place, not a person (`New York`, `London`, `Green Gables`, `Styles`): at least 6 mentions (not
    possessive) and at least 35% of them right after `in`/`at`/`to`/`from`/`into`/`near`..."""
    spans = [sp for f in person.forms for sp in scan.mentions.get(f.surface, ())
             if text[sp[1]:sp[1] + 2] not in ("'s", "\u2019s")]  # `at Mrs. Struthers's`: her house, she is a person
    if len(spans) < 6:
        return False
    loc = sum(1 for s, _ in spans if _LOCATIVE.search(text, max(0, s - 15), s))
    return loc >= 0.35 * len(spans)
