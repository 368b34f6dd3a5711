"""The one function every source kind runs through, from `rolecorpus extract KIND` and from `build-lines`:
validate the options -> resolve characters -> run the extractor -> write the lines atomically -> metrics.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any, Callable, Mapping

import typer
from pydantic import BaseModel

from extractors.atomic import atomic_write_text, clean_orphans
from extractors.characters import AliasResolver
from extractors.contract import ExtractContext
from extractors.errors import InputError
from extractors.ids import check_id, check_output, inside
from extractors.records import Line, line_counts, write_lines
from extractors.registry import get_extractor

from .models import PipelineModels
from .paths import Project
from .review import apply_review_file, review_path
from .settings import load_settings, validate_model
from .works import project_characters, silent_characters, work_first


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)


def metrics_path(project: Project, kind: str, work: str) -> Path:
    """`metrics/<kind>_<work>.json` (declared in dvc.yaml): what the extractor reported in `ctx.metrics`, or
    the line counts when it reported nothing."""
    path = project.metrics / f"{check_id(kind, 'kind')}_{check_id(work, 'work id')}.json"
    return inside(path, project.root, "metrics file")


def run_extract(kind: str, source: Path, work: str, output: Path, options: BaseModel | Mapping[str, Any],
                project: Project | None = None, models=None, log: Callable[[str], None] = _stderr,
                extractor=None) -> list[Line]:
    """Extract the lines of one source with the `kind` extractor and write them (nothing is written on error).
    `extractor`: one already made (a batch work hands in `pipeline.batch.BatchExtractor`); default the kind's."""
    project = project or Project.current()
    check_id(work, "--work")
    check_output(output, "-o")
    if os.path.realpath(output) == os.path.realpath(source):  # realpath: a loop of links raises nothing
        raise InputError("-o is the source itself; writing would destroy it", output)
    metrics_file = metrics_path(project, kind, work)
    extractor = extractor or get_extractor(kind)()
    opts = options if isinstance(options, BaseModel) else validate_model(extractor.Options, dict(options), prefix=None)
    settings = load_settings(project.pipeline_yaml)
    characters = project_characters(project, settings)
    for folder in (Path(output).parent, project.metrics):
        clean_orphans(folder)  # temp files a killed earlier run left beside its outputs
    staging = project.metrics / f".staging.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"  # made only if used
    had_metrics = project.metrics.exists()
    ctx = make_context(project, opts, models, staging, log, settings, characters, work=work)
    try:
        lines = list(extractor.extract(Path(source), work, ctx))
        review = review_path(project.root, settings.sources, work)  # a person's decisions (pipeline/review.py)
        if reviewed := apply_review_file(review, lines, set(characters)):
            log(f"{work}: {reviewed} line(s) set by {review} (evidence manual)")
        write_lines(output, lines)
        metrics = ctx.metrics or line_counts(lines)
        _publish(staging, project.metrics)
        atomic_write_text(metrics_file, json.dumps(metrics, indent=2) + "\n")
    finally:  # a failed run leaves no metrics and no running counters behind
        shutil.rmtree(staging, ignore_errors=True)
        if not had_metrics and project.metrics.is_dir() and not any(project.metrics.iterdir()):
            project.metrics.rmdir()
    for note in silent_characters(work, lines, characters):
        log(note)
    report = extractor.summary(lines, output, ctx)
    if getattr(extractor, "summary_to_stdout", False):
        typer.echo(report)
    else:
        log(report)
    return lines


def llm_limits(settings) -> dict:
    """What an extractor's LLM pass takes from `llm:`: the whole-request limit and the requests in flight."""
    from .llm import concurrency

    return {"timeout": settings.llm.timeout, "concurrency": concurrency(settings.llm.concurrency)}


def make_context(project: Project, opts: BaseModel, models, staging: Path | None,
                 log: Callable[[str], None] = _stderr, settings=None, characters=None,
                 work: str | None = None) -> ExtractContext:
    """The context an extractor runs in: the project's characters (with their links to works) and settings (loaded
    unless given), the models (built lazily). A name two characters share goes to the one linked to `work`."""
    settings = settings or load_settings(project.pipeline_yaml)
    characters = project_characters(project, settings) if characters is None else characters
    return ExtractContext(
        options=opts, resolver=AliasResolver(work_first(characters, work)), characters=characters,
        models=models or PipelineModels(project.cache, settings.llm.model_dump(exclude_unset=True)),
        cache_dir=project.cache, configs_dir=project.configs,
        settings={"speakers": settings.speakers.model_dump(exclude_unset=True), "llm": llm_limits(settings)},
        metrics_dir=staging, log=log)


def _publish(staging: Path, metrics_dir: Path) -> None:
    """Move the counters an extractor wrote while it ran (`metrics/llm_<work>.json`) into `metrics/`."""
    if staging.is_dir():
        for f in sorted(staging.iterdir()):
            os.replace(f, metrics_dir / f.name)
