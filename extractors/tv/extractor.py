"""The `tv` source kind behind the extractor contract: an episode (video or audio) -> timed lines.

Subtitles give text and timing when present; otherwise Whisper transcribes (transcripts cached under the
context's cache dir). With `speakers` (a model directory from `rolecorpus speakers train`) every line is
labelled by voice, with the ECAPA encoder the context hands in and the `accept` / `maybe` thresholds of
`ctx.settings["speakers"]` (those the configuration sets; else the speaker model's own).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import ClassVar, Iterator, Optional

from pydantic import Field, field_validator

from ..contract import ExtractContext, ExtractOptions
from ..records import Line
from .asr import BACKENDS, BUNDLED_MODEL, DEFAULT_BACKEND


class TvOptions(ExtractOptions):
    subtitles: Optional[Path] = Field(
        None, description="Subtitle file (.srt, .ass, .ssa, .vtt): its text and timing are used and ASR is skipped.")
    speakers: Optional[Path] = Field(
        None, description="Speaker model directory from `rolecorpus speakers train`: label every line by voice.")
    language: Optional[str] = Field(None, description="Spoken language: a Whisper code (en, zh, ja, ko, ...) passed to "
                                    "either ASR backend, or auto (the default): detected.")
    asr_backend: str = Field(DEFAULT_BACKEND, description="faster-whisper (the default, faster on CPU) or "
                             "openai-whisper (the reference implementation).")
    model: str = Field(
        BUNDLED_MODEL, description="Whisper model: 'base' (bundled offline weights), a .pt checkpoint "
        "(openai-whisper), a CTranslate2 directory (faster-whisper), or a Whisper model name (downloaded; needs internet).")
    encoding: Optional[str] = Field(
        None, description="Subtitle text encoding when it cannot be detected (e.g. gb18030, big5, utf-16, latin-1).")
    threads: int = Field(0, description="CPU threads for ASR and speaker embedding; 0 = library default.")
    beam_size: int = Field(5, description="Whisper beam size (and best-of for temperature fallback).")
    device: str = Field("cpu", description="Where Whisper and the speaker encoder run: cpu or cuda.")
    compute_type: str = Field("default", description="faster-whisper compute type (int8, int8_float16, float16, "
                              "float32); default: int8 on cpu, float16 on cuda.")
    encoder: Optional[Path] = Field(None, description="Folder of other speechbrain ECAPA weights (hyperparams.yaml, "
                                    "embedding_model.ckpt, ...); default: the bundled spkrec-ecapa-voxceleb.")
    vad: bool = Field(True, json_schema_extra={"flag": "--vad/--no-vad"},
                      description="Decode only the spans Silero VAD hears speech in (skips non-speech gaps of 2 s or more).")

    @field_validator("asr_backend")
    @classmethod
    def _backend(cls, v: str) -> str:
        if v not in BACKENDS:
            raise ValueError(f"--asr-backend must be one of {', '.join(BACKENDS)}, not {v!r}")
        return v

    @field_validator("language")
    @classmethod
    def _language(cls, v: Optional[str]) -> Optional[str]:
        from ..errors import InputError
        from .asr import check_language

        try:
            return check_language(v)
        except InputError as e:
            raise ValueError(str(e)) from None

    @field_validator("device")
    @classmethod
    def _device(cls, v: str) -> str:
        if v not in ("cpu", "cuda"):
            raise ValueError(f"--device must be cpu or cuda, not {v!r}")
        return v

    def model_kwargs(self) -> tuple[dict, dict]:
        """Extra arguments for Models.whisper and Models.speaker_encoder (only those not at their default)."""
        w = {k: v for k, v in (("device", self.device), ("compute_type", self.compute_type))
             if v not in ("cpu", "default")}
        e = {k: v for k, v in (("device", self.device), ("weights", self.encoder)) if v not in ("cpu", None)}
        return w, e


class TvExtractor:
    """Turn an episode into line records: subtitles or Whisper ASR, then speakers by voice."""

    kind: ClassVar[str] = "tv"
    Options: ClassVar[type[TvOptions]] = TvOptions
    source_help: ClassVar[str] = "The episode: any video or audio file ffmpeg reads."
    summary_to_stdout: ClassVar[bool] = False

    def extract(self, source: Path, work: str, ctx: ExtractContext) -> Iterator[Line]:
        from .extract import extract_tv

        opts: TvOptions = ctx.options
        wkw, ekw = opts.model_kwargs()
        yield from extract_tv(
            source, work, opts, resolver=ctx.resolver, cache_dir=ctx.cache_dir, progress=ctx.progress, log=ctx.log,
            speaker_encoder=lambda: ctx.models.speaker_encoder(opts.threads, **ekw),
            whisper=lambda: ctx.models.whisper(opts.asr_backend, opts.model, opts.threads, **wkw),
            speaker_thresholds=ctx.settings.get("speakers") or {})

    def summary(self, lines: list[Line], output: Path, ctx: ExtractContext) -> str:
        seen = Counter(ln.speaker for ln in lines)
        top = ", ".join(f"{s or 'unknown'} {n}" for s, n in seen.most_common(6))
        return f"wrote {len(lines)} lines to {output} ({top})"
