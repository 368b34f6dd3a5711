"""Speaker-embedding speed and memory on one thread: ECAPA-TDNN seconds per second of audio.

Usage: python benchmarks/tv_speakers.py [MEDIA] [--labels LABELS.csv] [--threads N]
Defaults to data/samples/sample.wav and its labels (13 lines, 30 s telephone call).
Prints: encoder load time, seconds of embedding per second of audio and lines per second (wall clock and
process CPU time, as a ratio to the 20 lines/s target) for the labelled lines and
for fixed 3 s windows over the whole file, identification time, and peak resident memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
TARGET = 20  # lines per second speaker ID must embed on one thread (issue 14)
sys.path.insert(0, str(REPO))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("media", nargs="?", default=str(REPO / "data/samples/sample.wav"))
    ap.add_argument("--labels", default=str(REPO / "data/samples/sample_labels.csv"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    from extractors.tv import speaker_id as sid
    from extractors.tv.audio import SAMPLE_RATE, decode_audio
    from extractors.tv.ecapa import load_encoder
    from extractors.tv.labels import read_labels

    base = peak_mb()
    audio = decode_audio(args.media)
    t = time.perf_counter()
    enc = load_encoder(threads=args.threads)
    load_s = time.perf_counter() - t
    print(f"media            {args.media} ({len(audio) / SAMPLE_RATE:.1f} s), torch threads {torch.get_num_threads()}")
    print(f"encoder load     {load_s:.2f} s ({enc.model_id})")
    enc.embed([audio[:SAMPLE_RATE]])  # warm-up

    labels = read_labels(args.labels)
    spans = [(lab.start, lab.end) for lab in labels]
    segs = [sid.span_audio(audio, s, e, pad=sid.DEFAULTS["pad"], window=sid.DEFAULTS["window"]) for s, e in spans]
    seg_s = sum(len(x) for x in segs) / SAMPLE_RATE
    best = min(_time(lambda: enc.embed(segs)) for _ in range(args.repeat))
    cpu = min(_time(lambda: enc.embed(segs), time.process_time) for _ in range(args.repeat))
    print(f"labelled lines   {len(segs)} lines, {seg_s:.1f} s of audio embedded in {best:.2f} s "
          f"-> {best / seg_s:.3f} s per s of audio ({best / len(segs) * 1000:.0f} ms per line)")
    print(f"speaker ID       {len(segs) / best:.1f} lines/s wall, {len(segs) / cpu:.1f} lines/s of CPU time "
          f"(one thread; ratio to the 20 lines/s target: {len(segs) / best / TARGET:.2f} wall, "
          f"{len(segs) / cpu / TARGET:.2f} cpu)")

    win = 3 * SAMPLE_RATE
    wins = [audio[i: i + win] for i in range(0, len(audio) - win + 1, win)]
    wbest = min(_time(lambda: enc.embed(wins)) for _ in range(args.repeat))
    print(f"3 s windows      {len(wins)} windows, {len(wins) * 3:.0f} s in {wbest:.2f} s -> {wbest / (len(wins) * 3):.3f} s per s of audio")

    E = enc.embed(segs)
    names = [lab.character for lab in labels]
    m = sid.fit(names, E, names, encoder_id=enc.model_id)
    ibest = min(_time(lambda: sid.identify(m, E)) for _ in range(args.repeat))
    print(f"identify         {len(E)} lines in {ibest * 1000:.1f} ms (numpy, after embedding)")
    print(f"peak memory      {peak_mb():.0f} MB resident (process; {base:.0f} MB with torch imported, before the encoder)")
    _ = np


def _time(fn, clock=time.perf_counter) -> float:
    t = clock()
    fn()
    return clock() - t


if __name__ == "__main__":
    main()
