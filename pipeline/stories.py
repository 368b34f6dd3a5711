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
from extractors.records import Line

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


def read_stories(path: str | Path) -> list[Story]:
    path = Path(path)
    if not path.exists():
        raise InputError("no stories file; run `rolecorpus segment` first", path)
    out = []
    with open(path, encoding="utf-8") as fh:
        for row, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                out.append(Story(**json.loads(raw)))
            except (json.JSONDecodeError, TypeError) as e:
                raise InputError(f"malformed story row ({e})", path, row) from None
    if not out:
        raise InputError("stories file is empty", path)
    return out
