"""Stories: render lines in ChatHaruhi's text form and read/write `data/stories/<id>.jsonl`.

A story renders one line each: `Speaker:「words」` for dialogue, `旁白:words` for narration and
action (the ChatHaruhi convention, whatever the language).

A story record is an exchange story (someone speaks, then the character answers) or, marked
`"solo": true` (the last field), a solo story: the character's lines that answer no one, after
their occasion (pipeline/solo.py). Decision: the mark is written only on solo stories, so an
exchange story's record is the same bytes as before solo stories existed; a reader takes a
missing `solo` as false (`datasets` reads it as null there).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from extractors.atomic import atomic_open
from extractors.characters import AliasResolver
from extractors.errors import InputError
from extractors.records import Line, iter_json_rows

NARRATOR = "旁白"


def render_line(line: Line, resolver: AliasResolver | None = None) -> str:
    if line.kind != "dialogue":
        return f"{NARRATOR}:{line.text}"
    name = line.name.title() if line.name and line.name.isupper() else line.name
    if resolver is not None:
        who = resolver.display(line.speaker, fallback=name)
    else:
        who = name or line.speaker or "?"
    return f"{who}:「{line.text}」"


@dataclass
class Story:
    id: str
    character: str
    work: str
    source: str
    unit: str
    first_index: int
    last_index: int
    tokens: int
    speakers: list[str]
    exchanges: int
    text: str
    lines: list[dict] = field(default_factory=list)  # {speaker, name, kind, text}
    solo: bool = False  # the character's lines with no one to answer (written only when true)

    def record(self) -> dict:
        d = asdict(self)
        if not self.solo:
            del d["solo"]
        return d


def count_kinds(stories: list[Story]) -> dict[str, int]:
    """{'exchange': n, 'solo': m}: the stories of each kind."""
    solo = sum(1 for s in stories if s.solo)
    return {"exchange": len(stories) - solo, "solo": solo}


def write_stories(path: str | Path, stories: list[Story]) -> None:
    if not stories:
        raise InputError("no stories to write", path)
    with atomic_open(path) as fh:
        for s in stories:
            fh.write(json.dumps(s.record(), ensure_ascii=False) + "\n")


_STORY_TYPES = {"id": str, "character": str, "work": str, "source": str, "unit": str, "first_index": int,
                "last_index": int, "tokens": int, "speakers": list, "exchanges": int, "text": str, "lines": list,
                "solo": bool}


def story_from_dict(d: dict, path: str | Path, row: int) -> Story:
    """One story row, validated: missing or unknown fields and wrong types are an InputError naming the row."""
    missing = [k for k, f in Story.__dataclass_fields__.items() if k not in d and k not in ("lines", "solo")]
    if missing:
        raise InputError(f"malformed story row: missing field(s) {', '.join(missing)}", path, row)
    unknown = sorted(set(d) - set(_STORY_TYPES))
    if unknown:
        raise InputError(f"malformed story row: unknown field(s) {', '.join(unknown)}", path, row)
    for k, v in d.items():
        want = _STORY_TYPES[k]
        if not isinstance(v, want) or (want is int and isinstance(v, bool)):
            raise InputError(f"malformed story row: {k} must be {want.__name__}, not {type(v).__name__}", path, row)
    if not all(isinstance(x, str) for x in d["speakers"]) or not all(isinstance(x, dict) for x in d.get("lines", [])):
        raise InputError("malformed story row: speakers must be strings and lines objects", path, row)
    return Story(**d)


def read_stories(path: str | Path) -> list[Story]:
    """The stories of a `data/stories/<id>.jsonl`; a file that is not UTF-8 JSON lines, or a malformed row, is an
    InputError naming the file and the row."""
    path = Path(path)
    if not path.exists():
        raise InputError("no stories file; run `rolecorpus segment` first", path)
    out = [story_from_dict(d, path, row) for row, d in iter_json_rows(path)]
    if not out:
        raise InputError("stories file is empty", path)
    return out
