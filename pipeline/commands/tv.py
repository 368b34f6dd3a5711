"""`rolecorpus extract tv`: an episode (video or audio) -> lines.jsonl.

Subtitles give text and timing when present; otherwise Whisper transcribes (transcripts cached
under the project cache). `--speakers MODEL_DIR` labels every line by voice with the thresholds of
the `speakers:` section of configs/pipeline.yaml.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Optional

import typer

from extractors.characters import AliasResolver, load_characters
from extractors.errors import InputError
from extractors.records import write_lines

from ..cli_app import extract_app, one_line_errors
from ..paths import Project
from ..settings import load_settings

_BACKENDS = ("openai-whisper", "faster-whisper")




@extract_app.command("tv")
@one_line_errors
def extract_tv_cmd(
    media: Path = typer.Argument(..., help="The episode: any video or audio file ffmpeg reads."),
    work: str = typer.Option(..., "--work", help="Work id written into every line record."),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write the lines (JSON Lines)."),
    subtitles: Optional[Path] = typer.Option(
        None, "--subtitles", help="Subtitle file (.srt, .ass, .ssa, .vtt): its text and timing are used and ASR is skipped."
    ),
    speakers: Optional[Path] = typer.Option(
        None, "--speakers", help="Speaker model directory from `rolecorpus speakers train`: label every line by voice."
    ),
    language: Optional[str] = typer.Option(None, "--language", help="Spoken language code (en, zh, ...); detected when omitted."),
    asr_backend: str = typer.Option("openai-whisper", "--asr-backend", help="openai-whisper or faster-whisper (faster on CPU)."),
    model: str = typer.Option(
        "base", "--model",
        help="Whisper model: 'base' (bundled offline weights), a .pt checkpoint (openai-whisper), a CTranslate2 "
             "directory (faster-whisper), or a Whisper model name (downloaded; needs internet).",
    ),
    encoding: Optional[str] = typer.Option(
        None, "--encoding", help="Subtitle text encoding when it cannot be detected (e.g. gb18030, big5, utf-16, latin-1)."
    ),
    threads: int = typer.Option(0, "--threads", help="CPU threads for ASR and speaker embedding; 0 = library default."),
    beam_size: int = typer.Option(5, "--beam-size", help="Whisper beam size (and best-of for temperature fallback)."),
    vad: bool = typer.Option(
        True, "--vad/--no-vad",
        help="Decode only the spans Silero VAD hears speech in (skips non-speech gaps of 2 s or more).",
    ),
) -> None:
    """Turn an episode into line records: subtitles or Whisper ASR, then speakers by voice."""
    from extractors.tv.asr import DecodeOptions
    from extractors.tv.extract import extract_tv

    if asr_backend not in _BACKENDS:
        raise InputError(f"--asr-backend must be one of {', '.join(_BACKENDS)}, not {asr_backend!r}")
    if speakers is not None and not speakers.is_dir():
        raise InputError("no such speaker model directory (make one with `rolecorpus speakers train`)", speakers)
    project = Project.current()
    settings = load_settings(project.pipeline_yaml)
    resolver = AliasResolver(load_characters(project.configs))
    lines = extract_tv(
        media, work, subtitles=subtitles, speakers=speakers, language=language, asr_backend=asr_backend,
        model=model, cache_dir=project.cache, resolver=resolver, encoding=encoding,
        speaker_options=settings.get("speakers") or {}, threads=threads,
        asr_options=DecodeOptions(beam_size=beam_size, best_of=beam_size, vad=vad),
        log=lambda msg: print(msg, file=sys.stderr),
    )
    write_lines(output, lines)
    speakers_seen = Counter(ln.speaker for ln in lines)
    top = ", ".join(f"{s or 'unknown'} {n}" for s, n in speakers_seen.most_common(6))
    print(f"wrote {len(lines)} lines to {output} ({top})", file=sys.stderr)
