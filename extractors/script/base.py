"""What every script parser produces before speaker names are resolved: a list of `Event`s.

A parser only reads text; `events_to_lines` turns its events into `Line` records (one schema,
docs/design.md) with indices counted from 0, speaker ids from an `AliasResolver`, `evidence="script"`.
`ParseResult` also carries the figures `detect.py` uses to score a parser on a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..characters import AliasResolver
from ..records import Line
from ..text import clean, join_lines, strip_italics

__all__ = ["Event", "ParseResult", "Emitter", "events_to_lines", "clean", "join_lines", "strip_italics"]


@dataclass
class Event:
    kind: str  # dialogue / action / narration
    text: str
    unit: str
    cue: str | None = None  # the speaker as written, for dialogue
    extra: dict = field(default_factory=dict)


@dataclass
class ParseResult:
    format: str
    events: list[Event]
    cue_lines: int = 0  # source lines that carried a speaker cue
    covered_chars: int = 0  # characters of the file the parser accounted for as dialogue or cues

    @property
    def dialogue(self) -> list[Event]:
        return [e for e in self.events if e.kind == "dialogue"]


class Emitter:
    """Collects events, dropping empty texts; parsers call `.say/.act/.narrate`."""

    def __init__(self, fmt: str, unit: str = "1"):
        self.result = ParseResult(fmt, [])
        self.unit = unit

    def say(self, cue: str, text: str, **extra) -> None:
        text = clean(text)
        if text:
            self.result.events.append(Event("dialogue", text, self.unit, cue, dict(extra)))
            self.result.covered_chars += len(text) + len(cue)

    def act(self, text: str, **extra) -> None:
        text = strip_italics(text)
        if text:
            self.result.events.append(Event("action", text, self.unit, None, dict(extra)))

    def narrate(self, text: str, **extra) -> None:
        text = clean(text)
        if text:
            self.result.events.append(Event("narration", text, self.unit, None, dict(extra)))


def events_to_lines(events: list[Event], work: str, source: str, resolver: AliasResolver | None = None) -> list[Line]:
    resolver = resolver or AliasResolver()
    out: list[Line] = []
    for ev in events:
        dialogue = ev.kind == "dialogue"
        out.append(
            Line(
                work=work,
                source=source,
                unit=ev.unit,
                index=len(out),
                kind=ev.kind,
                text=ev.text,
                speaker=resolver.speaker_id(ev.cue) if dialogue and ev.cue else None,
                name=ev.cue if dialogue else None,
                confidence=1.0 if dialogue else None,
                evidence="script" if dialogue else None,
                extra=dict(ev.extra),
            )
        )
    return out
