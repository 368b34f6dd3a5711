"""The one contract every source kind implements: `extract(source, work, ctx) -> Iterator[Line]`.

An extractor is a class with a `kind` (the name users type: `rolecorpus extract KIND`), an `Options` pydantic
model (its settings, each default defined once there; `extra="forbid"`), and `extract`. Everything it needs
from outside comes in the `ExtractContext`: the alias resolver and the configured characters, the validated
options, the heavy models (built lazily on the pipeline side and handed in: nothing under extractors/ builds
its own model), where to cache, a logger, and a `metrics` dict the extractor fills (the pipeline writes it out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from .characters import AliasResolver, Character
from .errors import InputError
from .records import Line


class ExtractOptions(BaseModel):
    """Base of every kind's Options: unknown keys and wrong types are errors; `json_schema_extra={"flag": ...}`
    on a field names its CLI flag when `--field-name` is not it (e.g. `--vad/--no-vad`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@runtime_checkable
class Models(Protocol):
    """The heavy models an extractor may ask for; each is built on first use, once per process."""

    def speaker_encoder(self, threads: int = 0) -> Any:
        """The ECAPA-TDNN speaker encoder (extractors.tv.ecapa.EcapaEncoder)."""

    def chat_model(self) -> Any:
        """The LangChain chat model of the configured OpenAI-compatible endpoint."""

    def whisper(self, backend: str, model: str, threads: int = 0) -> Any:
        """The loaded Whisper model (openai-whisper or faster-whisper) named by `model`."""


class NoModels:
    """The default: no model can be had (an extractor that needs one says which)."""

    def speaker_encoder(self, threads: int = 0) -> Any:
        raise InputError("this extraction needs the ECAPA speaker encoder, but no models were handed in")

    def chat_model(self) -> Any:
        raise InputError("this extraction needs an LLM, but no models were handed in")

    def whisper(self, backend: str, model: str, threads: int = 0) -> Any:
        raise InputError("this extraction needs Whisper, but no models were handed in")


@dataclass
class ExtractContext:
    """What an extractor gets besides the source and the work id."""

    options: BaseModel
    resolver: AliasResolver = field(default_factory=AliasResolver)
    characters: dict[str, Character] = field(default_factory=dict)  # configured characters, all works
    models: Models = field(default_factory=NoModels)
    cache_dir: Path | None = None            # transcripts, LLM answers (keyed by content)
    configs_dir: Path | None = None          # configs/ (per-work extras such as novel_examples/<work>.yaml)
    settings: dict = field(default_factory=dict)  # pipeline sections an extractor may read (`speakers`)
    metrics_dir: Path | None = None          # where an extractor's running counters may live while it runs
    log: Callable[[str], None] = lambda _msg: None
    progress: bool = True
    metrics: dict = field(default_factory=dict)  # filled by the extractor; the pipeline writes metrics/<kind>_<work>.json
    report: str = ""                          # a one-line summary the extractor leaves for the user


@runtime_checkable
class Extractor(Protocol):
    """One source kind. `source_help` describes the input for `--help`; `summary_to_stdout` says where the
    one-line report goes (stderr by default)."""

    kind: ClassVar[str]
    Options: ClassVar[type[BaseModel]]
    source_help: ClassVar[str]

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        """The line records of `source`, in order (index strictly increasing). Bad input: InputError."""
