"""`rolecorpus build-lines WORK`: run the extractor a work's entry in configs/pipeline.yaml names.

This is what the DVC `lines_<kind>` stages call: it reads `works.<kind>.<WORK>` (input, args) and runs
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
    found = {w: (kind, spec) for kind, group in (settings.get("works") or {}).items() for w, spec in (group or {}).items()}
    if work not in found:
        raise InputError(f"work {work!r} is not in works: of {project.pipeline_yaml} (known: {', '.join(found) or 'none'})")
    kind, spec = found[work]
    source = (spec or {}).get("input")
    if not source:
        raise InputError(f"works.{kind}.{work} needs 'input'", project.pipeline_yaml)
    argv = ["extract", str(kind), str(project.root / source), "--work", work, "-o", str(project.lines(work))]
    argv += [str(a) for a in (spec.get("args") or [])]
    rc = app(argv, standalone_mode=False)
    if isinstance(rc, int) and rc != 0:  # a command that exited with typer.Exit(code)
        raise typer.Exit(rc)
