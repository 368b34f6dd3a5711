"""The one function every source kind runs through, from `rolecorpus extract KIND` and from `build-lines`:
validate the options -> resolve characters -> run the extractor -> write the lines atomically -> metrics.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import typer
from pydantic import BaseModel

from extractors.atomic import atomic_write_text
from extractors.characters import AliasResolver, load_characters
from extractors.contract import ExtractContext
from extractors.records import Line, line_counts, write_lines
from extractors.registry import get_extractor

from ..models import PipelineModels
from ..paths import Project
from ..settings import load_settings, validate_model


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)


def metrics_path(project: Project, kind: str, work: str) -> Path:
    """`metrics/<kind>_<work>.json` (declared in dvc.yaml): what the extractor reported in `ctx.metrics`, or
    the line counts when it reported nothing."""
    return project.metrics / f"{kind}_{work}.json"


def run_extract(kind: str, source: Path, work: str, output: Path, options: BaseModel | Mapping[str, Any],
                project: Project | None = None, models=None, log: Callable[[str], None] = _stderr) -> list[Line]:
    """Extract the lines of one source with the `kind` extractor and write them (nothing is written on error)."""
    project = project or Project.current()
    extractor = get_extractor(kind)()
    opts = options if isinstance(options, BaseModel) else validate_model(extractor.Options, dict(options), prefix=None)
    settings = load_settings(project.pipeline_yaml)
    characters = load_characters(project.configs)
    ctx = ExtractContext(
        options=opts, resolver=AliasResolver(characters), characters=characters,
        models=models or PipelineModels(project.cache), cache_dir=project.cache, configs_dir=project.configs,
        settings={"speakers": settings.speakers.model_dump(exclude_unset=True)},
        metrics_dir=project.metrics, log=log)
    lines = list(extractor.extract(Path(source), work, ctx))
    write_lines(output, lines)
    metrics = ctx.metrics or line_counts(lines)
    atomic_write_text(metrics_path(project, kind, work), json.dumps(metrics, indent=2) + "\n")
    report = extractor.summary(lines, output, ctx)
    if getattr(extractor, "summary_to_stdout", False):
        typer.echo(report)
    else:
        log(report)
    return lines
