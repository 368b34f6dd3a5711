"""`rolecorpus build-lines WORK`: run the extractor a work's entry in configs/pipeline.yaml names.

This is what the DVC `lines` stage calls: it reads `works.<WORK>` (kind, input, args) and runs
`rolecorpus extract <kind> <input> --work <WORK> -o data/lines/<WORK>.jsonl <args...>` in-process.
"""

from __future__ import annotations

import typer

from extractors.errors import InputError

from ..cli_app import app
from ..paths import Project
from ..settings import load_settings


@app.command("build-lines")
def build_lines(work: str = typer.Argument(..., help="Work id, a key of `works:` in configs/pipeline.yaml.")) -> None:
    """Extract the lines of one configured work (the DVC `lines` stage)."""
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    works = settings.get("works") or {}
    if work not in works:
        raise InputError(f"work {work!r} is not in works: of {project.pipeline_yaml} (known: {', '.join(works) or 'none'})")
    spec = works[work]
    kind, source = spec.get("kind"), spec.get("input")
    if not kind or not source:
        raise InputError(f"works.{work} needs 'kind' and 'input'", project.pipeline_yaml)
    argv = ["extract", str(kind), str(project.root / source), "--work", work, "-o", str(project.lines(work))]
    argv += [str(a) for a in (spec.get("args") or [])]
    app(argv, standalone_mode=False)
