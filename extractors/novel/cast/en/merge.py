"""Step 3 and 4 of English cast discovery (`cast/en/discover.py`): which name forms are one person, and their gender.

`_merge` joins forms fullest first (`Mr. Fitzwilliam Darcy` absorbs `Fitzwilliam Darcy`; `Mr. Darcy`
joins the one full name it fits; a bare `Darcy` the one person it fits, or the one whose pronouns
match); different titles, genders or first names never merge, except that a professional title joins
someone only ever called `Mr.` (`Doctor Losberne`, written once, is `Mr. Losberne`, whom `said the doctor` then
finds), and a `Mr.`/`Miss` surname that fits no one joins the one full name the text gives that surname (`Miss
Bartlett` is `Charlotte Bartlett`; after the merge, full names of the other gender no longer count: `Mr. Bounderby` is
`Josiah Bounderby`, not `Loo Bounderby`). A surname no man bears joins its `Mrs.`/`Madame`/`Countess` forms to the
one person holding a title-less full name of it (`join_her_surname`: `Madame Olenska` is `Ellen Olenska`).
`_married` recognises a married name (`May Archer` is `May Welland`). Gender comes from titles, then pronouns,
never from a first-name list (one joined `Mr. Gradgrind` to his son `Tom Gradgrind`).
"""

from __future__ import annotations

from collections import Counter

from .scan import _TITLES, _Form

def _gender_of(pron: Counter, strong: bool = False) -> str | None:
    m, f = pron["male"], pron["female"]
    need = 3 if strong else 1
    if m >= need and m >= 2 * f:
        return "male"
    if f >= need and f >= 2 * m:
        return "female"
    return None


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
    """The title's gender, else clear `he`/`she` evidence."""
    return form.gender or _gender_of(form.pron, strong=True)


def _title_word(form: _Form) -> str | None:
    """The title class a `The <title>` form names (`The Marchioness` -> `marchioness`), else None."""
    if form.cls == "the" and len(form.names) == 1 and form.names[0] in _TITLES and form.names[0] != "The":
        return _TITLES[form.names[0]][0]
    return None


# professional titles a man is also called `Mr.` by (`Doctor Losberne` is `Mr. Losberne`)
ROLE_CLASSES = frozenset({"dr", "captain", "colonel", "major", "general", "lieutenant", "sergeant", "inspector",
                          "professor"})


def _same_title(form: _Form, person: _Person) -> bool:
    if form.cls == "the":
        t = _title_word(form)
        return any(f.cls == "the" or (t and f.cls == t) for f in person.forms)
    if _role_and_mr(form.cls, person.cls):
        return True
    return not (form.cls and person.cls and form.cls not in person.cls)


def _role_and_mr(cls: str | None, others: set) -> bool:
    """A professional title joining someone only ever called `Mr.` (never `Mr. Fussell` joining `Colonel Fussell`:
    in Howards End that is his son)."""
    return cls in ROLE_CLASSES and others == {"mr"}


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
        return False  # `Mrs. Newland Archer` is Newland's wife (whether a first name is a woman's is not guessed)
    if form.cls is None or f.cls == form.cls:  # `Mrs. Manson` is not `Mrs. Manson Mingott` when Manson is a surname
        return w[0] == f.names[-1] or (w[0] == f.names[0] and not (form.cls in ("mr", "mrs") and form.surname))
    if _role_and_mr(form.cls, {f.cls}):
        return w == f.names            # `Doctor Losberne` and `Mr. Losberne`
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
        elif not fits and (sole := _sole_full_name(form, people, forms)):
            sole.forms.append(form)
        else:
            people.append(_Person(form))
    return _join_titled_surnames(people, forms)


def _join_titled_surnames(people: list[_Person], forms: list[_Form]) -> list[_Person]:
    """After the merge, when every person's gender is known: a person only ever called by one `Mr.`/`Miss`
    surname joins the one person of the title's gender holding a title-less full name of that surname
    (`Mr. Bounderby` and `Josiah Bounderby`; `Loo Bounderby`, a woman, does not count against it)."""
    out = list(people)
    for p in people:
        form = p.forms[0]
        if len(p.forms) != 1 or len(form.names) != 1 or form.cls not in ("mr", "miss"):
            continue
        owners = {id(q): q for f in forms if f.cls is None and len(f.names) >= 2 and f.names[-1] == form.names[0]
                  for q in out if f in q.forms and q.gender() != _OTHER[form.gender]}
        if len(owners) == 1 and (q := next(iter(owners.values()))) is not p and q.gender() == form.gender \
                and not q.cls:
            q.forms.append(form)
            out.remove(p)
    return out


_WIFE = frozenset({"mrs", "lady", "countess", "duchess", "marchioness", "baroness", "dame"})


def join_her_surname(people: list[_Person], forms: list[_Form]) -> list[_Person]:
    """A surname only women bear: a person called only by a wife's title and that surname joins the one person
    holding a title-less full name of it, never someone called `Miss` (a daughter). `Madame Olenska` and `Countess
    Olenska` join `Ellen Olenska`; `The Marchioness`, also called `Marchioness Manson`, joins `Medora Manson`. Run
    after `answered_merges`, which joins `Mrs. Rachel Lynde` to `Mrs. Rachel` only while she is seldom tagged."""
    out = list(people)
    owner = {id(f): q for q in out for f in q.forms}
    for x in sorted({f.names[-1] for f in forms if len(f.names) >= 2 and f.cls is None}):
        mine = [f for f in forms if f.names[-1] == x and id(f) in owner]
        if any(owner[id(f)].gender() == "male" or f.gender == "male" for f in mine):
            continue
        full = {id(owner[id(f)]): owner[id(f)] for f in mine if f.cls is None and len(f.names) >= 2}
        if len(full) != 1:
            continue
        q = next(iter(full.values()))
        if q.gender() != "female" or "miss" in q.cls:
            continue
        for p in {id(owner[id(f)]): owner[id(f)] for f in mine}.values():
            if p is not q and p in out and all((f.cls in _WIFE and f.names == (x,)) or _title_word(f) in _WIFE
                                                   for f in p.forms):
                q.forms.extend(p.forms)
                out.remove(p)
    return out


_OTHER = {"male": "female", "female": "male", None: "?"}


def _sole_full_name(form: _Form, people: list[_Person], forms: list[_Form]) -> _Person | None:
    """`Miss Bartlett` and `Charlotte Bartlett`, a full name seldom followed by a pronoun of its own: a `Mr.`/`Miss`
    surname joins the one full name the text gives that surname, when that person is of the title's gender and has
    no title. Genders are still partial here (`Loo Bounderby` has none yet): `_join_titled_surnames` looks again at the end."""
    if form.cls not in ("mr", "miss") or len(form.names) != 1 or not form.gender:
        return None
    full = [f for f in forms if f.cls is None and len(f.names) >= 2 and f.names[-1] == form.names[0]]
    if len(full) != 1:
        return None
    owner = [p for p in people if full[0] in p.forms]
    if len(owner) != 1 or owner[0].gender() != form.gender or owner[0].cls:
        return None
    return owner[0]


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
