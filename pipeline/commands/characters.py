"""`rolecorpus add-character`: describe a character once in configs/characters/<id>.yaml."""

from __future__ import annotations

from typing import List, Optional

import typer

from extractors.characters import Character, character_path, load_character, save_character
from extractors.errors import InputError
from extractors.ids import check_id

from ..cli_app import app
from ..paths import Project


@app.command("add-character")
def add_character(
    cid: str = typer.Argument(..., metavar="ID", help="Character id: lowercase letters, digits, '-' or '_' (or Chinese characters)."),
    name: str = typer.Option(..., "--name", help="Display name, as the stories should show it."),
    series: str = typer.Option(..., "--series", help="The work or series the character comes from."),
    alias: List[str] = typer.Option([], "--alias", help="Another name a source uses (repeatable): cue, nickname, title."),
    language: str = typer.Option("en", "--language", help="en or zh."),
    gender: Optional[str] = typer.Option(None, "--gender", help="male or female (helps resolve 'he'/'she' in novels)."),
    personality: str = typer.Option("", "--personality", help="Supplement appended to the system prompt."),
    source: List[str] = typer.Option([], "--source", help="Source file(s) the character appears in (repeatable)."),
    narrator: bool = typer.Option(False, "--narrator", help="The first-person narrator of a novel: `said I`, `I answered`, `我道` are theirs."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing config."),
) -> None:
    """Write configs/characters/ID.yaml; every stage resolves speaker names through its aliases."""
    if language not in ("en", "zh"):
        raise InputError(f"--language must be en or zh, not {language!r}")
    if gender is not None and gender not in ("male", "female"):
        raise InputError(f"--gender must be male or female, not {gender!r}")
    check_id(cid, "character id")
    project = Project.current()
    path = character_path(project.configs, cid)
    if path.exists() and not force:
        old = load_character(path)
        raise InputError(f"character {cid!r} ({old.name}) already exists; pass --force to overwrite", path)
    ch = Character(id=cid, name=name, series=series, language=language, aliases=list(dict.fromkeys(alias)),
                   gender=gender, personality=personality, sources=list(source), narrator=narrator)
    written = save_character(project.configs, ch)
    typer.echo(f"wrote {written.relative_to(project.root) if written.is_relative_to(project.root) else written}")
