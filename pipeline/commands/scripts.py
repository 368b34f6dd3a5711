"""`rolecorpus extract script` and `rolecorpus extract wiki`: scripts and quote pages -> lines.jsonl.

Speaker names are resolved through the character configs (`configs/characters/*.yaml`) of the
current project; the output is written atomically and only when lines were found.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Optional

import typer

from extractors.characters import AliasResolver, get_character, load_characters
from extractors.errors import InputError
from extractors.records import write_lines

from ..cli_app import extract_app, one_line_errors
from ..paths import Project

_FORMATS = ("auto", "colon", "play", "screenplay")




def _resolver() -> AliasResolver:
    return AliasResolver(load_characters(Project.current().configs))


def _summary(lines, out: Path) -> str:
    kinds = Counter(ln.kind for ln in lines)
    speakers = Counter(ln.speaker for ln in lines if ln.kind == "dialogue")
    top = ", ".join(f"{s} {n}" for s, n in speakers.most_common(5))
    return (
        f"wrote {len(lines)} lines to {out} ({kinds['dialogue']} dialogue, {kinds['action']} action, "
        f"{kinds['narration']} narration; {len(speakers)} speakers: {top})"
    )


@extract_app.command("script")
@one_line_errors
def extract_script_cmd(
    path: Path = typer.Argument(..., help="The script: a play, screenplay or 'Name: words' text file."),
    work: str = typer.Option(..., "--work", help="Work id written into every line record."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the lines (JSON Lines)."),
    fmt: str = typer.Option(
        "auto", "--format", help="auto (score every parser and pick the best), colon, play or screenplay."
    ),
    encoding: Optional[str] = typer.Option(
        None, "--encoding", help="Text encoding when it cannot be detected (e.g. gb18030, big5, utf-16, latin-1)."
    ),
) -> None:
    """Parse a script into line records: speakers from its cues, directions as action lines."""
    from extractors.script import extract_script

    if fmt not in _FORMATS:
        raise InputError(f"--format must be one of {', '.join(_FORMATS)}, not {fmt!r}")
    lines, chosen = extract_script(path, work, fmt=fmt, encoding=encoding, resolver=_resolver())
    if fmt == "auto":
        print(f"format: {chosen} (auto-detected; pass --format to override)", file=sys.stderr)
    write_lines(output, lines)
    print(_summary(lines, output), file=sys.stderr)


@extract_app.command("wiki")
@one_line_errors
def extract_wiki_cmd(
    path: Path = typer.Argument(..., help="A quote page saved as text or HTML (e.g. a voice-over table)."),
    work: str = typer.Option(..., "--work", help="Work id written into every line record."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the lines (JSON Lines)."),
    character: Optional[str] = typer.Option(
        None, "--character", help="Configured character id whose page this is (default: the page's <h1>/<title>)."
    ),
    encoding: Optional[str] = typer.Option(
        None, "--encoding", help="Text encoding when it cannot be detected (e.g. gb18030, big5, utf-16)."
    ),
) -> None:
    """Parse a wiki quote page into line records: attributed quotes and voice-line tables."""
    from extractors.wiki import extract_wiki

    project = Project.current()
    name = None
    if character:
        name = get_character(project.configs, character).name  # unknown id -> InputError
    lines = extract_wiki(path, work, encoding=encoding, resolver=_resolver(), character=name)
    write_lines(output, lines)
    print(_summary(lines, output), file=sys.stderr)
