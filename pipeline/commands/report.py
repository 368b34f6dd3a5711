"""`rolecorpus report ID`: write a character's corpus report (the studio's character page, charts included) as
one static HTML file to share: no script, the stylesheet inlined, nothing fetched."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from extractors.atomic import atomic_write_text
from extractors.characters import get_character
from extractors.ids import check_output

from ..cli_app import app, one_line_errors
from ..paths import Project


@app.command("report")
@one_line_errors
def report(
    character: str = typer.Argument(..., metavar="ID", help="Character id."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="HTML file to write (default: reports/ID.html)."),
) -> None:
    """Write a character's corpus page as one HTML file, to share.

    Lines by source and evidence, the confidence histogram, stories by length, whom it answers most, and emotions
    when annotated."""
    from ..report import render_report

    project = Project.current()
    cid = get_character(project.configs, character).id
    path = out or project.root / "reports" / f"{cid}.html"
    check_output(path, "-o")
    atomic_write_text(path, render_report(project, cid))
    typer.echo(f"wrote {path}")
