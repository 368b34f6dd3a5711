"""`rolecorpus characters discover`: meet the cast of a novel with no configuration, and optionally
draft `configs/characters/<id>.yaml` for it (never overwriting a config that exists)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer

from extractors.atomic import atomic_write_text
from extractors.characters import character_path, load_characters, save_character
from extractors.errors import InputError
from extractors.ids import check_id
from extractors.novel.cast import CastMember, discover_cast
from extractors.novel.cast_others import configured_matches
from extractors.novel.extractor import configured_for
from extractors.novel.extract import detect_language, read_novel
from extractors.novel.zh_script import written_forms

from ..cli_app import characters_app, one_line_errors
from ..paths import Project


def _table(cast: list[CastMember], matched: dict[str, str] | None = None) -> str:
    """The members as a text table; with `matched`, a last column names the configured character each one is."""
    rows = [("", "name", "aliases", "gender", "lines", "speaks", "count") + (("configured",) if matched is not None else ())]
    for m in cast:
        rows.append(("N" if m.narrator else "", m.name, ", ".join(m.aliases[:6]) + (" …" if len(m.aliases) > 6 else ""),
                     m.gender or "?", str(m.lines), str(m.speaks), str(m.count))
                    + ((matched.get(m.id, "-"),) if matched is not None else ()))
    widths = [min(max(len(r[i]) for r in rows), 60) for i in range(len(rows[0]))]
    lines = ["  ".join(c[:w].ljust(w) if i < 3 or i > 6 else c.rjust(w) if i > 3 else c.ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    return "\n".join(lines + (["N = the first-person narrator"] if any(m.narrator for m in cast) else []))


def _write(project: Project, cast: list[CastMember], series: str, language: str, source: Path,
           matched: dict[str, str]) -> tuple[list, list]:
    """Draft one config per member; existing files, and members a configured character already is, are left
    alone. Returns (written, skipped) paths."""
    written, skipped = [], []
    for m in cast:
        path = character_path(project.configs, matched.get(m.id, m.id))
        if m.id in matched or path.exists():
            skipped.append(path)
            continue
        ch = m.to_character(series, language)
        ch.sources = [source.name]
        written.append(save_character(project.configs, ch))
    return written, skipped


def _rel(project: Project, p: Path) -> str:
    return str(p.relative_to(project.root)) if p.is_relative_to(project.root) else str(p)


@characters_app.command("discover")
@one_line_errors
def discover(
    novel: Path = typer.Argument(..., help="The novel as a text file (any common encoding)."),
    work: Optional[str] = typer.Option(None, "--work", help="Work id written as the series of drafted configs (default: the file name without extension)."),
    language: Optional[str] = typer.Option(None, "--language", help="en or zh (default: detected from the text)."),
    top: int = typer.Option(15, "--top", min=1, help="How many members to list (most frequent speakers first)."),
    write: bool = typer.Option(False, "--write", help="Draft configs/characters/<id>.yaml for the listed members; existing files are never overwritten (they are named as skipped)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the listed members as JSON to this file."),
) -> None:
    """List the people of a novel who speak or are spoken to, most frequent speaker first: the name
    (the fullest form the text uses), the other names that belong to the same person (`Mr. Darcy`,
    `Darcy`), a gender guess, `lines` (the quotations `extract novel` gives them at its default hold with this
    cast; the list is ordered by it), `speaks` (speech tags naming them; a `she said` resolved to them counts half)
    and `count` (mentions). A first-person narrator (`said I`) is marked N. Names are merged only where the text
    supports it: different titles, genders or first names stay separate. When characters are configured for the
    work, a `configured` column names the one each member is (`extract novel` gives it the member's names and
    gender); `-` marks the others, whose lines `extract novel` names but gives to nobody configured."""
    if language is not None and language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    if work is not None:
        check_id(work, "--work")
    text = read_novel(novel)
    lang = language or detect_language(text)
    cast = discover_cast(text, lang, top)
    if not cast:
        raise InputError("no speaking characters found (no quotations with speech tags such as 'said Anne')", novel)
    mine = configured_for(load_characters(Project.current().configs), work or novel.stem, novel)
    mine = written_forms(mine, text) if lang == "zh" else mine
    matched = configured_matches(mine, cast, lang) if mine else None
    typer.echo(_table(cast, matched))
    if json_out is not None:
        rows = [{"id": m.id, **asdict(m), **({"configured": matched.get(m.id)} if matched is not None else {})}
                for m in cast]
        atomic_write_text(json_out, json.dumps(rows, ensure_ascii=False, indent=1))
        typer.echo(f"wrote {json_out}")
    if write:
        project = Project.current()
        written, skipped = _write(project, cast, work or novel.stem, lang, novel, matched or {})
        for p in written:
            typer.echo(f"wrote {_rel(project, p)}")
        if skipped:
            typer.echo(f"skipped {len(skipped)} existing: " + ", ".join(_rel(project, p) for p in skipped))
