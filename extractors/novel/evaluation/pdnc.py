"""Read gold speaker attribution in the PDNC format (Project Dialogism Novel Corpus).

A PDNC novel directory holds `novel_text.txt`, `character_info.csv` (`Main Name`, `Aliases` as
a Python set/list literal, `Gender` M/F/…, `Category` major/intermediate/minor) and
`quotation_info.csv` (`quoteByteSpans`: Python character offsets into the text, `speaker`:
a main name, `quoteType`: Explicit / Anaphoric / Implicit).
"""

from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from pathlib import Path

from extractors.characters import AliasResolver, Character, slug
from extractors.errors import InputError

_NARRATOR_ALIASES = {"narr", "_narr", "narrator"}  # how PDNC marks the first-person narrator
_CATEGORY_ORDER = {"major": 0, "intermediate": 1, "minor": 2}


@dataclass
class GoldQuote:
    qid: str
    spans: list[tuple[int, int]]
    speaker: str          # character id (slug of the main name)
    qtype: str
    text: str


def _literal(value: str, path: Path, row: int):
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise InputError(f"cannot read {value[:40]!r} as a Python literal", path, row) from None


def _open_csv(path: Path, need: tuple[str, ...]) -> list[dict]:
    if not path.exists():
        raise InputError("no such file (expected a PDNC directory)", path)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise InputError("no rows", path)
    missing = [c for c in need if c not in rows[0]]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path)
    return rows


def char_id(main_name: str) -> str:
    return slug(main_name)


def load_characters(gold_dir: str | Path, series: str = "") -> list[Character]:
    """Characters of a PDNC novel, major ones first (so a shared alias goes to the major one)."""
    path = Path(gold_dir) / "character_info.csv"
    rows = _open_csv(path, ("Main Name", "Aliases", "Gender"))
    chars = []
    for r, row in enumerate(rows, start=2):
        name = row["Main Name"].strip()
        aliases = _literal(row["Aliases"], path, r) if row["Aliases"].strip() else []
        g = (row.get("Gender") or "").strip().upper()
        gender = {"M": "male", "F": "female"}.get(g)
        cat = _CATEGORY_ORDER.get((row.get("Category") or "").strip().lower(), 3)
        narrator = bool(_NARRATOR_ALIASES & {str(a).casefold() for a in aliases})
        aliases = [str(a) for a in aliases if str(a) != name and str(a).casefold() not in _NARRATOR_ALIASES]
        chars.append((cat, r, Character(id=char_id(name), name=name, series=series or Path(gold_dir).name,
                                        aliases=sorted(aliases), gender=gender, narrator=narrator)))
    chars.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in chars]


def load_quotes(gold_dir: str | Path) -> list[GoldQuote]:
    """Gold quotations; a speaker given as an alias is resolved to its character's id."""
    path = Path(gold_dir) / "quotation_info.csv"
    rows = _open_csv(path, ("quoteID", "quoteByteSpans", "speaker", "quoteType"))
    # a gold speaker written as an alias (`Lucy`) is the character that lists it
    resolve = AliasResolver(load_characters(gold_dir)).speaker_id if (Path(gold_dir) / "character_info.csv").exists() else char_id
    out = []
    for r, row in enumerate(rows, start=2):
        spans = _literal(row["quoteByteSpans"], path, r)
        if not spans or not all(isinstance(s, (list, tuple)) and len(s) == 2 for s in spans):
            raise InputError("quoteByteSpans must be a list of [start, end] pairs", path, r)
        out.append(GoldQuote(row["quoteID"], [(int(a), int(b)) for a, b in spans], resolve(row["speaker"]),
                             row["quoteType"].strip(), row.get("quoteText", "")))
    return out
