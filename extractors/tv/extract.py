"""One episode to lines: subtitles (or Whisper ASR), then optionally speaker identification by voice.

The media file is always decoded (ffmpeg, 16 kHz mono) so a corrupt or silent file is refused up
front and subtitles that run past the end of the media (a wrong subtitle file) are caught.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line
from .asr import BUNDLED_MODEL, transcribe, transcript_to_lines
from .audio import SAMPLE_RATE, decode_audio
from .subtitles import subtitle_lines

# Subtitles may end a little after the audio (fade-outs, rounding); anything later is a mismatch.
END_TOLERANCE = 5.0


def _check_against_media(lines: list[Line], duration: float, subtitles: Path) -> None:
    for ln in lines:
        if ln.start is not None and ln.start > duration + END_TOLERANCE:
            raise InputError(
                f"subtitle starts at {ln.start:.1f} s, after the end of the media ({duration:.1f} s): "
                "is it the subtitle file of another episode?", subtitles, ln.extra.get("row"))


def extract_tv(
    media: str | Path,
    work: str,
    subtitles: str | Path | None = None,
    speakers: str | Path | None = None,
    language: str | None = None,
    asr_backend: str = "openai-whisper",
    model: str = BUNDLED_MODEL,
    cache_dir: str | Path | None = None,
    resolver: AliasResolver | None = None,
    *,
    encoding: str | None = None,
    speaker_options: dict | None = None,
    encoder=None,
    threads: int = 0,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    asr_options=None,
) -> list[Line]:
    """Lines of one episode. `cache_dir` holds the ASR transcripts (keyed by content hash, model, options).

    `speaker_options` may give `accept` / `maybe` thresholds for speaker identification; `encoder`
    is the ECAPA encoder (built from the offline weights when None). `asr_options` are Whisper's
    decoding options (`asr.DecodeOptions`; its defaults when None).
    """
    media = Path(media)
    say = log or (lambda _msg: None)
    audio = decode_audio(media)
    duration = len(audio) / SAMPLE_RATE
    source, unit = media.name, media.stem
    if subtitles is not None:
        subtitles = Path(subtitles)
        lines = subtitle_lines(subtitles, work, source=source, unit=unit, resolver=resolver, encoding=encoding)
        _check_against_media(lines, duration, subtitles)
        for ln in lines:
            ln.extra["subtitles"] = subtitles.name
        say(f"{len(lines)} lines from {subtitles.name}")
    else:
        tr = transcribe(media, backend=asr_backend, model=model, language=language, cache_dir=cache_dir,
                        audio=audio, threads=threads, progress=progress, options=asr_options)
        lines = transcript_to_lines(tr, work, source, unit)
        if not lines:
            raise InputError("Whisper heard no speech in the media", media)
        say(f"{len(lines)} lines transcribed by {asr_backend} ({model}, language {tr['language']})"
            + (" [cached]" if tr.get("cached") else ""))
    if speakers is not None:
        from tqdm import tqdm

        from .speaker_id import label_lines

        if encoder is None:
            from .ecapa import load_encoder

            encoder = load_encoder(threads=threads or None)
        opts = speaker_options or {}
        with tqdm(total=sum(1 for ln in lines if ln.start is not None), unit="line", desc="speaker id",
                  disable=not progress, leave=False) as bar:
            lines = label_lines(lines, audio, Path(speakers), accept=opts.get("accept"), maybe=opts.get("maybe"),
                                encoder=encoder, progress=bar.update)
        known = sum(1 for ln in lines if ln.speaker)
        say(f"speakers: {known} of {len(lines)} lines labelled")
    return lines
