"""The `script` source kind behind the extractor contract: plays, screenplays and `Name: words` scripts."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Iterator, Optional

from pydantic import Field, field_validator

from ..contract import ExtractContext, ExtractOptions
from ..records import Line, summary

FORMAT_CHOICES = ("auto", "colon", "play", "screenplay")


class ScriptOptions(ExtractOptions):
    format: str = Field("auto", description="auto (score every parser and pick the best), colon, play or screenplay.")
    encoding: Optional[str] = Field(
        None, description="Text encoding when it cannot be detected (e.g. gb18030, big5, utf-16, latin-1).")

    @field_validator("format")
    @classmethod
    def _format(cls, v: str) -> str:
        if v not in FORMAT_CHOICES:
            raise ValueError(f"--format must be one of {', '.join(FORMAT_CHOICES)}, not {v!r}")
        return v


class ScriptExtractor:
    """Parse a script into line records: speakers from its cues, directions as action lines."""

    kind: ClassVar[str] = "script"
    Options: ClassVar[type[ScriptOptions]] = ScriptOptions
    source_help: ClassVar[str] = "The script: a play, screenplay or 'Name: words' text file."
    summary_to_stdout: ClassVar[bool] = False

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        from . import extract_script

        opts: ScriptOptions = ctx.options
        lines, chosen = extract_script(source, work, fmt=opts.format, encoding=opts.encoding, resolver=ctx.resolver)
        if opts.format == "auto":
            ctx.log(f"format: {chosen} (auto-detected; pass --format to override)")
        ctx.metrics["format"] = chosen
        yield from lines

    def summary(self, lines: list[Line], output: Path, ctx: ExtractContext) -> str:
        return summary(lines, output)
