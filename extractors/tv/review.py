"""The review loop: put the doubtful lines in front of a person, then write their fixes back.

`write_review` lists the timed dialogue lines of a lines.jsonl by rising confidence (unknown and
too-short first) with their times and the voice model's best two guesses; the person fills or
corrects the `character` column. `apply_review` writes the corrections back (evidence `manual`,
confidence 1.0), atomically, and can return them as labels for retraining.

Review sheet columns: key, source, index, start, end, duration, status, confidence, guess1,
score1, guess2, score2, speaker, character, text. `key` is `source#index` (the line's identity);
`speaker` is what the pipeline decided; `character` (left blank) is the person's answer: blank
means "not reviewed, leave as is", a name (or alias) sets or confirms the speaker, `-` means
"nobody we know" (speaker set to null). Only answered rows become `manual`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..atomic import atomic_write_text
from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line, read_lines, write_lines
from ..textio import read_text
from .labels import Label, format_time

COLUMNS = ["key", "source", "index", "start", "end", "duration", "status", "confidence",
           "guess1", "score1", "guess2", "score2", "speaker", "character", "text"]
NOBODY = ("-", "none", "null", "unknown", "?")
_STATUS_ORDER = {"too-short": 0, "unknown": 1, "maybe": 2, "confident": 3, "given": 4}


def line_key(ln: Line) -> str:
    return f"{ln.source}#{ln.index}"


def _rank(ln: Line) -> tuple:
    v = ln.extra.get("voice", {}) if isinstance(ln.extra, dict) else {}
    conf = ln.confidence if ln.confidence is not None else (0.0 if ln.speaker is None else 0.5)
    if ln.evidence == "manual":
        conf = 2.0
    return (conf, _STATUS_ORDER.get(v.get("status"), 1), ln.start or 0.0)


def write_review(lines: list[Line], out: str | Path, *, limit: int | None = None, include_manual: bool = False) -> int:
    """Write the review sheet; lines already fixed by hand are left out unless include_manual."""
    rows = [ln for ln in lines if ln.kind == "dialogue" and (include_manual or ln.evidence != "manual")]
    rows.sort(key=_rank)
    if limit is not None:
        rows = rows[:limit]
    if not rows:
        raise InputError("no dialogue lines to review", out)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for ln in rows:
        v = ln.extra.get("voice", {}) if isinstance(ln.extra, dict) else {}
        g = [(x["character"], x["score"]) for x in v.get("guesses") or []] + [("", ""), ("", "")]
        dur = (ln.end - ln.start) if ln.start is not None and ln.end is not None else None
        w.writerow([
            line_key(ln), ln.source, ln.index,
            format_time(ln.start) if ln.start is not None else "",
            format_time(ln.end) if ln.end is not None else "",
            f"{dur:.2f}" if dur is not None else "",
            v.get("status", ln.evidence or ""),
            f"{ln.confidence:.3f}" if ln.confidence is not None else "",
            g[0][0], f"{g[0][1]:.3f}" if g[0][1] != "" else "", g[1][0], f"{g[1][1]:.3f}" if g[1][1] != "" else "",
            ln.speaker or "", "", ln.text,
        ])
    atomic_write_text(out, buf.getvalue())
    return len(rows)


@dataclass
class Correction:
    key: str
    character: str | None  # None = nobody we know
    row: int


def read_review(path: str | Path, resolver: AliasResolver | None = None) -> list[Correction]:
    """The filled-in `character` cells of a review sheet, validated (unknown names name the row)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such review file", path)
    text = read_text(path)
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header or "key" not in header or "character" not in header:
        raise InputError("not a review sheet (needs columns key and character; make one with `rolecorpus speakers review`)",
                         path, 1)
    ki, ci = header.index("key"), header.index("character")
    known = ", ".join(sorted(resolver.characters)) if resolver is not None else ""
    out: list[Correction] = []
    seen: set[str] = set()
    prev = reader.line_num
    for row in reader:
        rowno = prev + 1
        prev = reader.line_num
        if not any(c.strip() for c in row):
            continue
        key = row[ki].strip() if ki < len(row) else ""
        name = row[ci].strip() if ci < len(row) else ""
        if not key:
            raise InputError("key is empty", path, rowno)
        if key in seen:
            raise InputError(f"line {key} appears twice", path, rowno)
        seen.add(key)
        if not name:
            continue
        if name.casefold() in NOBODY:
            out.append(Correction(key, None, rowno))
            continue
        cid = resolver.resolve(name) if resolver is not None else name
        if cid is None:
            raise InputError(f"unknown character {name!r} (configured: {known or 'none'})", path, rowno)
        out.append(Correction(key, cid, rowno))
    return out


def apply_review(review: str | Path, lines_path: str | Path, resolver: AliasResolver | None = None,
                 media_of: Callable[[str], Path | None] | None = None) -> tuple[int, list[Label]]:
    """Write corrections into lines_path (atomically). Returns (lines changed, labels for retraining).

    A row whose answer equals the current speaker with evidence already `manual` changes nothing;
    any other answer — including a confirmation of the model's guess — becomes `manual`, confidence 1.
    Labels are produced for confirmed or corrected lines that have times and whose source
    `media_of(source)` resolves to a media file.
    """
    corrections = read_review(review, resolver)
    lines = read_lines(lines_path)
    by_key = {line_key(ln): ln for ln in lines}
    for c in corrections:
        if c.key not in by_key:
            raise InputError(f"line {c.key} is not in {Path(lines_path).name} (review sheet from another file?)",
                             review, c.row)
    changed = 0
    labels: list[Label] = []
    for c in corrections:
        ln = by_key[c.key]
        if ln.evidence == "manual" and ln.speaker == c.character:
            continue
        prev = {"speaker": ln.speaker, "confidence": ln.confidence, "evidence": ln.evidence}
        ln.speaker = c.character
        ln.confidence = 1.0 if c.character is not None else None
        ln.evidence = "manual"
        ln.extra = {**ln.extra, "before_review": prev}
        changed += 1
        if c.character is not None and ln.start is not None and ln.end is not None and media_of:
            media = media_of(ln.source)
            if media is not None:
                labels.append(Label(c.character, ln.text, float(ln.start), float(ln.end), Path(media), c.row, c.character))
    if changed:
        write_lines(lines_path, lines)
    return changed, labels
