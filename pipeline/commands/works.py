"""`rolecorpus works add|list`: register a source as a work of the project, and see what is registered."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..cli_app import one_line_errors, works_app
from ..paths import Project
from ..works import KINDS, add_work, work_rows


@works_app.command("add")
@one_line_errors
def add(
    path: Path = typer.Argument(..., help="The source: a novel or script (.txt), a quote page (.html/.txt), an episode "
                                          "(audio/video; subtitles beside it with the same name are used), or a folder of them."),
    work: Optional[str] = typer.Option(None, "--id", help="Work id (default: from the file name)."),
    kind: str = typer.Option("auto", "--kind", help=f"{'|'.join(KINDS)}; auto: web page = wiki, audio/video = tv, "
                                                    "a text with speaker cues = script, other text = novel."),
    title: Optional[str] = typer.Option(None, "--title", help="The work's title, as prompts say it (default: the "
                                                              "text's `Title:` line, else the file name)."),
    language: Optional[str] = typer.Option(None, "--language", help="en or zh (default: detected from the text)."),
    files: Optional[str] = typer.Option(None, "--files", help="For a folder: the pattern of its files (\"*.mkv\")."),
) -> None:
    """Register a source in configs/pipeline.yaml (comments kept), so that `rolecorpus build`, `dvc repro` and the
    studio build and show it. A file outside the project is copied to data/raw/ first. Adding the same work again
    changes nothing."""
    project = Project.current()
    added = add_work(project, path, work, kind, title, language, files)
    if added.copied_from is not None:
        typer.echo(f"copied {added.copied_from} to {added.input}")
    if not added.created:
        typer.echo(f"work {added.work!r} is already registered ({added.kind}, {added.input}): nothing changed")
        return
    lang = f", {added.language}" if added.language else ""
    typer.echo(f"registered work {added.work!r}: {added.kind}{lang}, {added.input}, \"{added.title}\"")
    typer.echo(f"next: rolecorpus characters discover {added.work} --top 5 --write   (or add-character ID --work "
               f"{added.work})")


@works_app.command("list")
@one_line_errors
def list_works() -> None:
    """The registered works: id, kind, language, title, input, characters linked to it, and whether its lines are
    built."""
    rows = work_rows(Project.current())
    if not rows:
        typer.echo("no works registered; add one with `rolecorpus works add FILE`")
        return
    table = [("id", "kind", "lang", "title", "input", "characters", "lines")]
    for r in rows:
        table.append((r["id"], r["kind"], r["language"] or "-", r["title"], r["input"],
                      ", ".join(r["characters"]) or "-", "built" if r["built"] else "-"))
    widths = [min(max(len(row[i]) for row in table), 40) for i in range(len(table[0]))]
    for row in table:
        typer.echo("  ".join(c[:w].ljust(w) for c, w in zip(row, widths)).rstrip())
