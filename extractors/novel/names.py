"""Find character mentions in narration: every name, alias and title form of the configured characters.

Aliases come only from the character configs (or the PDNC character list). Derived forms:
`Mr. Darcy` also matches `Mr Darcy`; `The Hatter` also matches `the Hatter` and `a Hatter`.
A name must be written with a capital letter (so the character `Time` is not found in
"a long time"). When one surface form belongs to several characters it goes to the first one
configured (callers list major characters first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractors.characters import Character

_TITLE_RE = re.compile(r"^(Mr|Mrs|Ms|Dr|St|Capt|Col)\.\s*", re.I)
_ARTICLE_RE = re.compile(r"^(the|a|an)\s+", re.I)


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
        pats = sorted(self.forms, key=len, reverse=True)
        if not pats:
            self.regex = None
        elif language == "zh":
            self.regex = re.compile("|".join(re.escape(p) for p in pats))
        else:
            alt = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in pats)
            self.regex = re.compile(r"(?<![\w'])(?:(?:the|a|an)\s+)?(" + alt + r")(?![\w])(?!'s?\w)", re.I)

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

    def mentions(self, text: str, start: int = 0, end: int | None = None) -> list[Mention]:
        if self.regex is None:
            return []
        end = len(text) if end is None else end
        out = []
        for m in self.regex.finditer(text, start, end):
            name = m.group(1) if self.language != "zh" else m.group(0)
            if self.language != "zh" and not name[:1].isupper():
                continue
            cid = self.forms.get(" ".join(name.split()).casefold())
            if cid:
                out.append(Mention(m.start(), m.end(), cid, m.group(0)))
        return out
