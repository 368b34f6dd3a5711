"""`rolecorpus characters discover`: meet the cast of a work (or a novel's file) and optionally draft and register
its characters (never overwriting a config that exists)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer

from extractors.atomic import atomic_write_text
from extractors.errors import InputError
from extractors.ids import check_id

from ..cli_app import characters_app, one_line_errors
from ..discover import Cast, draft_characters, find_cast
from ..paths import Project


def _table(cast: Cast) -> str:
    """The members as a text table; with configured characters, a last column names the one each member is."""
    matched = cast.matched
    rows = [("", "name", "aliases", "gender", "lines", "speaks", "count") + (("configured",) if matched is not None else ())]
    for m in cast.members:
        rows.append(("N" if m.narrator else "", m.name, ", ".join(m.aliases[:6]) + (" …" if len(m.aliases) > 6 else ""),
                     m.gender or "?", str(m.lines), f"{m.speaks:g}", str(m.count))
                    + ((matched.get(m.id, "-"),) if matched is not None else ()))
    widths = [min(max(len(r[i]) for r in rows), 60) for i in range(len(rows[0]))]
    lines = ["  ".join(c[:w].ljust(w) if i < 3 or i > 6 else c.rjust(w) if i > 3 else c.ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    return "\n".join(lines + (["N = the first-person narrator"] if any(m.narrator for m in cast.members) else []))


def _rel(project: Project, p: Path) -> str:
    return str(p.relative_to(project.root)) if p.is_relative_to(project.root) else str(p)


@characters_app.command("discover")
@one_line_errors
def discover(
    source: str = typer.Argument(..., metavar="WORK", help="A registered work id (`rolecorpus works list`), or a novel's text file."),
    work: Optional[str] = typer.Option(None, "--work", help="With a file: the work id its characters belong to (default: the file name)."),
    language: Optional[str] = typer.Option(None, "--language", help="en or zh (default: the work's, else detected)."),
    top: int = typer.Option(15, "--top", min=1, help="How many members to list, most lines first."),
    write: bool = typer.Option(False, "--write", help="Draft configs/characters/<id>.yaml for the listed members and link them to the work; existing files are never overwritten."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the listed members as JSON to this file."),
) -> None:
    """List the people who speak in a novel or script, most lines first: the name (the fullest form the text
    uses), the other names of the same person, a gender guess, `lines` (the quotations they are given), `speaks`
    (speech tags or cues naming them) and `count` (mentions). N marks a first-person narrator. When characters are
    configured for the work, a `configured` column names the one each member is. With --write, each listed member
    gets a character file linked to the work, ready for `rolecorpus build`."""
    if language is not None and language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    if work is not None:
        check_id(work, "--work")
    project = Project.current()
    cast = find_cast(project, source, top, work, language)
    typer.echo(_table(cast))
    if json_out is not None:
        rows = [{"id": m.id, **asdict(m), **({"configured": cast.matched.get(m.id)} if cast.matched is not None else {})}
                for m in cast.members]
        atomic_write_text(json_out, json.dumps(rows, ensure_ascii=False, indent=1))
        typer.echo(f"wrote {json_out}")
    if write:
        written, skipped = draft_characters(project, cast)
        for p in written:
            typer.echo(f"wrote {_rel(project, p)}")
        if skipped:
            typer.echo(f"skipped {len(skipped)} existing: "
                       + ", ".join(_rel(project, project.configs / "characters" / f"{c}.yaml") for c in skipped))
        if written and cast.registered:
            typer.echo(f"linked {len(written)} character(s) to {cast.work} in configs/pipeline.yaml; next: "
                       f"rolecorpus build {cast.work}")
