"""Speaker-embedding speed and memory on one thread: ECAPA-TDNN seconds per second of audio, per engine.

Usage: python benchmarks/tv_speakers.py [MEDIA] [--labels LABELS.csv] [--threads N] [--engines torch,int8,...]
Defaults to data/samples/sample.wav and its labels (13 lines, 30 s telephone call).
Prints: encoder load time; per engine (extractors/tv/ecapa.py ENGINES, `+maxNs` = only the central N s of
longer lines; speechbrain's `torch` forward first), timed back to back on the same loaded weights, each round
running every engine once (medians of --repeat rounds): lines per second (wall clock and process CPU time),
the CPU-speed ratios to `torch` and to `int8` (the default before issue 14's last round) and to the 20 lines/s
target, the cosine of its embeddings to `torch`'s (min/mean), and seconds per second of audio for the
labelled lines and for fixed 3 s windows over the whole file; then identification time and peak memory.
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
PREVIOUS = "int8"  # the default engine before issue 14's last speed round
sys.path.insert(0, str(REPO))
from extractors.tv.ecapa import DEFAULT_ENGINE  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("media", nargs="?", default=str(REPO / "data/samples/sample.wav"))
    ap.add_argument("--labels", default=str(REPO / "data/samples/sample_labels.csv"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--engines", default=",".join(dict.fromkeys(("torch", "fp32", "int8", "int8-tdnn", "int8-all",
                                                                  DEFAULT_ENGINE))),
                    help="comma-separated speaker-encoder engines to time, back to back (default: all)")
    args = ap.parse_args()

    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    from extractors.tv import speaker_id as sid
    from extractors.tv.audio import SAMPLE_RATE, decode_audio
    from extractors.tv.ecapa import load_encoder, with_engine
    from extractors.tv.labels import read_labels

    base = peak_mb()
    audio = decode_audio(args.media)
    t = time.perf_counter()
    enc = load_encoder(threads=args.threads, engine="torch")
    load_s = time.perf_counter() - t
    print(f"media            {args.media} ({len(audio) / SAMPLE_RATE:.1f} s), torch threads {torch.get_num_threads()}")
    print(f"encoder load     {load_s:.2f} s ({enc.model_id})")
    encoders = {}
    for name in args.engines.split(","):
        t = time.perf_counter()
        encoders[name] = with_engine(enc, name)
        print(f"engine {name:<9} {encoders[name].engine} (built in {time.perf_counter() - t:.2f} s)")
        encoders[name].embed([audio[:SAMPLE_RATE]])  # warm-up

    labels = read_labels(args.labels)
    spans = [(lab.start, lab.end) for lab in labels]
    segs = [sid.span_audio(audio, s, e, pad=sid.DEFAULTS["pad"], window=sid.DEFAULTS["window"]) for s, e in spans]
    seg_s = sum(len(x) for x in segs) / SAMPLE_RATE
    win = 3 * SAMPLE_RATE
    wins = [audio[i: i + win] for i in range(0, len(audio) - win + 1, win)]
    print(f"labelled lines   {len(segs)} lines, {seg_s:.1f} s of audio; 3 s windows: {len(wins)}")
    times = {name: [] for name in encoders}
    for name, e in _interleaved(encoders, args.repeat):
        times[name].append(_times(e, segs, wins))
    ref = encoders["torch"].embed(segs) if "torch" in encoders else None
    for name, e in encoders.items():
        _report(name, times[name], times, len(segs), seg_s, len(wins), e.embed(segs), ref)

    enc = encoders[args.engines.split(",")[-1]]
    E = enc.embed(segs)
    names = [lab.character for lab in labels]
    m = sid.fit(names, E, names, encoder_id=enc.model_id)
    ibest = min(_time(lambda: sid.identify(m, E)) for _ in range(args.repeat))
    print(f"identify         {len(E)} lines in {ibest * 1000:.1f} ms (numpy, after embedding)")
    print(f"peak memory      {peak_mb():.0f} MB resident (process; {base:.0f} MB with torch imported, before the encoder)")
    _ = np


def _interleaved(encoders: dict, repeat: int):
    """(name, encoder) pairs, each engine once per round, so all are timed under the same machine load."""
    for _ in range(repeat):
        yield from encoders.items()


def _times(enc, segs, wins) -> dict:
    """One round: wall and CPU seconds for the lines, wall seconds for the windows."""
    w, c = time.perf_counter(), time.process_time()
    enc.embed(segs)
    out = {"wall": time.perf_counter() - w, "cpu": time.process_time() - c}
    out["win"] = _time(lambda: enc.embed(wins))
    return out


def _median(t: list, key: str) -> float:
    import numpy as np

    return float(np.median([x[key] for x in t]))


def _report(name, t, times, n, seg_s, n_win, E, ref) -> None:
    import numpy as np

    wall, cpu = _median(t, "wall"), _median(t, "cpu")
    vs = "".join(f", x{_median(times[peer], 'cpu') / cpu:.2f} {peer}'s" for peer in ("torch", PREVIOUS)
                 if peer in times and peer != name)
    cos = np.sum(E * ref, axis=1) if ref is not None else None
    sim = f", cosine to torch min {cos.min():.5f} mean {cos.mean():.5f}" if cos is not None else ""
    mark = " (default)" if name == DEFAULT_ENGINE else ""
    print(f"speaker ID {name}{mark}: {n / wall:.1f} lines/s wall, {n / cpu:.1f} lines/s of CPU time (one thread; "
          f"cpu speed{vs or ' -'}; ratio to the {TARGET} lines/s target: {n / wall / TARGET:.2f} wall, "
          f"{n / cpu / TARGET:.2f} cpu){sim}")
    print(f"           {cpu / n * 1000:.0f} ms CPU per line, {wall / seg_s:.3f} s per s of audio; "
          f"3 s windows {_median(t, 'win') / (n_win * 3):.3f} s per s of audio")


def _time(fn, clock=time.perf_counter) -> float:
    t = clock()
    fn()
    return clock() - t


if __name__ == "__main__":
    main()
