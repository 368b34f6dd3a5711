"""Family relations derived from the character list alone: surnames, married couples, parents.

Character lists rarely say who is whose mother, but the names do: `Mr. X` and `Mrs. X` (or
`Sir … X` and `Lady X`) are a married couple; `Miss X` or a first name followed by surname X
(from the list, or written as `Elizabeth X` in the novel) is one of their children. From that:

- `relatives("mother", p)`: the married women `Mrs./Lady X` for a surname X of p;
- `father`: `Mr./Sir X` when a `Mrs./Lady X` exists; `wife` / `husband`: the other half of the couple;
- `sister` / `brother`, `daughter` / `son`: the unmarried people sharing the surname.

So `"…," said her mother` in a scene with Elizabeth (surname Bennet) resolves to `Mrs. Bennet`
without any book-specific knowledge. `shared_miss(surface)`: `Miss X` when several unmarried
women share surname X, `shared_mr(surface)`: `Mr. X` when several men do (used as a form of address for any of
them).
"""

from __future__ import annotations

import re
from collections import Counter

from extractors.characters import Character

_MARRIED_F = ("mrs", "lady", "madame", "mme")
_MARRIED_M = ("mr", "sir", "lord")
_UNMARRIED_F = ("miss", "ms")
_OTHER_M = ("colonel", "captain", "col", "capt", "dr", "doctor", "master", "major", "general", "admiral", "rev", "reverend")
_PARTICLES = {"de", "van", "von", "du", "la", "le", "di", "da"}
_TITLE = re.compile(r"^(mrs|mr|ms|miss|lady|sir|lord|madame|mme|colonel|captain|col|capt|dr|doctor|master|major|general|"
                    r"admiral|rev|reverend)\.?\s+(.+)$", re.I)

KIN_NOUNS = ("mother", "father", "wife", "husband", "sister", "brother", "daughter", "son", "parent", "mamma", "papa")


def _tokens(rest: str) -> list[str]:
    rest = re.split(r"\s+of\s+|'|’|,", rest, flags=re.I)[0]
    return [t for t in rest.split() if t]


def _surname(tokens: list[str]) -> str | None:
    if not tokens or not tokens[-1][:1].isupper():
        return None
    k = len(tokens) - 1
    while k > 0 and tokens[k - 1].lower() in _PARTICLES:
        k -= 1
    return " ".join(tokens[k:]).lower()


class Kinship:
    def __init__(self, characters: list[Character], gender: dict[str, str | None], text: str | None = None,
                 lookup=None):
        self.gender = gender
        self.named: dict[tuple[str, str], set[str]] = {}  # (noun, cid) -> characters named `<cid>'s <noun>`
        self.surnames: dict[str, set[str]] = {}
        self.married: dict[str, set[str]] = {}    # cid -> surnames carried with Mrs./Lady (women) or Mr./Sir (men)
        self.miss: dict[str, set[str]] = {}       # cid -> surnames carried with Miss/Ms
        self.first: dict[str, set[str]] = {}      # cid -> first names (a name without title, first token)
        single_lady: list[tuple[str, str, str]] = []
        for c in characters:
            s, m, ms, fs = set(), set(), set(), set()
            names = [re.sub(r"^(?:the|a|an|my\s+dear(?:est)?)\s+", "", " ".join(str(n).split()), flags=re.I)
                     for n in dict.fromkeys([c.name, *c.aliases])]
            for n in names:  # `Alice's Sister`, `Mr. Collins' Father`: the relation is in the name
                pm = re.match(r"^(.+?)['’]s?\s+(" + "|".join(KIN_NOUNS) + r")$", n, re.I)
                owner = lookup(pm.group(1)) if pm and lookup else None
                if owner:
                    self.named.setdefault((pm.group(2).lower(), owner), set()).add(c.id)
            names = [n for n in names if n and "'" not in n and "’" not in n]
            for n in names:  # first names: the first word of a name without a title (`Lizzy`, `Charlotte Lucas`)
                toks = _tokens(n)
                if not _TITLE.match(n) and toks and toks[0][:1].isupper():
                    fs.add(toks[0])
            for n in names:
                tm = _TITLE.match(n)
                if tm:
                    title, toks = tm.group(1).lower(), _tokens(tm.group(2))
                    if not toks:
                        continue
                    if title in ("lady", "sir", "lord") and len(toks) == 1:
                        single_lady.append((c.id, title, toks[0]))  # `Lady Catherine` or `Lady Lucas`: decided below
                        continue
                    if title in ("lady", "sir", "lord"):
                        toks = toks[1:]
                    x = _surname(toks)
                    if not x or (title in ("miss", "ms", "master") and len(toks) == 1 and toks[0] in fs):  # `Miss Eliza`
                        continue
                    s.add(x)
                    if title in _MARRIED_F or title in _MARRIED_M:
                        m.add(x)
                    elif title in _UNMARRIED_F:
                        ms.add(x)
                else:
                    toks = _tokens(n)
                    if len(toks) >= 2 and all(t[:1].isupper() or t.lower() in _PARTICLES for t in toks):
                        x = _surname(toks)
                        if x:
                            s.add(x)
            self.surnames[c.id], self.married[c.id], self.miss[c.id], self.first[c.id] = s, m, ms, fs
        known = set().union(*self.surnames.values()) if self.surnames else set()
        for cid, title, tok in single_lady:
            if tok.lower() in known:
                self.surnames[cid].add(tok.lower())
                self.married[cid].add(tok.lower())
        for cid in self.married:  # `Mr. X` says nothing of marriage unless a `Mrs./Lady X` exists
            if self.gender.get(cid) == "male":
                self.married[cid] = {x for x in self.married[cid]
                                     if any(x in self.married[o] for o in self.married if self.gender.get(o) == "female"
                                            and o != cid and x not in self.miss[o])}
        if text:
            self._surnames_from_text(text, known)
        # a woman named both `Miss X` and `Mrs. X` (inconsistent list): neither mother nor daughter of X
        for cid in self.married:
            clash = self.married[cid] & self.miss[cid]
            self.married[cid] -= clash

    def _surnames_from_text(self, text: str, known: set[str]) -> None:
        """`Elizabeth Bennet` in the novel: a first-name-only character gets the surname written
        after her first name (the most frequent known surname, at least twice, or once if unique)."""
        if not known:
            return
        owners_first: Counter = Counter(f for fs in self.first.values() for f in fs)
        firsts = {f: cid for cid, fs in self.first.items() for f in fs if owners_first[f] == 1}
        if not firsts:
            return
        alt = "|".join(sorted((re.escape(k.title()) for k in known), key=len, reverse=True))
        fal = "|".join(sorted((re.escape(f) for f in firsts), key=len, reverse=True))
        seen: dict[str, Counter] = {}
        for m in re.finditer(r"\b(" + fal + r")\s+(" + alt + r")\b", text):
            seen.setdefault(firsts[m.group(1)], Counter())[m.group(2).lower()] += 1
        for cid, cnt in seen.items():
            x, n = cnt.most_common(1)[0]
            if n >= 2 or len(cnt) == 1:
                self.surnames[cid].add(x)

    # ---- relations -------------------------------------------------------------------------
    def _is_married_x(self, cid: str, x: str) -> bool:
        return x in self.married.get(cid, set())

    def _couple(self, x: str) -> tuple[set[str], set[str]]:
        wives = {c for c in self.married if self._is_married_x(c, x) and self.gender.get(c) == "female"}
        husbands = {c for c in self.married if self._is_married_x(c, x) and self.gender.get(c) == "male"}
        return wives, husbands

    def relatives(self, noun: str, p: str) -> set[str]:
        """Characters who can be p's `noun` (mother, father, wife, husband, sister, brother,
        daughter, son)."""
        noun = {"mamma": "mother", "papa": "father"}.get(noun, noun)
        out: set[str] = set(self.named.get((noun, p), ()))
        gp = self.gender.get(p)
        for x in self.surnames.get(p, ()):
            wives, husbands = self._couple(x)
            wives.discard(p)
            husbands.discard(p)
            p_parent = self._is_married_x(p, x)
            children = {c for c, s in self.surnames.items() if x in s and c != p and not self._is_married_x(c, x)}
            if noun == "mother" and not p_parent:
                out |= wives
            elif noun == "father" and not p_parent and wives:
                out |= husbands
            elif noun == "wife" and gp == "male" and p_parent:
                out |= wives
            elif noun == "husband" and gp == "female" and p_parent:
                out |= husbands
            elif noun in ("sister", "brother") and not p_parent:
                want = "female" if noun == "sister" else "male"
                out |= {c for c in children if self.gender.get(c) == want}
            elif noun in ("daughter", "son") and p_parent:
                want = "female" if noun == "daughter" else "male"
                out |= {c for c in children if self.gender.get(c) == want}
        return out

    def shared_miss(self, surface: str) -> set[str]:
        """`Miss X` as a form of address when several unmarried women share surname X: all of them."""
        return self._shared(surface, r"(?:miss|ms)",
                            lambda c, x: self.gender.get(c) == "female" and not self._is_married_x(c, x))

    def shared_mr(self, surface: str) -> set[str]:
        """`Mr. X` as a form of address when several men share surname X (a father and his son, `Mr. Emerson` said to
        George Emerson; `Mr. Wilcox` to Charles): all of them."""
        return self._shared(surface, r"mr", lambda c, x: self.gender.get(c) == "male")

    def _shared(self, surface: str, title: str, fits) -> set[str]:
        """The people of surname X that `fits(cid, X)` keeps, for `<title> X`, when there are two or more."""
        m = re.match(r"^(?:my\s+dear(?:est)?\s+)?" + title + r"\.?\s+(.+)$", " ".join(surface.split()), re.I)
        x = _surname(_tokens(m.group(1))) if m else None
        if not x:
            return set()
        out = {c for c, s in self.surnames.items() if x in s and fits(c, x)}
        return out if len(out) >= 2 else set()
