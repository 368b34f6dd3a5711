"""`rolecorpus extract KIND SOURCE --work W -o OUT [options]`: one command per registered source kind, all
generated from the kind's `Options` model and run through one function, `run_extract`:
validate the options -> resolve characters -> run the extractor -> write the lines atomically -> metrics.
`build-lines` (the DVC `lines` stage) calls `run_extract` directly with the options of configs/pipeline.yaml.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import typer
from pydantic import BaseModel

from extractors.atomic import atomic_write_text
from extractors.characters import AliasResolver, load_characters
from extractors.contract import ExtractContext
from extractors.records import Line, write_lines
from extractors.registry import get_extractor, kinds

from ..cli_app import extract_app, one_line_errors
from ..models import PipelineModels
from ..paths import Project
from ..settings import load_settings, validate_model


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)


def metrics_path(project: Project, kind: str, work: str) -> Path:
    """`metrics/<kind>_<work>.json`: what an extractor reports in `ctx.metrics` (declared in dvc.yaml)."""
    return project.metrics / f"{kind}_{work}.json"


def run_extract(kind: str, source: Path, work: str, output: Path, options: BaseModel | Mapping[str, Any],
                project: Project | None = None, models=None, log: Callable[[str], None] = _stderr) -> list[Line]:
    """Extract the lines of one source with the `kind` extractor and write them (nothing is written on error)."""
    project = project or Project.current()
    extractor = get_extractor(kind)()
    opts = options if isinstance(options, BaseModel) else validate_model(extractor.Options, dict(options))
    settings = load_settings(project.pipeline_yaml)
    characters = load_characters(project.configs)
    ctx = ExtractContext(
        options=opts, resolver=AliasResolver(characters), characters=characters,
        models=models or PipelineModels(project.cache), cache_dir=project.cache, configs_dir=project.configs,
        settings={"speakers": settings.speakers.model_dump(exclude_unset=True)},
        metrics_dir=project.metrics, log=log)
    lines = list(extractor.extract(Path(source), work, ctx))
    write_lines(output, lines)
    if ctx.metrics:
        atomic_write_text(metrics_path(project, kind, work), json.dumps(ctx.metrics, indent=2) + "\n")
    report = extractor.summary(lines, output, ctx)
    if getattr(extractor, "summary_to_stdout", False):
        typer.echo(report)
    else:
        log(report)
    return lines


def _option_param(name: str, field) -> inspect.Parameter:
    """A typer option for one field of an Options model: `--field-name` (or the field's `flag`), its help."""
    flag = (field.json_schema_extra or {}).get("flag") or "--" + name.replace("_", "-")
    default = typer.Option(field.default, flag, help=field.description, show_default=field.default is not None)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=field.annotation)


def make_command(kind: str) -> Callable:
    """The `extract KIND` command: SOURCE, --work, -o/--output, then one option per field of the kind's Options."""
    ext = get_extractor(kind)

    def command(source: Path, work: str, output: Path, **options: Any) -> None:
        run_extract(kind, source, work, output, options)

    common = [
        inspect.Parameter("source", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Path,
                          default=typer.Argument(..., metavar="SOURCE", help=ext.source_help)),
        inspect.Parameter("work", inspect.Parameter.KEYWORD_ONLY, annotation=str,
                          default=typer.Option(..., "--work", help="Work id written into every line record.")),
        inspect.Parameter("output", inspect.Parameter.KEYWORD_ONLY, annotation=Path,
                          default=typer.Option(..., "-o", "--output", help="Where to write the lines (JSON Lines).")),
    ]
    fields = [_option_param(n, f) for n, f in ext.Options.model_fields.items()]
    command.__signature__ = inspect.Signature(common + fields)
    command.__name__ = f"extract_{kind}"
    command.__doc__ = inspect.cleandoc(ext.__doc__ or f"Turn a {kind} source into line records.")
    return one_line_errors(command)


for _kind in kinds():
    extract_app.command(_kind)(make_command(_kind))
