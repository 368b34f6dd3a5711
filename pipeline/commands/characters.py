"""`rolecorpus add-character`: describe a character once in configs/characters/<id>.yaml and link it to its works."""

from __future__ import annotations

from typing import List, Optional

import typer

from extractors.characters import Character
from extractors.errors import InputError
from extractors.ids import check_id

from ..cli_app import app, one_line_errors
from ..paths import Project
from ..settings import load_settings
from ..works import check_works, create_character, work_language, works_title


@app.command("add-character")
@one_line_errors
def add_character(
    cid: str = typer.Argument(..., metavar="ID", help="Character id: lowercase letters, digits, '-' or '_' (or Chinese characters)."),
    name: str = typer.Option(..., "--name", help="Display name, as the stories should show it."),
    work: List[str] = typer.Option([], "--work", help="A registered work the character speaks in (repeatable): the link the build uses."),
    series: Optional[str] = typer.Option(None, "--series", help="What the prompt says the character comes from (default: the first work's title)."),
    alias: List[str] = typer.Option([], "--alias", help="Another name a source uses (repeatable): cue, nickname, title."),
    language: Optional[str] = typer.Option(None, "--language", help="en or zh (default: the work's language, else en)."),
    gender: Optional[str] = typer.Option(None, "--gender", help="male or female (helps resolve 'he'/'she' in novels)."),
    personality: str = typer.Option("", "--personality", help="Supplement appended to the system prompt."),
    source: List[str] = typer.Option([], "--source", help="Source file(s) the character appears in (repeatable)."),
    narrator: bool = typer.Option(False, "--narrator", help="The first-person narrator of a novel: `said I`, `I answered`, `我道` are theirs."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing config."),
) -> None:
    """Describe a character and link it to its works.

    Writes configs/characters/ID.yaml and the link in configs/pipeline.yaml, so that `rolecorpus build` (and
    `dvc repro`) builds its package. Everything is checked before anything is written."""
    if language is not None and language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    if gender is not None and gender not in ("male", "female"):
        raise InputError(f"--gender must be male or female, not {gender!r}")
    if not work and series is None:
        raise InputError("pass --work W (a registered work: `rolecorpus works list`) to say where the character speaks")
    check_id(cid, "character id")
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    works = list(dict.fromkeys(work))
    check_works(settings, works, project.pipeline_yaml)
    if language is None:
        language = work_language(settings, works)
    ch = Character(id=cid, name=name, series=series if series is not None else works_title(settings, works),
                   language=language, aliases=list(dict.fromkeys(alias)), gender=gender, personality=personality,
                   sources=list(source), narrator=narrator)
    written = create_character(project, ch, works, force)
    typer.echo(f"wrote {written.relative_to(project.root) if written.is_relative_to(project.root) else written}")
    if works:
        typer.echo(f"linked {cid} to {', '.join(works)} in configs/pipeline.yaml; build it with `rolecorpus build`")
