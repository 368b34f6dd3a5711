"""The cast of an English novel from its text alone: who speaks, who is spoken to, which names
belong together, a gender guess, and the first-person narrator.

1. Names. One scan finds every capitalised word sequence (with titles: `Mr. Darcy`, `Lady Catherine
   de Bourgh`, `the Mock Turtle`). A word counts as name-like when the text writes it capitalised
   mid-sentence more often than in lower case (so `Then`, `Well`, `Poor` are not names, `Rose` in a
   book about Rose Maylie is).
2. Speakers and addressees. Next to each quotation (`find_quotes`) the speech tags `said Elizabeth`,
   `Elizabeth replied`, `Elizabeth said:` give `speaks`; vocatives inside quotations (`"My dear
   Lizzy,`, `"Yes, Jane."`) give the people spoken to. `said I`, `I answered` count toward a narrator.
3. Merging, fullest forms first: `Mr. Fitzwilliam Darcy` absorbs `Fitzwilliam Darcy`; a title form
   (`Mr. Darcy`, `Lady Catherine`) joins the one full name it fits (same or no title, same gender);
   a bare word (`Darcy`) joins the one person it fits, or the one whose gender matches the pronouns
   the text uses after the bare word. Different titles (`Mr.`/`Mrs.`), genders or first names never
   merge; a bare word that still fits several people is left out. `Mrs. Manson` is not `Mrs. Manson
   Mingott` where the text also writes Manson as a surname; `The Marchioness` joins the one
   `Marchioness Manson`; `May Archer` joins `May Welland` as her married name (see `_married`).
4. Gender: titles, then `he`/`she` after the person's mentions, then the first-name lists of the
   optional `gender-guesser` package.
5. Rank: `speaks` counts the named speech tags, plus half of the pronoun tags (`she said`) resolved to
   the nearest preceding name of that gender in the same or the previous paragraph (76% right on the
   PDNC dev books, so weak evidence: it orders the list but never admits a member on its own).
6. Narrator: frequent `said I` tags make a narrator member, named by the vocative the other speakers
   use most in the replies next to the narrator's lines (`"My dear Hastings,`), else `Narrator`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .cast_member import CastMember
from .chapters import split_paragraphs
from .quotes import Quote, detect_style, find_quotes
from .speech_tags import VERBS_EN

# title -> (compatibility class, gender)
_TITLES = {
    **{t: ("mr", "male") for t in ("Mr", "Mister", "Monsieur", "M", "Signor", "Herr", "Senor")},
    **{t: ("mrs", "female") for t in ("Mrs", "Madame", "Mme", "Madam", "Signora", "Frau", "Senora")},
    **{t: ("miss", "female") for t in ("Miss", "Mademoiselle", "Mlle", "Signorina", "Fraulein")},
    **{t: (t.lower(), "male") for t in ("Sir", "Lord", "Master", "Uncle", "Father", "Brother", "King", "Prince",
                                         "Duke", "Count", "Baron", "Earl", "Marquis")},
    **{t: (t.lower(), "female") for t in ("Lady", "Dame", "Ms", "Aunt", "Mother", "Sister", "Queen", "Princess",
                                           "Duchess", "Countess", "Baroness", "Marchioness", "Mistress")},
    **{t: (t.lower(), None) for t in ("Colonel", "Captain", "Major", "General", "Lieutenant", "Sergeant",
                                       "Inspector", "Professor", "Judge", "Reverend", "Cousin", "The")},
    "Dr": ("dr", None), "Doctor": ("dr", None), "Capt": ("captain", None), "Col": ("colonel", None),
    "Prof": ("professor", None), "Rev": ("reverend", None),
}
_MODIFIERS = ("Old", "Young", "Little", "Poor", "Dear", "Good")
_PRONOUN_GENDER = {"he": "male", "his": "male", "himself": "male", "she": "female", "herself": "female"}
_NOT_NAMES = {"I", "God", "Heaven", "Heavens", "Lord", "Christ", "Jesus", "Sir", "Madam", "Ma'am", "Oh", "O",
              "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Christmas",
              "January", "February", "March", "July", "September", "October", "November", "December",
              "Spring", "Summer", "Winter", "English", "French", "Chapter", "Mamma", "Papa", "Mama", "Pa", "Ma"}

_WORD = r"[A-Z](?:[a-z]+(?:-[A-Za-z][a-z]+)*|['’][A-Z][a-z]+)(?:[A-Z][a-z]+)?"
_TITLE = r"(?:" + "|".join(sorted((t for t in _TITLES if t != "The"), key=len, reverse=True)) + r")\.?"
_PARTICLE = r"(?:de|du|da|di|del|della|van|von|der|la|le|of)"
_SEP = r"[ \t]*\n?[ \t]*"
_NAME = (r"(?:(?:[Tt]he|" + "|".join(_MODIFIERS) + r")" + _SEP + r")?(?:" + _TITLE + _SEP + r"){0,2}"
         + r"(?:(?<=[.\s])" + _PARTICLE + _SEP + r"){0,2}" + _WORD
         + r"(?:" + _SEP + r"(?:" + _PARTICLE + _SEP + r"|" + _TITLE + _SEP + r")?" + _WORD + r"){0,3}(?![\w-])")
_NAME_RE = re.compile(r"(?<![\w'’.])" + _NAME)
_NOT_POSS = r"(?!['’]s\b)"
_V = r"(?:" + VERBS_EN + r")\b"
_ADV = r"(?:\s+(?:\w+ly|again|then|now|at\s+last|at\s+once|aloud|only|still|too|also|soon))*"
_LEAD = r"^[\s,;:.!?\-—–_*]*"
_TAG_AFTER = re.compile(_LEAD + r"(?:and\s+)?" + _V + _ADV + r"\s+(?:(?:old|young|little|poor|dear)\s+)?("
                        + _NAME + _NOT_POSS + r"|I\b)")
_TAG_AFTER_SUBJ = re.compile(_LEAD + r"(" + _NAME + _NOT_POSS + r"|I)" + _ADV + r"\s+(?:had\s+|has\s+)?" + _V)
_TAG_BEFORE = re.compile(r"(?:^|[.!?;]\s+|,\s+|\band\s+)(" + _NAME + r"|I)" + _ADV + r"\s+(?:had\s+)?" + _V + _ADV
                         + r"(?:\s+(?:to|with|in|at)\s+(?:[\w'’]+\s+){0,3}?[\w'’]+)?\s*[,:—–-]?\s*$")
_PRON_AFTER = re.compile(_LEAD + r"(?:and\s+)?(?:" + _V + _ADV + r"\s+(he|she)\b|(he|she)" + _ADV + r"\s+(?:had\s+)?"
                         + _V + r")")
_PRON_BEFORE = re.compile(r"(?:^|[.!?;]\s+|,\s+|\band\s+)([Hh]e|[Ss]he)" + _ADV + r"\s+(?:had\s+)?" + _V + _ADV
                          + r"(?:\s+(?:to|with|in|at)\s+(?:[\w'’]+\s+){0,3}?[\w'’]+)?\s*[,:—–-]?\s*$")
_VOCATIVE = re.compile(r"(?:^|[,;!?—]\s*|\b(?:[Dd]ear(?:est)?|[Mm]y|[Oo]h?|[Gg]ood|[Pp]oor)\s+)(" + _NAME
                       + r")(?=\s*(?:[,!?.;—]|$))")
_SENTENCE_END = re.compile(r"(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSt)(?<!\bMs)(?<!\s[A-Z])[.!?;]")
_PRONOUN = re.compile(r"\b(he|his|himself|she|herself)\b|[.!?;:\"“”‘’]|\b[A-Z]")


@dataclass
class _Form:
    surface: str                   # canonical spelling (`Mr. Darcy`, `The Hatter`)
    cls: str | None                # title class (`mr`, `lady`, `the`) or None
    gender: str | None             # from the title
    names: tuple[str, ...]         # name words (`Fitzwilliam`, `Darcy`)
    count: int = 0
    speaks: int = 0
    vocative: int = 0
    pron: Counter = field(default_factory=Counter)
    first: bool = False            # a bare word that is the first name of a full name in the text
    at: int = 0                    # offset of the first mention
    surname: bool = False          # a bare word that is the last name of a full name in the text

    @property
    def young(self) -> bool:  # `Young Tom` is not `Tom Gradgrind`'s father
        return self.surface.startswith("Young ") or " Young " in self.surface


_DOTTED = {"Mr", "Mrs", "Ms", "Dr", "M", "Mme", "Mlle", "Capt", "Col", "Prof", "Rev"}


def _split(surface: str) -> tuple[str | None, str | None, tuple[str, ...], str]:
    """(title class, title gender, name words, canonical spelling) of a name as written:
    `the  Old Mr Emerson` -> ('mr', 'male', ('Emerson',), 'Old Mr. Emerson')."""
    words = [w.rstrip(".") for w in surface.replace("’", "'").split()]
    i, the, mods, titles = 0, False, [], []
    while i < len(words) and (words[i].lower() == "the" or words[i] in _MODIFIERS):
        the, mods = (True, mods) if words[i].lower() == "the" else (the, mods + [words[i]])
        i += 1
    while i < len(words) - 1 and words[i] in _TITLES and words[i] != "The":
        titles.append(words[i])
        i += 1
    rest = words[i:]
    names = tuple(w for w in rest if w[:1].isupper())
    if not names or (len(names) == 1 and names[0] in _TITLES and not the):
        return None, None, (), ""
    title = titles[-1] if titles else ("The" if the else None)
    cls, gender = _TITLES[title] if title else (None, None)
    lead = (["The"] if the and not titles else []) + mods + [t + "." if t in _DOTTED else t for t in titles]
    return cls, gender, names, " ".join(lead + rest)


class _Scan:
    """Word statistics and every capitalised name sequence of the text; `index()` then files the
    mentions under their canonical forms and counts the pairs of forms used in one sentence."""

    def __init__(self, text: str):
        self.text = text
        self.lower = Counter(m.group(0) for m in re.finditer(r"\b[a-z][a-z'’]*\b", text))
        self.cap_mid = Counter(m.group(1) for m in re.finditer(r"[a-z,;]\s+(" + _WORD + r")", text))
        self.cap_mid.update(m.group(1) for m in re.finditer(r"(?:^|\s)(?:[Tt]he|" + _TITLE + r")\s+(" + _WORD + r")",
                                                             text))
        self.trusted: set[str] = set()      # words a speech tag used as a name (`said May`)
        self.mentions: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.together: Counter = Counter()  # frozenset({form, form}) -> sentences naming both

    def index(self) -> None:
        seq = []
        for m in _NAME_RE.finditer(self.text):
            canon = self.clean(m.group(0))
            if canon:
                self.mentions[canon].append((m.start(), m.end()))
                seq.append((m.start(), m.end(), canon))
        for i, (s, e, a) in enumerate(seq):
            for s2, _, b in seq[i + 1:i + 4]:
                if s2 - e > 100 or _SENTENCE_END.search(self.text, e, s2):
                    break
                if a != b:
                    self.together[frozenset((a, b))] += 1

    def name_like(self, word: str) -> bool:
        if word in _NOT_NAMES or word in _TITLES:
            return False
        caps = self.cap_mid[word]
        return caps >= 1 and (self.lower[word.lower()] <= caps or word in self.trusted)

    def clean(self, surface: str) -> str:
        """Canonical form with non-name words trimmed (`Then Elizabeth` -> `Elizabeth`), or ''."""
        words = surface.split()
        while words and words[0].rstrip(".") not in _TITLES and words[0] not in _MODIFIERS \
                and words[0].lower() != "the" and not self.name_like(words[0]):
            words.pop(0)
        the = bool(words) and words[0].lower() == "the"
        while words and not (self.name_like(words[-1]) or (the and len(words) > 1 and words[-1] not in _NOT_NAMES)):
            words.pop()
        if not words:
            return ""
        cls, _, names, canon = _split(" ".join(words))
        if not names or (cls is None and len(names) == 1 and not self.name_like(names[0])):
            return ""
        return canon


def _pieces(text: str, paras: list[tuple[int, int]], quotes: list[Quote]):
    """Per quotation, the narration that may hold its tag: between its parts, after it, before it."""
    for i, q in enumerate(quotes):
        pe = paras[q.paras[-1]][1]
        nxt = quotes[i + 1].outer[0][0] if i + 1 < len(quotes) and quotes[i + 1].para == q.paras[-1] else pe
        gaps = [text[q.outer[k][1]:q.outer[k + 1][0]] for k in range(len(q.outer) - 1)]
        after = text[q.outer[-1][1]:min(nxt, q.outer[-1][1] + 200)]
        ps0 = paras[q.para][0]
        prev = quotes[i - 1].outer[-1][1] if i and quotes[i - 1].paras[-1] == q.para else ps0
        before = text[max(prev, ps0, q.outer[0][0] - 200):q.outer[0][0]]
        yield gaps, after, before


def _tag(scan: _Scan, gaps: list[str], after: str, before: str) -> str | None:
    """The speaker named by the quotation's speech tag (`I` for the narrator), or None."""
    for piece in (*gaps, after):
        m = _TAG_AFTER.match(piece)
        if m and " " not in m.group(1) and m.group(1) not in _NOT_NAMES:
            scan.trusted.add(m.group(1))  # `said May`: a name even where `may` is a common word
        m = m or _TAG_AFTER_SUBJ.match(piece)
        if m:
            return "I" if m.group(1) == "I" else scan.clean(m.group(1)) or None
    m = _TAG_BEFORE.search(before)
    if m:
        return "I" if m.group(1) == "I" else scan.clean(m.group(1)) or None
    return None


def _pron_tag(gaps: list[str], after: str, before: str) -> str | None:
    """The gender of a pronoun speech tag (`she said`, `added he`, `He answered:`), or None."""
    for piece in (*gaps, after):
        m = _PRON_AFTER.match(piece)
        if m:
            return _PRONOUN_GENDER[(m.group(1) or m.group(2)).lower()]
    m = _PRON_BEFORE.search(before)
    return _PRONOUN_GENDER[m.group(1).lower()] if m else None


def _vocatives(scan: _Scan, words: str) -> list[str]:
    out = []
    for m in _VOCATIVE.finditer(words):
        canon = scan.clean(m.group(1))
        if canon:
            out.append(canon)
    return out


def _pronoun_evidence(scan: _Scan, form: _Form) -> None:
    """`he`/`she` words after the form's mentions, up to the sentence end or the next capital."""
    text = scan.text
    for _, end in scan.mentions.get(form.surface, ())[:400]:
        for m in _PRONOUN.finditer(text, end, end + 80):
            if m.group(1):
                form.pron[_PRONOUN_GENDER[m.group(1)]] += 1
            break


def _gender_of(pron: Counter, strong: bool = False) -> str | None:
    m, f = pron["male"], pron["female"]
    need = 3 if strong else 1
    if m >= need and m >= 2 * f:
        return "male"
    if f >= need and f >= 2 * m:
        return "female"
    return None


_guesser = None


def _first_name_gender(name: str) -> str | None:
    """`gender-guesser`'s answer for a first name, when the optional package is installed."""
    global _guesser
    if _guesser is None:
        try:
            import gender_guesser.detector as gd

            _guesser = gd.Detector(case_sensitive=False)
        except ImportError:
            _guesser = False
    if not _guesser:
        return None
    g = _guesser.get_gender(name)
    return {"male": "male", "mostly_male": "male", "female": "female", "mostly_female": "female"}.get(g)


class _Person:
    def __init__(self, form: _Form):
        self.forms = [form]

    @property
    def cls(self) -> set:
        return {f.cls for f in self.forms if f.cls and f.cls != "the"}

    @property
    def count(self) -> int:
        return sum(f.count for f in self.forms)

    def gender(self) -> str | None:
        titles = Counter(f.gender for f in self.forms if f.gender)
        if titles:
            return titles.most_common(1)[0][0]
        g = _gender_of(sum((f.pron for f in self.forms), Counter()))
        return g or next((g for g in map(_form_gender, self.forms) if g), None)


def _form_gender(form: _Form) -> str | None:
    """The title's gender, else clear `he`/`she` evidence, else the first-name list (first names only)."""
    if form.gender:
        return form.gender
    g = _gender_of(form.pron, strong=True)
    if g or form.cls is not None or not (len(form.names) >= 2 or form.first):
        return g
    return _first_name_gender(form.names[0])


def _title_word(form: _Form) -> str | None:
    """The title class a `The <title>` form names (`The Marchioness` -> `marchioness`), else None."""
    if form.cls == "the" and len(form.names) == 1 and form.names[0] in _TITLES and form.names[0] != "The":
        return _TITLES[form.names[0]][0]
    return None


def _same_title(form: _Form, person: _Person) -> bool:
    if form.cls == "the":
        t = _title_word(form)
        return any(f.cls == "the" or (t and f.cls == t) for f in person.forms)
    return not (form.cls and person.cls and form.cls not in person.cls)


def _fits(form: _Form, person: _Person, together: Counter) -> bool:
    """Could `form` be another way of naming `person`? Titles and genders must agree; forms the text
    uses twice in one sentence (`Mr. Emerson and George`) are different people."""
    if not _same_title(form, person) or form.young != any(f.young for f in person.forms):
        return False
    if any(together[frozenset((form.surface, f.surface))] >= 2 for f in person.forms):
        return False
    g, pg = _form_gender(form), person.gender()
    if g and pg and g != pg:
        return False
    return any(_names_fit(form, f) for f in person.forms)


def _names_fit(form: _Form, f: _Form) -> bool:
    """`Fitzwilliam Darcy` in `Mr. Fitzwilliam Darcy`; `Darcy` in either; `Lady Catherine` in `Lady
    Catherine de Bourgh`; `Miss Elizabeth` in `Elizabeth Bennet`. A title with a surname fits a full
    name without title only for `Mr.`/`Miss` and a first name of that gender (`Mrs. Bennet` is never
    `Jane Bennet`, and `Mrs. Newland Archer` is Newland's wife)."""
    w = form.names
    t, tf = _title_word(form), _title_word(f)
    if t or tf:  # `The Marchioness` and `Marchioness Manson`
        return (t and f.cls == t) or (tf and form.cls == tf) or (form.cls == f.cls and w == f.names)
    if len(w) >= 2:
        return len(f.names) >= len(w) and w[-1] == f.names[-1] and _subsequence(w, f.names)
    if form.cls == "mrs" and f.cls == "mrs" and len(f.names) >= 2 and w[0] == f.names[-1]:
        return _first_name_gender(f.names[0]) == "female"  # `Mrs. Newland Archer` is Newland's wife
    if form.cls is None or f.cls == form.cls:  # `Mrs. Manson` is not `Mrs. Manson Mingott` when Manson is a surname
        return w[0] == f.names[-1] or (w[0] == f.names[0] and not (form.cls in ("mr", "mrs") and form.surname))
    if len(f.names) < 2:
        return False
    return (w[0] == f.names[0] and not (form.cls in ("mr", "mrs") and form.surname)) or (f.cls is None and form.cls in ("mr", "miss") and w[0] == f.names[-1]
                                  and _form_gender(f) == form.gender)


def _subsequence(short: tuple, long: tuple) -> bool:
    it = iter(long)
    return all(w in it for w in short)


def _choose(form: _Form, fits: list[_Person]) -> _Person | None:
    """The one person a bare word belongs to: the only fit, or the one of its gender that holds 80% of
    the mentions of the fits; None when the text does not tell."""
    if len(fits) > 1:
        g = _gender_of(form.pron, strong=True)
        fits = [p for p in fits if g and p.gender() in (g, None)] or fits
    if len(fits) == 1:
        return fits[0]
    titled = [p for p in fits if any(f.cls and f.names == form.names for f in p.forms)]
    if form.speaks >= 3 and len(titled) == 1:  # `said Sikes` and `said Mr. Sikes`: the surname's holder
        return titled[0]
    best = max(fits, key=lambda p: p.count)
    return best if best.count >= 0.8 * sum(p.count for p in fits) and _gender_of(form.pron) in (best.gender(), None) \
        else None


def _order(forms: list[_Form]) -> list[_Form]:
    """Merge order: full names (titled first), first names of full names, titled forms, other bare words."""
    firsts = {f.names[0] for f in forms if len(f.names) >= 2}
    lasts = {f.names[-1] for f in forms if len(f.names) >= 2}
    for f in forms:
        f.first = len(f.names) == 1 and f.cls is None and f.names[0] in firsts and f.names[0] not in lasts

    def rank(f: _Form) -> int:
        if len(f.names) >= 2:
            return 0 if f.cls else 1
        return 0 if f.first else 1 if f.cls else 2

    return sorted(forms, key=lambda f: (-min(len(f.names), 2), rank(f), -f.count))


def _merge(forms: list[_Form], together: Counter) -> list[_Person]:
    """People from name forms (see `_order`); a titled form that fits several people stands alone, a
    bare word that fits several goes to the one `_choose` picks, else stands alone if it tags at least
    three quotations, else is left out (`Bennet` among Mr., Mrs. and Jane Bennet)."""
    people: list[_Person] = []
    for form in _order(forms):
        fits = [p for p in people if _fits(form, p, together)]
        if not fits and len(form.names) == 2 and form.cls is None:
            fits = [p for p in people if _married(form, p, forms, together)]
        if len(form.names) == 1 and form.cls is None and fits:
            target = _choose(form, fits)
            if target:
                target.forms.append(form)
            elif form.speaks >= 3:  # a speaker the text names this way: listed apart rather than lost
                people.append(_Person(form))
        elif len(fits) == 1:
            fits[0].forms.append(form)
        else:
            people.append(_Person(form))
    return people


def _married(form: _Form, person: _Person, forms: list[_Form], together: Counter) -> bool:
    """`May Archer` is `May Welland` after her marriage: the same first name, a later first mention, never
    in one sentence with it, no male sign, and the new surname is a man's of another first name (`Mr.
    Archer`, `Newland Archer`) while the old one is not that man's."""
    first, new = form.names
    olds = [f for f in person.forms if len(f.names) == 2 and f.cls is None and f.names[0] == first
            and f.names[1] != new and f.at < form.at]
    if len(olds) != 1 or together[frozenset((form.surface, olds[0].surface))] or "male" in (
            _form_gender(form), person.gender()):
        return False
    husbands = [f for f in forms if f.names[-1] == new and f.names[0] != first
                and (f.cls == "mr" or (len(f.names) >= 2 and f.cls is None and _form_gender(f) == "male"))]
    return bool(husbands) and not any(f.names[-1] == olds[0].names[1] and f.names[0] == h.names[0]
                                      for f in forms for h in husbands if len(h.names) >= 2)


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
    forms = sorted(person.forms, key=lambda f: (f.count < 2, -len(f.names), -f.count))
    name = forms[0].surface  # the fullest name the text uses more than once
    aliases = [f.surface for f in sorted(person.forms, key=lambda f: -f.count) if f.surface != name]
    return CastMember(name=name, aliases=aliases, gender=person.gender(),
                      count=sum(f.count for f in person.forms),
                      speaks=sum(f.speaks for f in person.forms) + int(weak * _WEAK))


def _collect(text: str, scan: _Scan):
    """Speech-tag counts, vocative counts, narrator tag count and vocatives next to the narrator's lines."""
    paras = split_paragraphs(text)
    quotes = find_quotes(text, paras, detect_style(text)) if paras else []
    speaks, voc = Counter(), Counter()
    tags = []
    vocs = []
    prons = []  # (quotation index, gender) of pronoun tags
    for i, (q, (gaps, after, before)) in enumerate(zip(quotes, _pieces(text, paras, quotes))):
        who = _tag(scan, gaps, after, before)
        tags.append(who)
        if who:
            speaks[who] += 1
        else:
            g = _pron_tag(gaps, after, before)
            if g:
                prons.append((i, g))
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
    return quotes, speaks, voc, near, _apart(quotes, tags, vocs), paras, prons


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
        if surface in seeds or (len(ends) >= 2 and set(_split(surface)[2]) & words):
            cls, gender, names, _ = _split(surface)
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
    seen where the last word is only ever a first name elsewhere."""
    if len(form.names) < 2:
        return False
    others = [f for f in forms if len(f.names) >= 2 and f is not form]
    last = form.names[-1]
    return any(f.names[0] == last for f in others) and not any(f.names[-1] == last for f in others)


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
    quotes, speaks, voc, near, apart, paras, prons = _collect(text, scan)
    scan.index()
    scan.together.update(apart)
    forms = _forms(scan, speaks, voc)
    for f in forms:
        _pronoun_evidence(scan, f)
    people = _merge(forms, scan.together)
    weak = Counter(_resolve_pronouns(scan, people, quotes, paras, prons).values())
    members = [_member(p, weak[i]) for i, p in enumerate(people)]
    members = [m for m, p in zip(members, people) if sum(f.speaks for f in p.forms) or sum(voc[a] for a in [m.name, *m.aliases]) >= 2]
    return _narrator(members, speaks["I"], len(quotes), near)
