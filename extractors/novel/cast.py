"""Meet the cast of a novel before attributing it: the people who speak or are spoken to, with the
aliases that belong together, a gender guess, counts, and the first-person narrator.

`discover_cast(text, language)` is the one entry point; English rules live in `cast_en.py`, Chinese
(jieba person-name tagging) in `cast_zh.py`. `CastMember.to_character()` turns a member into the
`Character` every other stage uses, so `extract novel` on a work with no configured characters runs
on the discovered cast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from extractors.characters import Character, slug


@dataclass
class CastMember:
    name: str                                   # the fullest name the text uses (`Fitzwilliam Darcy`, `王熙凤`)
    aliases: list[str] = field(default_factory=list)   # other surface forms that belong to the same person
    gender: str | None = None                   # male / female / None
    count: int = 0                              # mentions in the text (all forms)
    speaks: float = 0                           # speech tags naming them (a pronoun tag resolved to them counts 0.5)
    narrator: bool = False                      # the first-person narrator (`said I`, `我道`)

    @property
    def id(self) -> str:
        return slug(self.name)

    def to_character(self, series: str, language: str = "en") -> Character:
        return Character(id=self.id, name=self.name, series=series, language=language,
                         aliases=[a for a in self.aliases if a != self.name], gender=self.gender,
                         narrator=self.narrator)


def discover_cast(text: str, language: str, top: int | None = None) -> list[CastMember]:
    """The cast of a novel, most frequent speaker first (`speaks`, then `count`); `top` keeps the first N."""
    if language == "zh":
        from .cast_zh import discover_zh as find
    else:
        from .cast_en import discover_en as find
    cast = find(text)
    cast.sort(key=lambda m: (-m.speaks, -m.count, m.name))
    return cast[:top] if top else cast
