"""Speech regions for ASR: Silero VAD (bundled with faster-whisper, ONNX, offline) -> clip list.

Whisper's decoder is easily thrown by long stretches of non-speech: on the sample telephone call
(6.5 s of line noise before the first "Hello?") the base model falls into one-second timestamp
steps and repeats itself. Decoding only the spans that hold speech avoids that. Short pauses are
kept inside a span (the decoder needs the context); only gaps of at least `min_silence` seconds
are skipped, and each span is padded by `pad` seconds. The spans are passed to Whisper as
`clip_timestamps`, so times stay in the media's own timeline.
"""

from __future__ import annotations

import numpy as np

from .audio import SAMPLE_RATE


def speech_regions(
    audio: np.ndarray, *, min_silence: float = 2.0, pad: float = 0.4, threshold: float = 0.5
) -> list[tuple[float, float]]:
    """[(start, end), ...] in seconds of the spans that hold speech; [] when none is found."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    opts = VadOptions(threshold=threshold, min_silence_duration_ms=int(min_silence * 1000),
                      speech_pad_ms=int(pad * 1000))
    duration = len(audio) / SAMPLE_RATE
    spans: list[tuple[float, float]] = []
    for ts in get_speech_timestamps(np.ascontiguousarray(audio, dtype=np.float32), opts):
        s = max(0.0, ts["start"] / SAMPLE_RATE)
        e = min(duration, ts["end"] / SAMPLE_RATE)
        if spans and s - spans[-1][1] < min_silence:  # padding can close a gap: merge
            spans[-1] = (spans[-1][0], max(spans[-1][1], e))
        elif e > s:
            spans.append((s, e))
    return [(round(s, 2), round(e, 2)) for s, e in spans]
