"""Make the sample season: three short TV episodes spoken by espeak-ng voices, subtitles without names.

    python scripts/make_sample_season.py [--out data/samples/season]

Writes, into `--out`: `ep1.wav` .. `ep3.wav` (16 kHz mono, 16-bit, about 25 s each), `ep1.srt` .. `ep3.srt`
(one cue per line, its times and words, no speaker names), `truth.csv` (who really speaks each line,
`character,text,start,end,media`: for tests and measurements only, the pipeline never reads it) and `names.csv`
(`cluster,character`: the naming a person does once after `rolecorpus speakers discover`, recorded as data so that
`dvc repro` replays it; the script finds the clusters itself, as the person would by listening to the sample
clips, and names the two main characters; the two side characters stay unnamed).

The series ("Harbour Lights", written for this project): Mira keeps the lighthouse (the character the sample
builds, `configs/characters/mira.yaml`), Theo is her brother (`theo.yaml`); a postman and a neighbour are side
characters nobody enrolls, whose lines must end up with no speaker. Each voice is an espeak-ng voice + variant
with its own pitch and speed, varied a little per line; lines are joined by short pauses over faint noise.
The output is committed (data/samples/season/); rerunning the script rewrites it (espeak-ng versions may differ
slightly in sound).
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SR = 16000
VOICES = {  # character: (espeak-ng voice, pitch, speed)
    "mira": ("en-gb+f3", 65, 150),
    "theo": ("en-us+m7", 35, 175),
    "postman": ("en-029+m3", 40, 170),
    "neighbour": ("en-gb-scotland+f2", 60, 160),
}
NAMED = ("mira", "theo")
EPISODES = [
    [("theo", "Mira, the lamp went out again last night."),
     ("mira", "I know. I was up until dawn fixing the wiring."),
     ("postman", "Morning! A parcel for the lighthouse."),
     ("mira", "Thank you. Leave it by the door, please."),
     ("theo", "Is that the new lens you ordered?"),
     ("mira", "It is. Now the ships will see us from the bay."),
     ("neighbour", "Your light kept my whole house awake."),
     ("mira", "Sorry about that. It will be dimmer from tonight."),
     ("theo", "She always says that.")],
    [("mira", "Theo, help me carry the lens up the stairs."),
     ("theo", "All two hundred steps? You owe me supper."),
     ("postman", "Another letter from the harbour master."),
     ("theo", "What does he want this time?"),
     ("mira", "He says a storm is coming on Friday."),
     ("postman", "Best tie your boat down, both of you."),
     ("neighbour", "My cat is stuck on your roof again."),
     ("mira", "Then Theo will climb up and fetch it."),
     ("theo", "Of course I will.")],
    [("theo", "The storm is here. Can you hear the wind?"),
     ("mira", "Light the lamp. We keep it burning all night."),
     ("theo", "There is a fishing boat near the rocks!"),
     ("mira", "Signal them to turn west, towards the harbour."),
     ("postman", "I ran up to help. What can I do?"),
     ("mira", "Hold this rope, and do not let it go."),
     ("neighbour", "They made it! The boat is safe."),
     ("theo", "Mira, you saved them all.")],
]


def speak(text: str, voice: str, pitch: int, speed: int, tmp: Path) -> np.ndarray:
    from extractors.tv.audio import decode_audio

    wav = tmp / "say.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(speed), "-w", str(wav), text],
                   check=True, capture_output=True)
    audio = decode_audio(wav)
    nz = np.flatnonzero(np.abs(audio) > 0.01)  # trim espeak's silence so the cue times are tight
    return audio[nz[0]: nz[-1] + 1] if nz.size else audio


def srt_time(t: float) -> str:
    ms = int(round(t * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def make_episode(k: int, lines: list[tuple[str, str]], out: Path, tmp: Path) -> list[dict]:
    """Write ep<k>.wav and ep<k>.srt; return the true rows."""
    import soundfile as sf

    rng = random.Random(k)
    pieces = [np.zeros(int(SR * 0.4), np.float32)]
    t, rows = len(pieces[0]) / SR, []
    for who, text in lines:
        voice, pitch, speed = VOICES[who]
        a = speak(text, voice, pitch + rng.randint(-4, 4), speed + rng.randint(-10, 10), tmp)
        a = (a * rng.uniform(0.5, 0.9) / max(1e-6, float(np.max(np.abs(a))))).astype(np.float32)
        rows.append({"character": who, "text": text, "start": round(t, 3), "end": round(t + len(a) / SR, 3),
                     "media": f"ep{k}.wav"})
        gap = np.zeros(int(SR * rng.uniform(0.3, 0.5)), np.float32)
        pieces += [a, gap]
        t += (len(a) + len(gap)) / SR
    audio = np.concatenate(pieces)
    audio += np.random.default_rng(k).normal(0, 0.003, audio.shape).astype(np.float32)
    sf.write(out / f"ep{k}.wav", audio, SR, subtype="PCM_16")
    cues = [f"{i}\n{srt_time(r['start'])} --> {srt_time(r['end'])}\n{r['text']}\n" for i, r in enumerate(rows, 1)]
    (out / f"ep{k}.srt").write_text("\n".join(cues), encoding="utf-8")
    return rows


def name_clusters(out: Path, truth: list[dict]) -> list[tuple[str, str]]:
    """Discover the voices of the episodes as `speakers discover` does and name the clusters of NAMED by majority."""
    import torch

    torch.set_num_threads(1)
    from extractors.tv.audio import decode_audio
    from extractors.tv.discover import cluster_id, cluster_voices
    from extractors.tv.ecapa import load_encoder
    from extractors.tv.speaker_id import DEFAULTS, embed_spans

    enc = load_encoder(threads=1)
    E = np.concatenate([embed_spans(enc, decode_audio(out / f"ep{k}.wav"),
                                    [(r["start"], r["end"]) for r in truth if r["media"] == f"ep{k}.wav"], DEFAULTS)
                        for k in range(1, len(EPISODES) + 1)])
    clusters = cluster_voices(E)
    names = []
    for c in range(int(clusters.max()) + 1):
        who = [r["character"] for r, x in zip(truth, clusters) if x == c]
        top = max(set(who), key=who.count)
        print(f"{cluster_id(c)}: {len(who)} lines, {who.count(top)} of {top}")
        if top in NAMED:
            names.append((cluster_id(c), top))
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "samples" / "season")
    a = ap.parse_args()
    if shutil.which("espeak-ng") is None:
        sys.exit("error: espeak-ng is not installed (apt-get install espeak-ng)")
    a.out.mkdir(parents=True, exist_ok=True)
    truth = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, lines in enumerate(EPISODES, 1):
            truth += make_episode(k, lines, a.out, Path(tmp))
    with open(a.out / "truth.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["character", "text", "start", "end", "media"], lineterminator="\n")
        w.writeheader()
        w.writerows(truth)
    names = name_clusters(a.out, truth)
    with open(a.out / "names.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["cluster", "character"])
        w.writerows(names)
    print(f"wrote {a.out}: {len(EPISODES)} episodes, {len(truth)} lines; names {names}")


if __name__ == "__main__":
    main()
