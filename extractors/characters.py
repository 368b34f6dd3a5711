"""Character configs (`configs/characters/<id>.yaml`) and the alias resolver every stage uses.

A character file is validated by the `Character` model (a pydantic dataclass, `extra="forbid"`): an unknown
key or a wrong type is an error naming the key and the file.

Names are matched case- and punctuation-tolerantly: `ROSALIND`, `Rosalind` and `Ros.` (if
listed as an alias) all resolve to `rosalind`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, field
from pathlib import Path
from typing import Literal, Optional

import yaml
from pydantic import ConfigDict, ValidationError, field_validator
from pydantic.dataclasses import dataclass

from .atomic import atomic_write_text
from .errors import InputError
from .ids import check_id
from .yamlio import load_yaml

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]*$|^[\u4e00-\u9fff][\u4e00-\u9fff0-9_\-]*$")


@dataclass(config=ConfigDict(extra="forbid"))
class Character:
    id: str
    name: str
    series: str
    language: str = "en"
    aliases: list[str] = field(default_factory=list)
    gender: Optional[Literal["male", "female"]] = None  # used for pronoun resolution
    personality: str = ""
    sources: list[str] = field(default_factory=list)
    narrator: bool = False  # the first-person narrator of a novel: `said I`, `I answered`, `我道` are theirs
    # how often the text names a discovered cast member (`cast.discover_cast`); None for a configured character.
    # Attribution lowers the confidence of turn-taking guesses for a rarely named one. Never written to a file,
    # never read from one (`mentions:` in a character file is an unknown key).
    mentions: Optional[int] = None
    # the works configs/pipeline.yaml links the character to (`characters: ID: {work: ...}`): filled by the
    # pipeline when it loads the project, never read from or written to the character's own file
    works: list[str] = field(default_factory=list)

    @field_validator("aliases", "sources", mode="before")
    @classmethod
    def _strings(cls, v):  # YAML reads `aliases: [1984]` as a number; `aliases:` alone as null
        return [str(x) for x in (v or [])] if isinstance(v, (list, tuple)) or v is None else v  # else: pydantic says

    @field_validator("personality", mode="before")
    @classmethod
    def _text(cls, v):
        return v or ""

    def names(self) -> list[str]:
        return [self.id, self.name, *self.aliases]


def normalize_name(name: str) -> str:
    """Fold case, width and punctuation: 'ROS.' -> 'ros', 'Duke  Senior' -> 'duke senior'."""
    s = unicodedata.normalize("NFKC", name).casefold()
    s = "".join(ch if (ch.isalnum() or ch.isspace()) else " " for ch in s)
    return " ".join(s.split())


def slug(name: str) -> str:
    """A stable id for a speaker that has no config: 'DUKE SENIOR' -> 'duke_senior'."""
    n = normalize_name(name)
    return re.sub(r"\s+", "_", n) or "unknown"


def character_path(config_dir: str | Path, cid: str) -> Path:
    return Path(config_dir) / "characters" / f"{cid}.yaml"


def _problem(e: ValidationError) -> str:
    err = e.errors()[0]
    key = ".".join(str(p) for p in err["loc"]) or "(top level)"
    if err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"unknown key {key}"
    if err["type"] in ("missing", "missing_argument"):
        return f"missing key {key} (a character config needs at least 'name' and 'series')"
    return f"{key}: {err['msg'].lower()} (got {err.get('input')!r})"


def load_character(path: str | Path) -> Character:
    path = Path(path)
    data = load_yaml(path)  # UTF-8, no repeated key, no alias bomb
    if not isinstance(data, dict) or "name" not in data:
        raise InputError("character config needs at least 'name' and 'series'", path)
    data.setdefault("id", path.stem)
    if data["id"] != path.stem:  # the id names the package folder and the stories file: one id, one file
        raise InputError(f"id {data['id']!r} differs from the file name; a character's id is its file name "
                         f"({path.stem!r})", path)
    data.setdefault("series", "")
    if "mentions" in data:  # counted by discovery in one text, never configured
        raise InputError("unknown key mentions", path)
    if "works" in data:
        raise InputError("unknown key works (a character is linked to works in configs/pipeline.yaml, "
                         "`characters: ID: {work: W}`: `rolecorpus add-character ID --work W`)", path)
    try:
        return Character(**data)
    except ValidationError as e:
        raise InputError(_problem(e), path) from None


MAX_NAME = 200  # a display name or alias; a personality note may be longer
MAX_PERSONALITY = 4000


def save_character(config_dir: str | Path, ch: Character) -> Path:
    """Write configs/characters/<id>.yaml, after the checks the loader applies to it and to the other characters
    (one name, one character per series): a write never leaves a project whose characters do not load."""
    if check_id(ch.id, "character id") and not ID_RE.fullmatch(ch.id):
        raise InputError(f"character id {ch.id!r} must be lowercase letters, digits, '-' or '_'")
    for what, value in (("name", ch.name), *(("alias", a) for a in ch.aliases)):
        if not value.strip() or len(value) > MAX_NAME or any(c in value for c in "\n\r\t\x00"):
            raise InputError(f"{what} {value[:40]!r} must be one line of 1 to {MAX_NAME} characters")
    if len(ch.personality) > MAX_PERSONALITY:
        raise InputError(f"personality is longer than {MAX_PERSONALITY} characters")
    path = character_path(config_dir, ch.id)
    data = {k: v for k, v in asdict(ch).items() if k not in ("mentions", "works")}  # not the file's facts
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    again = Character(**{**yaml.safe_load(text), "id": ch.id, "works": ch.works})  # what the loader will read back
    others = {c.id: c for c in _load_others(config_dir, ch.id)}
    check_characters({**others, ch.id: again}, Path(config_dir) / "characters")
    atomic_write_text(path, text)
    return path


def _load_others(config_dir: str | Path, cid: str) -> list[Character]:
    d = Path(config_dir) / "characters"
    return [load_character(p) for p in sorted(d.glob("*.yaml")) if p.stem != cid] if d.is_dir() else []


def load_characters(config_dir: str | Path) -> dict[str, Character]:
    d = Path(config_dir) / "characters"
    if not d.is_dir():
        return {}
    chars = {c.id: c for c in (load_character(p) for p in sorted(d.glob("*.yaml")))}
    check_characters(chars, d)
    return chars


def check_characters(chars: dict[str, Character], folder: Path) -> None:
    """A name (id, name or alias, as matched: case and punctuation folded) that two characters of one series both
    claim would give every line of that name to whichever file sorts first: refuse it, naming both files.
    (Two series may each have their John.)"""
    owner: dict[tuple[str, str], str] = {}
    for cid, ch in chars.items():
        for n in dict.fromkeys(normalize_name(x) for x in ch.names()):
            key = (normalize_name(ch.series), n)
            if n and owner.setdefault(key, cid) != cid:
                other = owner[key]
                raise InputError(f"the name {n!r} is also a name of {other!r} ({folder / (other + '.yaml')}) in the same "
                                 "series; a name may belong to one character only", folder / f"{cid}.yaml")


def get_character(config_dir: str | Path, cid: str) -> Character:
    path = character_path(config_dir, check_id(cid, "character id"))
    if not path.exists():
        known = ", ".join(sorted(load_characters(config_dir))) or "none"
        raise InputError(f"unknown character id {cid!r} (known: {known}); add it with `rolecorpus add-character`")
    return load_character(path)


class AliasResolver:
    """Map every name a source uses to one character id."""

    def __init__(self, characters: dict[str, Character] | list[Character] | None = None):
        chars = characters.values() if isinstance(characters, dict) else (characters or [])
        self.characters: dict[str, Character] = {}
        self._map: dict[str, str] = {}
        for ch in chars:
            self.add(ch)

    def add(self, ch: Character) -> None:
        self.characters[ch.id] = ch
        for n in ch.names():
            key = normalize_name(n)
            if key:
                self._map.setdefault(key, ch.id)

    def resolve(self, name: str | None) -> str | None:
        """The character id for `name`, or None when no config lists it."""
        if not name:
            return None
        return self._map.get(normalize_name(name))

    def speaker_id(self, name: str) -> str:
        """A configured id when the name is known, else a slug of the name itself."""
        return self.resolve(name) or slug(name)

    def display(self, speaker: str | None, fallback: str | None = None) -> str:
        if speaker and speaker in self.characters:
            return self.characters[speaker].name
        return fallback or speaker or "?"

    def surface_forms(self) -> dict[str, str]:
        """All normalised names -> id (for text search)."""
        return dict(self._map)
