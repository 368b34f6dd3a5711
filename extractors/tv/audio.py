"""Decode any media file ffmpeg reads into 16 kHz mono float32 samples.

Corrupt, unreadable or silent media raise InputError naming the file.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from ..errors import InputError

SAMPLE_RATE = 16000


def decode_audio(path: str | Path, sr: int = SAMPLE_RATE, check_silence: bool = True) -> np.ndarray:
    path = Path(path)
    if not path.exists():
        raise InputError("no such media file", path)
    if shutil.which("ffmpeg") is None:
        raise InputError("ffmpeg is not installed (apt-get install ffmpeg)")
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-vn", "-ac", "1", "-ar", str(sr), "-f", "f32le", "-"]
    proc = subprocess.run(cmd, capture_output=True)
    if proc.returncode != 0 or not proc.stdout:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = msg[-1] if msg else "no audio stream"
        raise InputError(f"cannot decode audio ({reason})", path)
    audio = np.frombuffer(proc.stdout, dtype=np.float32).copy()
    if audio.size < sr // 10:
        raise InputError("media has less than 0.1 s of audio", path)
    if check_silence and float(np.max(np.abs(audio))) < 1e-4:
        raise InputError("media is silent", path)
    return audio
