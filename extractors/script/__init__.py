"""Script extractor: play, screenplay and colon-form scripts -> line records.

`extract_script(path, work, fmt="auto", encoding=None, resolver=None)` returns
`(lines, chosen_format)`. Formats: `play` (play.py), `screenplay` (screenplay.py), `colon`
(colon.py); `auto` scores them all on the file (detect.py). Speaker cues are resolved to
character ids through the `AliasResolver` (configured id when an alias matches, else a slug of
the cue); `name` keeps the cue as written. Project Gutenberg licence header and footer are cut
off before parsing; a script saved as a web page (IMSDb `<pre>`, HTML play) is read as its text (html.py).
"""

from __future__ import annotations

from pathlib import Path

from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line
from ..text import strip_gutenberg
from ..textio import read_text
from .base import events_to_lines
from .detect import FORMATS, PARSERS, detect
from .html import html_to_text

__all__ = ["extract_script", "parse_text", "FORMATS"]

def parse_text(text: str, fmt: str = "auto", resolver: AliasResolver | None = None, path=None):
    """Parse script text; return (ParseResult, chosen format)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown script format {fmt!r}; use one of {', '.join(FORMATS)}", path)
    text = strip_gutenberg(html_to_text(text))
    if fmt == "auto":
        chosen, result, _ = detect(text, resolver, path)
        return result, chosen
    result = PARSERS[fmt](text, resolver)
    if not result.dialogue:
        raise InputError(f"no dialogue found when reading the file as a {fmt} script; try --format auto", path)
    return result, fmt


def extract_script(
    path: str | Path,
    work: str,
    fmt: str = "auto",
    encoding: str | None = None,
    resolver: AliasResolver | None = None,
) -> tuple[list[Line], str]:
    """Read a script file and return its line records and the format used."""
    path = Path(path)
    text = read_text(path, encoding)
    result, chosen = parse_text(text, fmt, resolver, path)
    return events_to_lines(result.events, work, path.name, resolver), chosen
