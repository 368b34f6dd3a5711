"""`rolecorpus build-lines WORK`: run the extractor a work's entry in configs/pipeline.yaml names.

This is what the DVC `lines` stage calls: it reads `works.<WORK>` (kind, input, options), resolves the paths
in the options against the project root, and calls the generic `run_extract` directly (no argv round trip);
a batch work (a folder of files) or `--engine ray` goes through pipeline/batch.py. `rolecorpus build` builds
every work and character in one job, on either engine (pipeline/engine/job.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from extractors.errors import InputError
from extractors.ids import check_id

from ..batch import is_batch
from ..cli_app import app, one_line_errors
from ..paths import Project
from ..settings import load_settings
from ..extraction import run_extract


ENGINE_HELP = "local: one file after another in this process (default); ray: fan out over Ray (models load once per worker)."
ADDRESS_HELP = "Ray cluster to join (default: RAY_ADDRESS, else Ray starts in this process)."
WORKERS_HELP = "Ray workers (actors); 0 = one per CPU."
PARTIAL_HELP = "When files of a batch fail, still write the lines of the others (and exit 1)."


@app.command("build-lines")
@one_line_errors
def build_lines(work: str = typer.Argument(..., help="Work id, a key of `works:` in configs/pipeline.yaml."),
                engine: str = typer.Option("local", "--engine", help=ENGINE_HELP),
                address: Optional[str] = typer.Option(None, "--address", help=ADDRESS_HELP),
                workers: int = typer.Option(0, "--workers", min=0, help=WORKERS_HELP),
                partial: bool = typer.Option(False, "--partial", help=PARTIAL_HELP)) -> None:
    """Extract the lines of one configured work (the DVC `lines` stage). A work whose input is a folder (files:
    a pattern in it) is a batch: every file is extracted on its own, and failed files are named at the end."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    if work not in settings.works:
        raise InputError(f"work {work!r} is not in works: of {project.pipeline_yaml} "
                         f"(known: {', '.join(settings.works) or 'none'})")
    check_id(work, "work id", project.pipeline_yaml)
    spec = settings.works[work]
    opts = project.rooted(spec.typed_options(work, project.pipeline_yaml))
    source = project.root / spec.input
    if engine == "local" and not is_batch(source, spec.files):
        run_extract(spec.kind, source, work, project.lines(work), opts, project)
        return
    run_batch(spec.kind, source, work, project.lines(work), opts, project, engine, address, workers, spec.files,
              partial)


def run_batch(kind: str, source: Path, work: str, output: Path, opts, project: Project, engine: str,
              address: Optional[str], workers: int, files: Optional[str], partial: bool) -> None:
    """Extract a work (a batch, or one file on Ray); failed files end it with exit 2 (with `partial`: 1)."""
    from ..batch import BatchFailed, extract_batch
    from ..engine import make_engine

    with make_engine(engine, address, workers) as eng:
        try:
            extract_batch(kind, source, work, output, opts, project, eng, files, partial)
        except BatchFailed as e:
            if not partial:
                raise
            print(f"error: {e}", file=sys.stderr)
            sys.exit(1)


@app.command("build")
@one_line_errors
def build(targets: Optional[List[str]] = typer.Argument(None, metavar="[WORK|CHARACTER]...",
                                                        help="Build only these works (with their characters) and characters (with their works)."),
          engine: str = typer.Option("local", "--engine", help=ENGINE_HELP),
          address: Optional[str] = typer.Option(None, "--address", help=ADDRESS_HELP),
          workers: int = typer.Option(0, "--workers", min=0, help=WORKERS_HELP)) -> None:
    """Build what is registered: lines, stories, vectors and packages.

    Everything in configs/pipeline.yaml, or the works and characters named: the lines of each work, then each
    character's stories, vectors and package, at the paths `dvc repro` writes. With
    --engine ray the files of all works, then the characters, run in parallel on Ray. A failed file or character
    does not stop the others: they are all named at the end (exit 2); a rerun redoes only what is missing."""
    from ..engine import make_engine
    from ..engine.job import build_all

    project = Project.current()
    with make_engine(engine, address, workers) as eng:
        build_all(project, eng, targets or [])
