"""`rolecorpus extract KIND SOURCE [--work W] [-o OUT] [options]`: one command per registered source kind, each
generated from the kind's `Options` model (a field `foo_bar` is the flag `--foo-bar`, its description the help),
all running through the one function `run.run_extract` (a glob or folder SOURCE, or `--engine ray`, through
pipeline/batch.py first). Without `--work` the work id is the source's name (`hongloumeng.txt`: `hongloumeng`;
a folder or glob: its folder's); without `-o` the lines go to the project's `data/lines/<work>.jsonl`.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from extractors.errors import InputError
from extractors.registry import get_extractor, kinds

from ..batch import is_batch
from ..cli_app import extract_app, one_line_errors
from ..paths import Project
from ..settings import validate_model
from .build import ADDRESS_HELP, ENGINE_HELP, PARTIAL_HELP, WORKERS_HELP, run_batch
from ..extraction import run_extract

BATCH_HELP = (" A folder or a quoted glob (\"S01/*.mkv\") is a batch: every file is extracted on its own into the one"
              " lines file (tv: subtitles beside each episode by name, none = Whisper).")


def _option_param(name: str, field) -> inspect.Parameter:
    """A typer option for one field of an Options model: `--field-name` (or the field's `flag`), its help."""
    flag = (field.json_schema_extra or {}).get("flag") or "--" + name.replace("_", "-")
    default = typer.Option(field.default, flag, help=field.description, show_default=field.default is not None)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=field.annotation)


def default_work(source: Path) -> str:
    """The work id a source names: a file's stem, a folder's name, a glob's folder (letters, digits, `_`, `-`, `.`;
    anything else becomes `_`)."""
    text = str(source)
    if any(c in text for c in "*?["):
        prefix = re.split(r"[*?\[]", text, maxsplit=1)[0]
        name = (Path(prefix) if prefix.endswith(("/", "\\")) else Path(prefix).parent).resolve().name
    else:
        name = source.resolve().name if source.is_dir() else source.stem
    work = re.sub(r"[^\w.\-]+", "_", name).strip("._-")[:64]
    if not work:
        raise InputError("no work id can be made from the source's name; give --work", source)
    return work


def make_command(kind: str) -> Callable:
    """The `extract KIND` command: SOURCE, --work, -o/--output, then one option per field of the kind's Options."""
    ext = get_extractor(kind)

    def command(source: Path, work: Optional[str] = None, output: Optional[Path] = None, engine: str = "local",
                address: Optional[str] = None, workers: int = 0, partial: bool = False, **options: Any) -> None:
        if work is None or output is None:
            work = work or default_work(source)
            output = output or Project.current().lines(work)
            print(f"work {work}, lines to {output}", file=sys.stderr)
        if engine == "local" and not is_batch(source):
            run_extract(kind, source, work, output, options)
            return
        opts = validate_model(ext.Options, options, prefix=None)
        run_batch(kind, source, work, output, opts, Project.current(), engine, address, workers, None, partial)

    common = [
        inspect.Parameter("source", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Path,
                          default=typer.Argument(..., metavar="SOURCE", help=ext.source_help + BATCH_HELP)),
        inspect.Parameter("work", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[str],
                          default=typer.Option(None, "--work", show_default=False, help="Work id written into every line "
                                               "record; its configured characters are used (default: the source's "
                                               "name, `novel.txt` -> `novel`).")),
        inspect.Parameter("output", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[Path],
                          default=typer.Option(None, "-o", "--output", show_default=False, help="Where to write the "
                                               "lines (JSON Lines; default: data/lines/<work>.jsonl).")),
    ]
    batch = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann, default=default) for name, ann, default in (
        ("engine", str, typer.Option("local", "--engine", help=ENGINE_HELP)),
        ("address", Optional[str], typer.Option(None, "--address", help=ADDRESS_HELP)),
        ("workers", int, typer.Option(0, "--workers", min=0, help=WORKERS_HELP)),
        ("partial", bool, typer.Option(False, "--partial", help=PARTIAL_HELP)))]
    fields = batch + [_option_param(n, f) for n, f in ext.Options.model_fields.items()]
    command.__signature__ = inspect.Signature(common + fields)
    command.__name__ = f"extract_{kind}"
    command.__doc__ = inspect.cleandoc(ext.__doc__ or f"Turn a {kind} source into line records.")
    return one_line_errors(command)


for _kind in kinds():
    extract_app.command(_kind)(make_command(_kind))
