"""Synthetic multi-voice episodes for the speaker-identification tests, spoken by espeak-ng.

Each voice is an espeak-ng voice + variant with its own base pitch and speed; every line varies
pitch (-p) and speed (-s) a little around them, so no two lines of a voice are identical.
Lines are concatenated with short pauses (and faint noise) into a 16 kHz wav; a labels csv
`character,text,start,end,media` gives who speaks when.
"""

from __future__ import annotations

import csv
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import soundfile as sf

from extractors.tv.audio import decode_audio

SR = 16000

VOICES = {
    # id: (espeak voice, base pitch, base speed)
    "amy": ("en-us", 55, 165),
    "beth": ("en-gb+f3", 65, 150),
    "carl": ("en-us+m7", 35, 175),
}

# Open-set and clustering measurements use two disjoint pools of five voices: thresholds are tuned on TUNE
# and reported on HELDOUT (other espeak variants, accents and sentences' order). The first three of a pool
# are enrolled (three labelled lines each), the last two are side characters nobody enrolled.
TUNE = {
    "amy": ("en-us", 55, 165), "beth": ("en-gb+f3", 65, 150), "carl": ("en-us+m7", 35, 175),
    "dora": ("en-gb-scotland+f2", 60, 160), "evan": ("en-029+m3", 40, 170),
}
HELDOUT = {
    "fay": ("en-gb-x-rp+f4", 62, 155), "gus": ("en-gb+m1", 38, 160), "hal": ("en-us-nyc+m5", 45, 180),
    "ivy": ("en-gb-x-gbclan+f1", 58, 170), "jon": ("en-gb-x-gbcwmd+m2", 42, 150),
}
ENROLLED = 3  # the first voices of a pool that are enrolled

SENTENCES = [
    "Where did you put the keys to the old car?",
    "I told you already, they are on the kitchen table.",
    "We should leave before the rain starts again.",
    "Nobody ever listens to what I say in this house.",
    "Have you seen the letter that came this morning?",
    "The train was late again, so I walked home.",
    "Please pass me the salt and the pepper.",
    "I think the meeting has been moved to Thursday.",
    "That was the best film I have seen all year.",
    "Can you believe what happened at the market?",
    "My brother is coming to visit next weekend.",
    "The garden looks wonderful after all that work.",
    "I am not sure we have enough time for dinner.",
    "Let us ask the neighbours if they heard anything.",
    "It is much colder today than it was yesterday.",
    "Someone left the front door open all night.",
    "I will call you as soon as I get to the station.",
    "Do you remember the name of that little hotel?",
    "The children are playing outside in the snow.",
    "We need to buy bread, milk and a dozen eggs.",
    "He said he would be here by seven o'clock.",
    "Turn off the radio, I can hardly hear myself think.",
    "What a surprise to see you here tonight.",
    "The doctor said I should rest for a few days.",
]


def have_tools() -> bool:
    return shutil.which("espeak-ng") is not None and shutil.which("ffmpeg") is not None


def speak(text: str, voice: str, pitch: int, speed: int, tmp: Path) -> np.ndarray:
    wav = tmp / "_say.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(speed), "-w", str(wav), text],
                   check=True, capture_output=True)
    audio = decode_audio(wav)
    # trim espeak's leading/trailing silence so label times are tight
    nz = np.flatnonzero(np.abs(audio) > 0.01)
    return audio[nz[0]: nz[-1] + 1] if nz.size else audio


def make_episode(out_dir: Path, lines_per_voice: int = 8, voices: dict | None = None, seed: int = 0,
                 name: str = "episode") -> tuple[Path, Path, list[dict]]:
    """Write `<name>.wav` and `<name>_labels.csv` into out_dir; return (wav, labels, rows)."""
    voices = voices or VOICES
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    turns = [v for v in voices for _ in range(lines_per_voice)]
    rng.shuffle(turns)
    sentences = SENTENCES[:]
    rng.shuffle(sentences)
    noise = np.random.default_rng(seed)
    pieces, rows, t = [], [], 0.0
    gap = lambda: np.zeros(int(SR * rng.uniform(0.25, 0.6)), dtype=np.float32)  # noqa: E731
    pieces.append(gap())
    t = len(pieces[0]) / SR
    for k, who in enumerate(turns):
        voice, pitch, speed = voices[who]
        text = sentences[k % len(sentences)]
        a = speak(text, voice, pitch + rng.randint(-8, 8), speed + rng.randint(-20, 20), out_dir)
        a = a * rng.uniform(0.5, 0.9) / max(1e-6, float(np.max(np.abs(a))))
        rows.append({"character": who, "text": text, "start": round(t, 3), "end": round(t + len(a) / SR, 3)})
        pieces.append(a.astype(np.float32))
        t += len(a) / SR
        g = gap()
        pieces.append(g)
        t += len(g) / SR
    audio = np.concatenate(pieces)
    audio = audio + noise.normal(0, 0.003, audio.shape).astype(np.float32)
    wav = out_dir / f"{name}.wav"
    sf.write(wav, audio, SR, subtype="PCM_16")
    (out_dir / "_say.wav").unlink(missing_ok=True)
    labels = out_dir / f"{name}_labels.csv"
    with open(labels, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["character", "text", "start", "end", "media"])
        w.writeheader()
        for r in rows:
            w.writerow({**r, "media": wav.name})
    return wav, labels, rows


_ENCODER = None


def shared_encoder():
    """One ECAPA encoder per test session (loading takes ~1.5 s), one torch thread."""
    global _ENCODER
    if _ENCODER is None:
        from extractors.tv.ecapa import load_encoder

        _ENCODER = load_encoder(threads=1)
    return _ENCODER


def write_characters(root: Path, ids) -> None:
    """Minimal character configs under root/configs/characters for a temporary project."""
    from extractors.characters import Character, save_character

    for cid in ids:
        save_character(root / "configs", Character(id=cid, name=cid.capitalize(), series="Test"))


def write_srt(path: Path, rows: list[dict]) -> Path:
    """Subtitles of an episode with no speaker names (the voices must be found by ear)."""
    def ts(t: float) -> str:
        ms = int(round(t * 1000))
        return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

    cues = [f"{i}\n{ts(r['start'])} --> {ts(r['end'])}\n{r['text']}\n" for i, r in enumerate(rows, 1)]
    path.write_text("\n".join(cues), encoding="utf-8")
    return path
