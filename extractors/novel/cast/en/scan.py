"""Step 1 and 2 of English cast discovery (`cast/en/discover.py`): name forms, speech tags and vocatives.

`_Scan` finds every capitalised name sequence with its titles (`Mr. Darcy`, `Lady Catherine de
Bourgh`, `the Mock Turtle`) and keeps the words the text writes capitalised mid-sentence; `_Form` is
one surface form with its counts; `_tag` / `_pron_tag` / `_role_tag` read the speech tag next to a quotation
(a name, a pronoun, a lower-case role noun) and `_vocatives` the people a quotation addresses.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from extractors.text import EN_CLAUSE_END_MARKS, NOT_AFTER_TITLE
from ...text.quotes import Quote
from ...text.speech_tags import VERBS_EN

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
_PRONOUN_GENDER = {"he": "male", "his": "male", "himself": "male",
                   "she": "female", "her": "female", "herself": "female"}
# words that are names only where the speech tags say so (`said Sunday`, `said Pooh`): days, months, seasons and
# the interjections that open a speech like a vocative (`"Hullo, …`, `"Lor, …`)
_TAG_ONLY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Christmas",
                   "January", "February", "March", "July", "September", "October", "November", "December",
                   "Spring", "Summer", "Winter",
                   "Ah", "Aha", "Alas", "Hullo", "Hallo", "Halloa", "Hello", "Lor", "Lawk", "Lawks", "Eh", "Hey", "Ahem",
                   "Hurrah", "Bravo", "Pooh", "Pshaw", "Bah", "Hush", "Aye", "Nay", "Lawd", "Lawdy", "Lordy", "Gawd")
_TAG_ONLY_RE = "|".join(_TAG_ONLY_NAMES)
_AFTER_QUOTE = r"[,;?!\u2014-][\"\u201d'\u2019][ \t]+"  # a closing quotation mark after a comma or a stop: `"Fine," `
_NOT_NAMES = {"I", "God", "Heaven", "Heavens", "Lord", "Christ", "Jesus", "Sir", "Madam", "Ma'am", "Oh", "O",
              "English", "French", "Chapter", "Mamma", "Papa", "Mama", "Pa", "Ma", "Esquire", "Esq", *_TAG_ONLY_NAMES}

_WORD = r"[A-Z](?:[a-z]+(?:-[A-Za-z][a-z]+)*|['’][A-Z][a-z]+)(?:[A-Z][a-z]+)?"
_DOTTED = {"Mr", "Mrs", "Ms", "Dr", "M", "Mme", "Mlle", "Capt", "Col", "Prof", "Rev"}
# a full stop only after an abbreviation: `Mr. Darcy`, never `cried the Inspector. He turned`
_TITLE = (r"(?:(?:" + "|".join(sorted(_DOTTED, key=len, reverse=True)) + r")\.?|(?:"
          + "|".join(sorted((t for t in _TITLES if t != "The" and t not in _DOTTED), key=len, reverse=True)) + r"))")
_PARTICLE = r"(?:de|du|da|di|del|della|van|von|der|la|le|of)"
_SEP = r"[ \t]*\n?[ \t]*"
# a leading particle (`van der Luyden`) is never followed by a title: `of Mr. Beebe` is `Mr. Beebe`, not `Beebe`
_NAME = (r"(?:(?:[Tt]he|" + "|".join(_MODIFIERS) + r")" + _SEP + r")?(?:" + _TITLE + _SEP + r"){0,2}"
         + r"(?:(?<=[.\s])" + _PARTICLE + _SEP + r"(?!" + _TITLE + r"(?![\w-]))){0,2}" + _WORD
         + r"(?:" + _SEP + r"(?:" + _PARTICLE + _SEP + r"|" + _TITLE + _SEP + r")?" + _WORD + r"){0,3}(?![\w-])")
_NAME_RE = re.compile(r"(?<![\w.])(?<!\w['’])" + _NAME)  # after an opening single quote too: `'Mr. Beebe is--'`
_NOT_POSS = r"(?!['’]s\b)"
_V = r"(?:" + VERBS_EN + r")\b"
_ADV = r"(?:\s+(?:\w+(?:-\w+)*ly|again|then|now|at\s+last|at\s+once|aloud|only|still|too|also|soon))*"
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
# `said the mariner`, `the matron said`, `"…," the beadle replied:`: a role noun (lower case) as the subject of a tag
_ROLE = r"the\s+([a-z]+)"
_ROLE_AFTER = re.compile(_LEAD + r"(?:and\s+)?" + _V + _ADV + r"\s+" + _ROLE + r"(?=\s*(?:[,.;:!?—–\-]|$))")
_ROLE_AFTER_SUBJ = re.compile(_LEAD + _ROLE + _ADV + r"\s+(?:had\s+|has\s+)?" + _V)
_ROLE_BEFORE = re.compile(r"(?:^|[.!?;]\s+|,\s+|\band\s+)[Tt]he\s+([a-z]+)" + _ADV + r"\s+(?:had\s+)?" + _V + _ADV
                          + r"(?:\s+(?:to|with|in|at)\s+(?:[\w'’]+\s+){0,3}?[\w'’]+)?\s*[,:—–-]?\s*$")
_VOCATIVE = re.compile(r"(?:^|[,;!?—]\s*|\b(?:[Dd]ear(?:est)?|[Mm]y|[Oo]h?|[Gg]ood|[Pp]oor)\s+)(" + _NAME
                       + r")(?=\s*(?:[,!?.;—]|$))")
_SENTENCE_END = re.compile(NOT_AFTER_TITLE + r"(?<!\s[A-Z])[" + EN_CLAUSE_END_MARKS + "]")
_PRONOUN = re.compile(r"\b(he|his|himself|she|her(?= [a-z])|herself)\b|[.!?;:\"“”‘’]|\b[A-Z]")


def title_class(word: str) -> str | None:
    """The kind of title a word is, titles of one kind being interchangeable (`mr` for Mr./Monsieur/Signor, `mrs`,
    `miss`, `lady`, ...); None for a word that is no title."""
    return _TITLES.get(word.rstrip("."), (None, None))[0]


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
    role: bool = False             # a role noun of lower-case tags (`The Mariner` from `said the mariner`)

    @property
    def young(self) -> bool:  # `Young Tom` is not `Tom Gradgrind`'s father
        return self.surface.startswith("Young ") or " Young " in self.surface


def _name_parts(word: str) -> tuple[str, ...]:
    """`Winnie-the-Pooh` -> (`Winnie`, `Pooh`): a name hyphenated with lower-case words is its capitalised parts
    (so `Pooh` alone is the same bear); `Mary-Anne` stays one name."""
    parts = word.split("-")
    if len(parts) < 3 or not any(p[:1].islower() for p in parts[1:-1]):
        return (word,)
    return tuple(p for p in parts if p[:1].isupper())


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
    names = tuple(p for w in rest if w[:1].isupper() for p in _name_parts(w))
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
        # `"Fine," Tom said.` / `"Where?" Cohn asked.`: a name that opens a speech tag after the quotation
        self.cap_mid.update(m.group(1) for m in re.finditer(_AFTER_QUOTE + r"(" + _WORD + r")[ \t]+" + _V, text))
        # a day's name or an interjection that speech tags after quotations use as a name at least 3 times
        # (`said Sunday`, `said Pooh`; not `said Hullo` once)
        tagged = Counter(m.group(1) or m.group(2) for m in re.finditer(
            _AFTER_QUOTE + r"(?:" + _V + r"[ \t]+(" + _TAG_ONLY_RE + r")\b|(" + _TAG_ONLY_RE + r")[ \t]+" + _V + ")", text))
        self.tag_names = {w for w, n in tagged.items() if n >= 3}
        self.trusted: set[str] = set()      # words a speech tag used as a name (`said May`)
        self.mentions: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.together: Counter = Counter()  # frozenset({form, form}) -> sentences naming both

    def index(self) -> None:
        seq = []
        cleaned: dict[str, str] = {}  # `clean` depends on the surface only while indexing: once per surface
        for m in _NAME_RE.finditer(self.text):
            surface = m.group(0)
            canon = cleaned.get(surface)
            if canon is None:
                canon = cleaned[surface] = self.clean(surface)
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
        if (word in _NOT_NAMES and word not in self.tag_names) or word in _TITLES:
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


def _role_tag(gaps: list[str], after: str, before: str) -> str | None:
    """The role noun of a tag whose subject is a lower-case description (`said the mariner` -> `mariner`), or None."""
    for piece in (*gaps, after):
        m = _ROLE_AFTER.match(piece) or _ROLE_AFTER_SUBJ.match(piece)
        if m:
            return m.group(1)
    m = _ROLE_BEFORE.search(before)
    return m.group(1) if m else None


def _vocatives(scan: _Scan, words: str) -> list[str]:
    out = []
    for m in _VOCATIVE.finditer(words):
        canon = scan.clean(m.group(1))
        if canon:
            out.append(canon)
    return out


def _pronoun_evidence(scan: _Scan, form: _Form) -> None:
    """`he`/`she` words after the form's mentions, up to the sentence end or the next capital. A possessive
    `her` (`May shook her head`) counts; an object `her` (`kissed her.`) does not: it is someone else."""
    text = scan.text
    for _, end in scan.mentions.get(form.surface, ())[:400]:
        for m in _PRONOUN.finditer(text, end, end + 80):
            if m.group(1):
                form.pron[_PRONOUN_GENDER[m.group(1)]] += 1
            break
