"""The line record every extractor emits (docs/design.md), and reading/writing `lines.jsonl`.

A line is one utterance, action or piece of narration. Reading validates every row and names
the first malformed one; writing is atomic.
"""

from __future__ import annotations

import json
from collections import Counter
from copy import deepcopy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Iterable, Iterator

import jsonlines

from .atomic import atomic_open
from .errors import InputError

KINDS = ("dialogue", "action", "narration")
EVIDENCE = ("subtitle", "script", "explicit-verb", "alias", "turn-taking", "llm", "voice", "manual")


@dataclass
class Line:
    work: str
    source: str
    unit: str
    index: int
    kind: str
    text: str
    speaker: str | None = None
    name: str | None = None  # the speaker as the source writes it (cue, tag, subtitle name)
    start: float | None = None
    end: float | None = None
    confidence: float | None = None
    evidence: str | None = None
    extra: dict = field(default_factory=dict)  # extractor-specific details (offsets, guesses…)

    def to_dict(self) -> dict:
        """The row as written: every field in order (a copy, as `asdict` gives), `extra` only when it holds something."""
        d = {name: getattr(self, name) for name in _ORDER}
        if self.extra:
            d["extra"] = _plain(self.extra)
        return d


def _plain(value):
    """What `dataclasses.asdict` makes of a field value (containers copied, dataclasses as dicts), without
    its per-value overhead: writing a novel's lines spent most of its time there."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    if type(value) is list:
        return [_plain(v) for v in value]
    if type(value) is tuple:
        return tuple(_plain(v) for v in value)
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else deepcopy(value)


_FIELDS = {f.name for f in fields(Line)}
_ORDER = tuple(f.name for f in fields(Line) if f.name != "extra")
_REQUIRED = ("work", "source", "unit", "index", "kind", "text")


def line_from_dict(d: dict, path: str | Path = "<lines>", row: int | None = None) -> Line:
    """Validate one row; raise InputError naming the file and row on anything malformed."""
    if not isinstance(d, dict):
        raise InputError("row is not a JSON object", path, row)
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise InputError(f"missing field(s) {', '.join(missing)}", path, row)
    unknown = set(d) - _FIELDS
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(sorted(unknown))}", path, row)
    if d["kind"] not in KINDS:
        raise InputError(f"kind {d['kind']!r} is not one of {', '.join(KINDS)}", path, row)
    if not isinstance(d["index"], int) or isinstance(d["index"], bool):
        raise InputError("index must be an integer", path, row)
    if not isinstance(d["text"], str):
        raise InputError("text must be a string", path, row)
    if d.get("speaker") is not None and not isinstance(d["speaker"], str):
        raise InputError("speaker must be a string or null", path, row)
    conf = d.get("confidence")
    if conf is not None and not (isinstance(conf, (int, float)) and 0 <= conf <= 1):
        raise InputError("confidence must be a number in 0..1", path, row)
    ev = d.get("evidence")
    if ev is not None and ev not in EVIDENCE:
        raise InputError(f"evidence {ev!r} is not one of {', '.join(EVIDENCE)}", path, row)
    for t in ("work", "source"):
        if not isinstance(d[t], str) or not d[t].strip():
            raise InputError(f"{t} must be a non-empty string", path, row)
    if not isinstance(d["unit"], str):
        raise InputError("unit must be a string", path, row)
    if d.get("name") is not None and not isinstance(d["name"], str):
        raise InputError("name must be a string or null", path, row)
    if "extra" in d and not isinstance(d["extra"], dict):
        raise InputError("extra must be a JSON object", path, row)
    for t in ("start", "end"):
        if d.get(t) is not None and not isinstance(d[t], (int, float)):
            raise InputError(f"{t} must be a number of seconds", path, row)
    return Line(**d)


def iter_json_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(row number, object) for each non-blank row of a JSON-lines file; a row that is not a JSON
    object is an InputError naming the file and the row."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, expected a JSON-lines file", path)
    if path.exists() and not path.is_file():
        raise InputError("not a regular file", path)
    with open(path, "rb") as fh:
        for row, data in enumerate(fh, start=1):
            try:
                raw = data.decode("utf-8")
                if row == 1:
                    raw = raw.removeprefix("\ufeff")  # a UTF-8 BOM (Windows editors write one)
            except UnicodeDecodeError:
                raise InputError("not UTF-8 text (a JSON-lines file must be UTF-8; is it binary?)", path, row) from None
            if not raw.strip():
                continue
            try:
                d = json.loads(raw)
            except json.JSONDecodeError as e:
                raise InputError(f"not valid JSON ({e.msg})", path, row) from None
            except RecursionError:
                raise InputError("JSON nested too deeply", path, row) from None
            if not isinstance(d, dict):
                raise InputError("not a JSON object", path, row)
            yield row, d


def read_lines(path: str | Path) -> list[Line]:
    """Read and validate a lines.jsonl file; index must increase strictly within a (source, work)."""
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", path)
    out: list[Line] = []
    last: dict[tuple[str, str], int] = {}
    for row, d in iter_json_rows(path):
        line = line_from_dict(d, path, row)
        key = (line.work, line.source)
        if key in last and line.index <= last[key]:
            raise InputError(f"index {line.index} does not increase (previous {last[key]})", path, row)
        last[key] = line.index
        out.append(line)
    if not out:
        raise InputError("no line records in file", path)
    return out


def write_lines(path: str | Path, lines: Iterable[Line]) -> int:
    """Write lines atomically; refuse to write an empty file."""
    lines = list(lines)
    if not lines:
        raise InputError("nothing to write: no lines were extracted", path)
    with atomic_open(path) as fh:
        w = jsonlines.Writer(fh, compact=True, sort_keys=False)
        for ln in lines:
            w.write(ln.to_dict())
    return len(lines)


def summary(lines: list[Line], out: str | Path) -> str:
    """`wrote N lines to OUT (d dialogue, a action, n narration; k speakers: the top five)`."""
    kinds = Counter(ln.kind for ln in lines)
    speakers = Counter(ln.speaker for ln in lines if ln.kind == "dialogue")
    top = ", ".join(f"{s} {n}" for s, n in speakers.most_common(5))
    return (
        f"wrote {len(lines)} lines to {out} ({kinds['dialogue']} dialogue, {kinds['action']} action, "
        f"{kinds['narration']} narration; {len(speakers)} speakers: {top})"
    )


def line_counts(lines: list[Line]) -> dict:
    """Counts for a metrics file: lines by kind, dialogue lines with a speaker, by evidence, distinct speakers."""
    dia = [ln for ln in lines if ln.kind == "dialogue"]
    att = [ln for ln in dia if ln.speaker]
    return {"lines": len(lines), "by_kind": {k: sum(1 for ln in lines if ln.kind == k) for k in KINDS},
            "dialogue": len(dia), "attributed": len(att),
            "by_evidence": dict(sorted(Counter(ln.evidence or "?" for ln in att).items())),
            "speakers": len({ln.speaker for ln in att})}
