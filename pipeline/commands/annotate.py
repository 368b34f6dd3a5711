"""CLI: `rolecorpus annotate emotions ID` — one of RoleCraft's ten emotions for each of the character's lines,
labelled by an LLM in batches, into `data/emotions/ID.jsonl` (pipeline/emotions.py)."""

from __future__ import annotations

import json

import typer

from extractors.atomic import atomic_write_text
from extractors.characters import get_character

from ..cli_app import annotate_app, one_line_errors
from ..emotions import LABELS, annotate, emotions_path, write_emotions
from ..llm import client_for, llm_metrics_path
from ..paths import Project
from ..settings import load_settings
from .profile import works_lines


@annotate_app.command("emotions")
@one_line_errors
def emotions(character: str = typer.Argument(..., metavar="ID", help="Character id (configs/characters/ID.yaml).")) -> None:
    """Label each of ID's lines with one of RoleCraft's ten emotions -> data/emotions/ID.jsonl.

    Labels: Anger, Disgust, Fear, Happiness, Sadness, Surprise, Neutral, Frustration, Excitement, Other.

    LLM: OPENAI_BASE_URL / OPENAI_API_KEY / ROLECORPUS_LLM_MODEL and `llm:`; prompts: configs/prompts/emotions.*.txt.

    Lines go in numbered batches of `emotions.batch`; a bad answer is asked again once, then a missing label is Other.

    Records: work, unit, index, text, emotion (and source; "fallback": true where Other stands for no answer).

    `package ID` puts the distribution into manifest.json.

    Every answer is cached as it arrives: a rerun, or a run after a kill, asks nothing twice."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    ch = get_character(project.configs, character)
    lines = works_lines(project, settings, ch)
    client = client_for(project, settings)
    records, stats = annotate(client, ch, lines, project.configs, batch=settings.emotions.batch)
    out = emotions_path(project.root, ch.id)
    write_emotions(out, records)
    atomic_write_text(llm_metrics_path(project, "emotions", ch.id),
                      json.dumps({**client.stats, "model": client.model, **stats}, ensure_ascii=False, indent=2) + "\n")
    dist = ", ".join(f"{label} {stats['distribution'][label]}" for label in LABELS if stats["distribution"][label])
    typer.echo(f"{ch.id}: {stats['lines']} lines labelled ({dist}; LLM calls {client.stats['calls']}, "
               f"cache hits {client.stats['cache_hits']}) -> {out}")
