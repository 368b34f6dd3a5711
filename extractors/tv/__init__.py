"""TV/film extractor: ffmpeg -> Whisper ASR or subtitle import -> ECAPA-TDNN speaker identification.

What code outside this folder may use is exported here (imported on first use: torch and Whisper load only when a
name that needs them is asked for); everything else is this kind's own.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "load_model": "asr",
    "SAMPLE_RATE": "audio", "decode_audio": "audio",
    "discover_voices": "discover", "write_discovery": "discover", "name_clusters": "discover", "read_names": "discover",
    "load_encoder": "ecapa", "make_speechbrain_importable": "ecapa",
    "extract_tv": "extract",
    "TvOptions": "extractor",
    "append_labels": "labels", "check_ranges": "labels", "read_labels": "labels",
    "apply_review": "review", "line_key": "review", "read_review": "review", "write_review": "review",
    "DEFAULTS": "speaker_id", "SpeakerModel": "speaker_id", "evaluate": "speaker_id",
    "train_from_labels": "speaker_id",
    "FORMATS": "subtitles",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return value  # not cached here: a test that patches the module's function is seen
