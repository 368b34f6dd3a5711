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
from .asr import DecodeOptions, transcribe, transcript_to_lines
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


def _subtitle_lines(media: Path, work: str, duration: float, opts, resolver, say) -> list[Line]:
    subtitles = Path(opts.subtitles)
    lines = subtitle_lines(subtitles, work, source=media.name, unit=media.stem, resolver=resolver, encoding=opts.encoding)
    _check_against_media(lines, duration, subtitles)
    for ln in lines:
        ln.extra["subtitles"] = subtitles.name
    say(f"{len(lines)} lines from {subtitles.name}")
    return lines


def _asr_lines(media: Path, work: str, audio, opts, cache_dir, progress: bool, say, whisper=None) -> list[Line]:
    asr_options = DecodeOptions(beam_size=opts.beam_size, best_of=opts.beam_size, vad=opts.vad)
    tr = transcribe(media, backend=opts.asr_backend, model=opts.model, language=opts.language, cache_dir=cache_dir,
                    audio=audio, threads=opts.threads, progress=progress, options=asr_options,
                    loader=whisper)
    lines = transcript_to_lines(tr, work, media.name, media.stem)
    if not lines:
        raise InputError("Whisper heard no speech in the media", media)
    say(f"{len(lines)} lines transcribed by {opts.asr_backend} ({opts.model}, language {tr['language']})"
        + (" [cached]" if tr.get("cached") else ""))
    return lines


def extract_tv(
    media: str | Path,
    work: str,
    opts,
    *,
    resolver: AliasResolver | None = None,
    speaker_encoder: Callable[[], object] | None = None,
    whisper: Callable[[], object] | None = None,
    speaker_thresholds: dict | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> list[Line]:
    """Lines of one episode, as `opts` (extractors.tv.extractor.TvOptions) asks.

    `cache_dir` holds the ASR transcripts (keyed by content hash, model, options). With `opts.speakers`, lines
    are labelled by voice with the encoder `speaker_encoder()` returns (the ECAPA encoder, built by the caller)
    and the `accept` / `maybe` / `keep_maybe` of `speaker_thresholds` (the speaker model's own when absent). `whisper()`
    returns the loaded Whisper model on a transcript-cache miss (built by the caller).
    """
    media = Path(media)
    say = log or (lambda _msg: None)
    if opts.speakers is not None and not Path(opts.speakers).is_dir():
        raise InputError("no such speaker model directory (make one with `rolecorpus speakers train`)", opts.speakers)
    if getattr(opts, "encoder", None) is not None and opts.speakers is not None:
        from .ecapa import check_weights

        check_weights(opts.encoder)
    audio = decode_audio(media)
    duration = len(audio) / SAMPLE_RATE
    if opts.subtitles is not None:
        lines = _subtitle_lines(media, work, duration, opts, resolver, say)
    else:
        lines = _asr_lines(media, work, audio, opts, cache_dir, progress, say, whisper)
    if opts.speakers is None:
        return lines
    from tqdm import tqdm

    from .speaker_id import label_lines

    if speaker_encoder is None:
        raise InputError("speaker identification needs the ECAPA encoder, and none was handed in")
    th = speaker_thresholds or {}
    with tqdm(total=sum(1 for ln in lines if ln.start is not None), unit="line", desc="speaker id",
              disable=not progress, leave=False) as bar:
        lines = label_lines(lines, audio, Path(opts.speakers), accept=th.get("accept"), maybe=th.get("maybe"),
                            encoder=speaker_encoder(), progress=bar.update, keep_maybe=th.get("keep_maybe"))
    known = sum(1 for ln in lines if ln.speaker)
    maybes = sum(1 for ln in lines if (ln.extra.get("voice") or {}).get("status") == "maybe" and not ln.speaker)
    say(f"speakers: {known} of {len(lines)} lines labelled" + (f"; {maybes} 'maybe' left for review" if maybes else ""))
    return lines
