"""The `wiki` source kind behind the extractor contract: quote pages (text or HTML) and voice-line tables."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Iterator, Optional

from pydantic import Field

from ..characters import get_character
from ..contract import ExtractContext, ExtractOptions
from ..errors import InputError
from ..records import Line, summary


class WikiOptions(ExtractOptions):
    character: Optional[str] = Field(
        None, description="Configured character id whose page this is (default: the page's <h1>/<title>).")
    encoding: Optional[str] = Field(
        None, description="Text encoding when it cannot be detected (e.g. gb18030, big5, utf-16).")


class WikiExtractor:
    """Parse a wiki quote page into line records: attributed quotes and voice-line tables."""

    kind: ClassVar[str] = "wiki"
    Options: ClassVar[type[WikiOptions]] = WikiOptions
    source_help: ClassVar[str] = "A quote page saved as text or HTML (e.g. a voice-over table)."
    summary_to_stdout: ClassVar[bool] = False

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        from . import extract_wiki

        opts: WikiOptions = ctx.options
        name = None
        if opts.character:
            if ctx.configs_dir is None:
                raise InputError(f"--character {opts.character!r} needs the project's configs/characters")
            name = get_character(ctx.configs_dir, opts.character).name  # unknown id -> InputError
        yield from extract_wiki(source, work, encoding=opts.encoding, resolver=ctx.resolver, character=name)

    def summary(self, lines: list[Line], output: Path, ctx: ExtractContext) -> str:
        return summary(lines, output)
