"""The typer applications every command module attaches its commands to.

`rolecorpus` (app) has sub-apps `extract`, `speakers`, `eval` and `characters`. Command modules live in
`pipeline/commands/` and are imported by `pipeline.cli`.
"""

from __future__ import annotations

import functools
import sys

import typer

from extractors.errors import InputError

app = typer.Typer(
    name="rolecorpus",
    help="Build character story corpora for role-play chatbots (ChatHaruhi method) and chat with them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
extract_app = typer.Typer(help="Turn a source (script, wiki page, novel, TV episode) into lines.jsonl.", no_args_is_help=True)
speakers_app = typer.Typer(help="Speaker identification by voice: train, review, apply corrections, evaluate.", no_args_is_help=True)
eval_app = typer.Typer(help="Measure extraction quality against gold annotations.", no_args_is_help=True)
characters_app = typer.Typer(help="Find the cast of a source before configuring it (names, aliases, gender, narrator).", no_args_is_help=True)
app.add_typer(extract_app, name="extract")
app.add_typer(speakers_app, name="speakers")
app.add_typer(eval_app, name="eval")
app.add_typer(characters_app, name="characters")


def one_line_errors(fn):
    """Print InputError as `error: ...` and exit 2 inside the command, so the same happens when the
    app is driven by CliRunner or in-process (`build-lines`), not only through `pipeline.cli.main`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except InputError as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(2)

    return wrapper

from .commands import export as _export  # noqa: E402,F401  (registers `rolecorpus export`; after `app` exists)
