"""`rolecorpus build-lines WORK`: run the extractor a work's entry in configs/pipeline.yaml names.

This is what the DVC `lines` stage calls: it reads `works.<WORK>` (kind, input, options), resolves the paths
in the options against the project root, and calls the generic `run_extract` directly (no argv round trip).
"""

from __future__ import annotations

from pathlib import Path

import typer

from extractors.errors import InputError
from extractors.ids import check_id

from ..cli_app import app, one_line_errors
from ..paths import Project
from ..settings import load_settings
from .run import run_extract


def _rooted(project: Project, opts):
    """The options with every path made relative to the project root (DVC runs there; a test may not)."""
    paths = {k: project.root / v for k, v in opts if isinstance(v, Path) and not v.is_absolute()}
    return opts.model_copy(update=paths) if paths else opts


@app.command("build-lines")
@one_line_errors
def build_lines(work: str = typer.Argument(..., help="Work id, a key of `works:` in configs/pipeline.yaml.")) -> None:
    """Extract the lines of one configured work (the DVC `lines` stage)."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    if work not in settings.works:
        raise InputError(f"work {work!r} is not in works: of {project.pipeline_yaml} "
                         f"(known: {', '.join(settings.works) or 'none'})")
    check_id(work, "work id", project.pipeline_yaml)
    spec = settings.works[work]
    opts = _rooted(project, spec.typed_options(work, project.pipeline_yaml))
    run_extract(spec.kind, project.root / spec.input, work, project.lines(work), opts, project)
