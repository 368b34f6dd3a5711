"""CLI: `segment`, `embed` and `package` — lines -> stories -> vectors -> character package (pipeline/stages.py)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from extractors.characters import get_character

from ..cli_app import app
from ..embedders import CachedEmbedder, VectorCache, make_embedder
from ..paths import Project
from ..settings import load_settings
from ..stages import embed_stories, package_character, segment_character
from ..stories import read_stories


@app.command("segment")
def segment(
    lines: List[Path] = typer.Argument(None, metavar="LINES.jsonl...", help="Line files; default: the character's work(s) in configs/pipeline.yaml."),
    character: str = typer.Option(..., "--character", "-c", help="Character id (configs/characters/ID.yaml)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Stories file (default data/stories/ID.jsonl)."),
) -> None:
    """Cut a character's stories out of the lines of its works.

    The finite-state segmenter's limits are the `segment:` section of configs/pipeline.yaml."""
    typer.echo(segment_character(Project.current(), character, list(lines or []), output))


@app.command("embed")
def embed(
    character: str = typer.Argument(..., metavar="ID", help="Character id."),
    backend: Optional[str] = typer.Option(None, "--backend", help="use (offline USE multilingual) or openai (OPENAI_BASE_URL/OPENAI_API_KEY)."),
    model: Optional[str] = typer.Option(None, "--model", help="Embedding model name for --backend openai."),
) -> None:
    """Embed a character's stories (cached by content: a rerun embeds nothing twice)."""
    project = Project.current()
    over = {k: v for k, v in (("backend", backend), ("model", model)) if v}
    settings = load_settings(project.pipeline_yaml).embed.model_dump() | over
    ch = get_character(project.configs, character)
    stories = read_stories(project.stories(ch.id))
    emb = CachedEmbedder(make_embedder(settings), VectorCache(project.cache / "vectors"), batch=settings["batch"])
    typer.echo(embed_stories(project, ch.id, stories, emb, settings["backend"]))


@app.command("package")
def package(character: str = typer.Argument(..., metavar="ID", help="Character id.")) -> None:
    """Write a character's package: system prompt, stories, role file and manifest.

    Into data/characters/ID/: system_prompt.txt, stories/NNNN.txt, ID.jsonl (ChatHaruhi 2.0), manifest.json."""
    typer.echo(package_character(Project.current(), character))
