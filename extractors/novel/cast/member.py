"""One member of a discovered cast (`cast.discover_cast`): names, gender guess, counts, narrator flag."""

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
    lines: int = 0                              # quotations the rules give them at the default hold (`cast.rank`)

    @property
    def id(self) -> str:
        return slug(self.name)

    def to_character(self, series: str, language: str = "en") -> Character:
        return Character(id=self.id, name=self.name, series=series, language=language,
                         aliases=[a for a in self.aliases if a != self.name], gender=self.gender,
                         narrator=self.narrator, mentions=self.count)
