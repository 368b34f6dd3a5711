"""Read and check the labelled lines that speaker identification is trained and evaluated on.

Two CSV layouts are accepted (any encoding `read_text` detects):

* `character,text,start,end,media` — media paths are relative to the labels file;
* ChatHaruhi's `人物,人物台词,开始时间,结束时间` — the media file then comes from the caller
  (`--media`).

Times may be seconds (`12.5`) or clock times (`00:00:12,500`, `00:12.5`, `1:02:03.250`).
Every problem is an InputError naming the labels file and the row (the file's line number).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..atomic import atomic_write_text
from ..characters import AliasResolver
from ..errors import InputError
from ..textio import read_text

COLUMNS = ("character", "text", "start", "end", "media")
CHATHARUHI = {"人物": "character", "人物台词": "text", "开始时间": "start", "结束时间": "end"}
_ALIASES = {"speaker": "character", "name": "character", "line": "text", "begin": "start", "stop": "end", "file": "media"}
_CLOCK = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:[.,]\d+)?)$")
END_TOLERANCE = 0.05  # seconds a label may run past the end of the media (rounding of times)


@dataclass
class Label:
    character: str  # canonical character id
    text: str
    start: float
    end: float
    media: Path
    row: int  # line number in the labels file
    name: str = ""  # the character as the file writes it

    @property
    def duration(self) -> float:
        return self.end - self.start


def parse_time(value: str) -> float:
    """Seconds from `12.5`, `00:12.5`, `00:00:12,500` or `1:02:03.25`; ValueError otherwise."""
    s = str(value).strip()
    if not s:
        raise ValueError("empty time")
    m = _CLOCK.match(s)
    if m:
        h, mnt, sec = m.groups()
        if int(mnt) >= 60 and h is not None:
            raise ValueError(f"minutes out of range in {s!r}")
        return int(h or 0) * 3600 + int(mnt) * 60 + float(sec.replace(",", "."))
    t = float(s.replace(",", ".") if s.count(",") == 1 and "." not in s else s)
    if t != t or t in (float("inf"), float("-inf")):
        raise ValueError(f"not a time: {s!r}")
    return t


def format_time(t: float) -> str:
    """`HH:MM:SS.mmm`, for review sheets."""
    ms = int(round(t * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _header_map(header: list[str], path: Path) -> dict[str, int]:
    cols: dict[str, int] = {}
    for i, raw in enumerate(header):
        h = raw.strip().lstrip("\ufeff")
        key = CHATHARUHI.get(h) or _ALIASES.get(h.casefold()) or h.casefold()
        if key in COLUMNS and key not in cols:
            cols[key] = i
    missing = [c for c in ("character", "start", "end") if c not in cols]
    if missing:
        raise InputError(
            f"labels need columns character,text,start,end,media (or 人物,人物台词,开始时间,结束时间); missing {', '.join(missing)}",
            path, 1)
    return cols


def read_labels(path: str | Path, resolver: AliasResolver | None = None, media: str | Path | None = None) -> list[Label]:
    """Parse and validate a labels file.

    `resolver` maps the character column to configured ids (an unknown name is an error);
    without one, names are kept as written. `media` is used for rows without a media column/cell.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such labels file", path)
    text = read_text(path)
    rows = list(csv.reader(io.StringIO(text)))
    line_nos = _row_line_numbers(text)
    if not rows:
        raise InputError("labels file is empty", path)
    cols = _header_map(rows[0], path)
    default_media = Path(media).resolve() if media is not None else None
    known = ", ".join(sorted(resolver.characters)) if resolver is not None else ""
    out: list[Label] = []
    for k, row in enumerate(rows[1:], start=1):
        rowno = line_nos[k] if k < len(line_nos) else k + 1
        if not any(c.strip() for c in row):
            continue

        def cell(name: str) -> str:
            i = cols.get(name)
            return row[i].strip() if i is not None and i < len(row) else ""

        name = cell("character")
        if not name:
            raise InputError("character is empty", path, rowno)
        if resolver is not None:
            cid = resolver.resolve(name)
            if cid is None:
                raise InputError(f"unknown character {name!r} (configured: {known or 'none'}); "
                                 "add it with `rolecorpus add-character` or fix the name", path, rowno)
        else:
            cid = name
        try:
            start, end = parse_time(cell("start")), parse_time(cell("end"))
        except ValueError as e:
            raise InputError(f"bad start/end time ({e})", path, rowno) from None
        if start < 0 or end <= start:
            raise InputError(f"time range {cell('start')}..{cell('end')} is empty or negative", path, rowno)
        m = cell("media")
        if m:
            mp = Path(m)
            mp = mp if mp.is_absolute() else (path.parent / mp)
            mp = mp.resolve()
        elif default_media is not None:
            mp = default_media
        else:
            raise InputError("no media for this row: add a media column or pass --media", path, rowno)
        out.append(Label(cid, cell("text"), start, end, mp, rowno, name))
    if not out:
        raise InputError("labels file has a header but no labelled rows", path)
    return out


def _row_line_numbers(text: str) -> list[int]:
    """The 1-based file line on which each CSV record starts (quoted cells may span lines)."""
    nos: list[int] = []
    reader = csv.reader(io.StringIO(text))
    prev = 0
    for _ in reader:
        nos.append(prev + 1)
        prev = reader.line_num
    return nos


def check_ranges(labels: Iterable[Label], duration_of: Callable[[Path], float], path: str | Path) -> None:
    """Raise InputError naming the row of the first label outside its media's duration."""
    for lab in labels:
        dur = duration_of(lab.media)
        if lab.end > dur + END_TOLERANCE:
            raise InputError(f"time range {lab.start:.3f}-{lab.end:.3f} s is outside the media "
                             f"{lab.media.name} ({dur:.3f} s long)", path, lab.row)


def append_labels(path: str | Path, new: list[Label], *, replace: bool = False) -> int:
    """Append labels to a `character,text,start,end,media` file (created if missing), atomically.

    Media paths are written relative to the labels file when possible.
    """
    path = Path(path)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if path.exists() and not replace:
        existing = read_text(path)
        header = next(csv.reader(io.StringIO(existing)), [])
        cols = _header_map(header, path)
        if "media" not in cols or "text" not in cols:
            raise InputError("can only append to a labels file with columns character,text,start,end,media", path)
        buf.write(existing if existing.endswith("\n") else existing + "\n")
        order = sorted(cols, key=cols.get)
    else:
        order = list(COLUMNS)
        w.writerow(order)
    base = path.resolve().parent
    for lab in new:
        try:
            media = lab.media.resolve().relative_to(base).as_posix()
        except ValueError:
            import os

            media = Path(os.path.relpath(lab.media.resolve(), base)).as_posix()
        vals = {"character": lab.character, "text": lab.text, "start": f"{lab.start:.3f}",
                "end": f"{lab.end:.3f}", "media": media}
        w.writerow([vals[c] for c in order])
    atomic_write_text(path, buf.getvalue())
    return len(new)


def write_labels(path: str | Path, labels: list[Label]) -> None:
    """Write a fresh `character,text,start,end,media` file (atomically)."""
    append_labels(path, labels, replace=True)
