"""Find character mentions in narration: every name, alias and title form of the configured characters.

Aliases come only from the character configs (or the PDNC character list). Derived forms:
`Mr. Darcy` also matches `Mr Darcy`; `The Hatter` also matches `the Hatter` and `a Hatter`; `Darcy` and
`Miss Harris` where they name one character (`derived_forms`); in Chinese, `宝玉` for `贾宝玉` (`given_names_zh`).
A name must be written with a capital letter (so the character `Time` is not found in
"a long time"). When one surface form belongs to several characters it goes to the first one
configured (callers list major characters first). A character listed by a title alone (`The Master`) is not
found where the title begins a longer name (`Master Charles Bates`: the longer name's character, or nobody). A
listed description (`His Father's Chauffeur`, `Alice's Sister`) lends no short form, and the start of a listed name
written as a possessive (`Lawrence` of `Lawrence Lefferts's`) is no mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractors.characters import Character

_TITLE_RE = re.compile(r"^(Mr|Mrs|Ms|Dr|St|Capt|Col)\.\s*", re.I)
_ARTICLE_RE = re.compile(r"^(the|a|an)\s+", re.I)
_POSSESSIVE_NEXT = re.compile(r"[ \t]+([A-Z][\w-]*)(?:['’]s?|\ss)(?!\w)")  # ` Lefferts's`, ` Lefferts s` (apostrophe lost)
# a listed name opening with one of these, or with a possessive (`Alice's Sister`), is a description (`The First
# Housemaid`, `His Father's Chauffeur`, `One Of The Policemen`): its words name nobody alone (`His`, `One`, `Sister`)
_DESCRIPTION_RE = re.compile(r"^(?:the|a|an|his|her|their|my|our|your|its|one|some|another|this|that|these|those)\s+",
                             re.I)
_POSSESSIVE_WORD = re.compile(r"['’][sS]\s")


@dataclass
class Mention:
    start: int
    end: int
    cid: str
    surface: str


def _gender(g: str | None) -> str | None:
    if not g:
        return None
    g = g.strip().lower()
    if g in ("m", "male", "man", "he"):
        return "male"
    if g in ("f", "female", "woman", "she"):
        return "female"
    return None


_TITLES = re.compile(r"^(?:mr|mrs|ms|miss|master|dr|doctor|sir|lady|lord|madame|madam|monsieur|mme|mlle|mademoiselle|"
                     r"captain|capt|colonel|col|major|general|professor|prof|rev|reverend|uncle|aunt|old|young|little)\.?$", re.I)
_PARTICLES = {"de", "van", "der", "von", "du", "la", "le", "di", "da", "del", "of"}
_FIRST_NAME_TITLE = re.compile(r"^(?:sir|lady|lord|miss|master|aunt|uncle|dame)\.?$", re.I)  # titles used with a first name
_MALE_TITLE = re.compile(r"^(?:mr|sir|lord|monsieur|master)\.?$", re.I)


def name_tokens(name: str) -> tuple[str | None, list[str]]:
    """(title or None, capitalised name tokens) of a name like `Mr. Fitzwilliam Darcy`."""
    toks = _ARTICLE_RE.sub("", " ".join(name.split())).split(" ")
    title = None
    while toks and _TITLES.match(toks[0]):
        title = title or toks[0]
        toks = toks[1:]
    toks = [t for t in toks if t not in _PARTICLES]  # `Lady Catherine de Bourgh`
    if not toks or not all(t[:1].isupper() and t.replace("-", "").replace("'", "").isalpha() for t in toks):
        return title, []
    return title, toks


def given_names_zh(chars: list[Character]) -> dict[str, str]:
    """The given name a Chinese text calls someone by (`宝玉` for `贾宝玉`, `熙凤` for `王熙凤`): a three-character
    name whose first character is a surname (or a four-character one opening with a two-character surname,
    `相如` for `司马相如`), without it, where it names one character and is no title or kinship term (`王夫人`
    is not `夫人`, `薛姨妈` not `姨妈`)."""
    from .zh.lexicon import SURNAME, title_or_kin
    from .zh.names import has_compound_surname

    owners: dict[str, set[str]] = {}
    for c in chars:
        for n in [c.name, *c.aliases]:
            n = n.strip()
            cut = 2 if has_compound_surname(n) else 1  # `司马相如` -> `相如`; `欧阳修` has no two-character given name
            if len(n) == cut + 2 and (cut == 2 or n[0] in SURNAME) and not title_or_kin(n[cut:]):
                owners.setdefault(n[cut:], set()).add(c.id)
    return {form: next(iter(ids)) for form, ids in owners.items() if len(ids) == 1}


def derived_forms(chars: list[Character]) -> dict[str, str]:
    """Short forms a text uses for a listed name: the title with the surname (`Miss Harris` for `Miss
    Lucillia Harris`), the surname alone (`Poirot` for `Hercule Poirot`,
    `Darcy` for `Mr. Darcy`) and the first name alone (`Hercule`), each only where it names one
    character: a surname several characters share goes to its one `Mr.` holder, else to nobody."""
    surnames: dict[str, set[str]] = {}
    mr: dict[str, set[str]] = {}
    firsts: dict[str, set[str]] = {}
    titled_firsts: dict[str, set[str]] = {}
    titled_lasts: dict[str, set[str]] = {}
    for c in chars:
        for n in [c.name, *c.aliases]:
            if _DESCRIPTION_RE.match(n.strip()) or _POSSESSIVE_WORD.search(n):  # `The First Housemaid`, `Alice's Sister`
                continue
            title, toks = name_tokens(n)
            if not toks or (len(toks) == 1 and not title):
                continue
            surnames.setdefault(toks[-1].casefold(), set()).add(c.id)
            if title and _MALE_TITLE.match(title):
                mr.setdefault(toks[-1].casefold(), set()).add(c.id)
            if len(toks) >= 2:
                firsts.setdefault(toks[0].casefold(), set()).add(c.id)
                if title and _FIRST_NAME_TITLE.match(title):
                    titled_firsts.setdefault(f"{title} {toks[0]}".casefold(), set()).add(c.id)
                if title:  # `Miss Harris` for `Miss Lucillia Harris`
                    titled_lasts.setdefault(f"{title} {toks[-1]}".casefold(), set()).add(c.id)
    out = {}
    for form, ids in [*titled_firsts.items(), *titled_lasts.items()]:  # `Sir William`, `Lady Catherine`, `Miss Eliza`
        if len(ids) == 1:
            out[form] = next(iter(ids))
    for form, ids in firsts.items():
        if len(ids) == 1 and form not in surnames:
            out[form] = next(iter(ids))
    for form, ids in surnames.items():
        owner = ids if len(ids) == 1 else mr.get(form, set())
        if len(owner) == 1 and form not in firsts:
            out[form] = next(iter(owner))
    return out


# words that are titles when a name follows them (`Master Charles Bates`): a character listed by such a word alone
# (`The Master`) is not named there
_TITLE_WORDS = {"master", "doctor", "captain", "colonel", "major", "general", "sir", "lady", "lord", "miss", "madame",
                "professor", "judge", "father", "mother", "aunt", "uncle", "cousin", "sister", "brother", "king", "queen",
                "prince", "princess", "count", "countess", "duke", "duchess", "baron", "marquis", "squire", "mr", "mrs"}


_NEXT_WORD = re.compile(r"\s+(?=[A-Z])")
_WORD = re.compile(r"[\w'-]+")


def _is_title(surface: str) -> bool:
    return _ARTICLE_RE.sub("", surface).rstrip(".").casefold() in _TITLE_WORDS


def _title_of_next(text: str, m: Mention, nxt: Mention) -> bool:
    """`cried Master Charles Bates`: the title-only name `Master` is the title of the name that follows it."""
    return nxt.cid != m.cid and _is_title(m.surface) and \
        re.fullmatch(r"\s+(?:[A-Z][\w'-]*\s+){0,2}", text[m.end:nxt.start]) is not None


class NameIndex:
    """Surface forms -> character id, and a regex that finds them in text."""

    def __init__(self, characters: list[Character] | dict[str, Character], language: str = "en"):
        chars = list(characters.values()) if isinstance(characters, dict) else list(characters)
        self.language = language
        self.characters = {c.id: c for c in chars}
        self.gender = {c.id: _gender(c.gender) for c in chars}
        self.forms: dict[str, str] = {}  # casefolded surface (without article) -> id
        for c in chars:
            for n in dict.fromkeys([c.name, *c.aliases]):
                for f in self._variants(n):
                    self.forms.setdefault(f.casefold(), c.id)
        for form, cid in (derived_forms(chars) if language != "zh" else given_names_zh(chars)).items():
            if form not in self.forms or self._is_stub(self.characters[self.forms[form]], form):
                self.forms[form] = cid
        self.narrator = next((c.id for c in chars if c.narrator), None)
        pats = sorted(self.forms, key=len, reverse=True)
        if not pats:
            self.regex = None
        elif language == "zh":
            self.regex = re.compile("|".join(re.escape(p) for p in pats))
        else:
            alt = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in pats)
            # not a possessive: `Darcy's`, nor `Margaret s` (texts that lost their apostrophes)
            self.regex = re.compile(r"(?<![\w'])(?:(?:the|a|an)\s+)?(" + alt + r")(?![\w])(?!'s?\w)(?! s\b)", re.I)

    def gender_of(self, name: str) -> str | None:
        """The gender of the character a surface form names (`Margaret`, `Mrs. Hale`), or None."""
        return self.gender.get(self.forms.get(" ".join(name.split()).casefold()))

    @staticmethod
    def _is_stub(c: Character, form: str) -> bool:
        """A list entry that is only a bare surname (`Bounderby`, no gender): a duplicate of the
        `Mr. Bounderby` who owns that surname."""
        return not _gender(c.gender) and all(" ".join(n.split()).casefold() == form for n in [c.name, *c.aliases])

    @staticmethod
    def _variants(name: str) -> list[str]:
        name = " ".join(name.split())
        out = [name]
        core = _ARTICLE_RE.sub("", name)
        if core != name and core:
            out.append(core)
        m = _TITLE_RE.match(core)
        if m:
            out.append(m.group(1) + " " + core[m.end():])
        return [o for o in out if o.strip()]

    def lookup(self, surface: str) -> str | None:
        s = " ".join(surface.split())
        s = _ARTICLE_RE.sub("", s) if self.language != "zh" else s
        return self.forms.get(s.casefold())

    def match_at(self, text: str, pos: int, end: int):
        """The name written at `pos` (a regex match; group 1 the name), or None. A title-only name followed by a
        capitalised word (`Master Charles Bates`, `Captain Jones`) names the person of the longer name: that
        one's match up to two words on, or None when the longer name is nobody listed."""
        m = self.regex.match(text, pos, end) if self.regex else None
        if m is None or self.language == "zh" or not _is_title(m.group(1)):
            return m
        at = m.end()
        for _ in range(3):
            w = _NEXT_WORD.match(text, at, end)
            if w is None:
                return m if at == m.end() else None
            nm = self.regex.match(text, w.end(), end)
            if nm and self.lookup(nm.group(1)) != self.lookup(m.group(1)):
                return nm
            at = _WORD.match(text, w.end(), end).end()
        return None

    def _cut_possessive(self, text: str, name: str, end: int) -> bool:
        """`Lawrence` of `Lawrence Lefferts's glibness`: the start of a longer listed name written as a possessive
        (which is no mention), not a mention of its own."""
        w = _POSSESSIVE_NEXT.match(text, end)
        return bool(w) and self.language != "zh" and f"{' '.join(name.split())} {w.group(1)}".casefold() in self.forms

    def mentions(self, text: str, start: int = 0, end: int | None = None) -> list[Mention]:
        if self.regex is None:
            return []
        end = len(text) if end is None else end
        out = []
        for m in self.regex.finditer(text, start, end):
            name = m.group(1) if self.language != "zh" else m.group(0)
            start = m.start()
            if self.language != "zh" and not name[:1].isupper():
                # `old Mrs. Mingott` listed as an alias, written in lower case: still the capitalised name
                cap = re.match(r"(?:[a-z]+\s+)+(?=[A-Z])", name)
                if not cap:
                    continue
                start = m.start(1) + cap.end()
                name = name[cap.end():]
            cid = self.forms.get(" ".join(name.split()).casefold())
            if cid and not self._cut_possessive(text, name, m.end()):
                out.append(Mention(start, m.end(), cid, text[start:m.end()] if start != m.start() else m.group(0)))
        return [m for k, m in enumerate(out) if not (k + 1 < len(out) and _title_of_next(text, m, out[k + 1]))]
