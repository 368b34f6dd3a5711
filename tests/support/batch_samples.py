"""Batch works made from the bundled samples, for tests/pipeline/test_batch_works.py, tests/pipeline/test_ray_engine.py and
benchmarks/scale_ray.py: a shelf of novels (chapter ranges of alice29.txt and sanguo_1-15.txt), a season of audio
episodes (slices of sample.wav, each with the lines of sample_named.srt that fall in it, shifted; some without
subtitles, for Whisper), and a corrupt episode (random bytes named .wav).
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
_SRT = re.compile(r"(\d+):(\d+):(\d+),(\d+) --> (\d+):(\d+):(\d+),(\d+)\n(.*?)(?:\n\n|\Z)", re.S)


def _secs(h, m, s, ms) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def _stamp(t: float) -> str:
    ms = round(t * 1000)
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def episode(dst: Path, start: float, end: float, subtitles: bool = True) -> Path:
    """`dst` (.wav): sample.wav from `start` to `end` s; beside it `dst.srt` with the cues inside that span."""
    import soundfile as sf

    audio, rate = sf.read(SAMPLES / "sample.wav", dtype="int16")
    dst.parent.mkdir(parents=True, exist_ok=True)
    sf.write(dst, audio[int(start * rate):int(end * rate)], rate, subtype="PCM_16")
    if subtitles:
        cues = []
        for m in _SRT.finditer((SAMPLES / "sample_named.srt").read_text(encoding="utf-8")):
            a, b = _secs(*m.group(1, 2, 3, 4)), _secs(*m.group(5, 6, 7, 8))
            if a >= start and b <= end:
                cues.append(f"{len(cues) + 1}\n{_stamp(a - start)} --> {_stamp(b - start)}\n{m.group(9).strip()}\n")
        dst.with_suffix(".srt").write_text("\n".join(cues), encoding="utf-8")
    return dst


def corrupt_episode(dst: Path, seed: int = 7) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(random.Random(seed).randbytes(50_000))
    return dst


def novel(dst: Path, name: str, first: int, last: int) -> Path:
    """Chapters `first`..`last` (1-based) of a sample novel (alice29 or sanguo_1-15) as one text file."""
    text = (SAMPLES / f"{name}.txt").read_text(encoding="utf-8")
    heading = r"^\s*CHAPTER [IVXL]+\s*$" if name == "alice29" else r"^第[一二三四五六七八九十]+回"
    starts = [m.start() for m in re.finditer(heading, text, re.M)] + [len(text)]
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(text[starts[first - 1]:starts[last]], encoding="utf-8")
    return dst


def project(dst: Path, works: dict, characters: dict) -> Path:
    """A project at `dst`: the repository's configs/ (the characters that name alice29.txt or sample.wav as a
    source also name every file under data/raw, so the novels' casts are the configured ones), and a
    pipeline.yaml with these works and characters."""
    shutil.copytree(REPO / "configs", dst / "configs")
    raw = sorted(p.relative_to(dst).as_posix() for p in (dst / "data/raw").rglob("*") if p.is_file())
    for f in (dst / "configs/characters").glob("*.yaml"):
        ch = yaml.safe_load(f.read_text(encoding="utf-8"))
        if any(Path(s).name in ("alice29.txt", "sanguo_1-15.txt", "sample.wav") for s in ch.get("sources", [])):
            ch["sources"] = list(ch["sources"]) + raw
            f.write_text(yaml.safe_dump(ch, allow_unicode=True, sort_keys=False), encoding="utf-8")
    cfg = yaml.safe_load((dst / "configs/pipeline.yaml").read_text(encoding="utf-8"))
    cfg.update(works=works, characters=characters, voices={}, seasons={})
    (dst / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True, sort_keys=False),
                                               encoding="utf-8")
    return dst


def files(root: Path, under: tuple[str, ...] = ("data/lines", "data/stories", "data/embeddings",
                                                "data/characters", "metrics")) -> dict[str, bytes]:
    """Every output file under `root` (relative name -> bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for u in under for p in sorted((root / u).rglob("*"))
            if p.is_file()}
