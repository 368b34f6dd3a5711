"""ASR speed and memory on one thread: real-time factor of openai-whisper and faster-whisper (the default).

Usage: python benchmarks/tv_asr.py [MEDIA] [--threads N] [--backends openai-whisper,faster-whisper]
Defaults to data/samples/sample.wav (30 s telephone call) and the bundled base weights. Each
backend runs in its own child process so its peak resident memory is its own; the transcript cache
is not used. Prints model load time, transcription time, real-time factor (transcription seconds per
second of audio; < 1 is faster than real time; wall clock, and CPU seconds of the process, which a busy
machine disturbs less) and peak memory; then each backend's RTF as a ratio to the first, and how close
their lines are (word error rate between them, share of line boundaries within 0.1 s: `wer.compare_lines`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def run_one(media: str, backend: str, threads: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    from extractors.tv.asr import load_model, transcribe
    from extractors.tv.audio import SAMPLE_RATE, decode_audio

    from extractors.tv.asr import transcript_to_lines

    audio = decode_audio(media)
    t0 = time.perf_counter()
    load_model(backend, "base", threads)
    t1, c1 = time.perf_counter(), time.process_time()
    tr = transcribe(media, backend=backend, model="base", language="en", audio=audio, threads=threads, progress=False)
    t2, c2 = time.perf_counter(), time.process_time()
    dur = len(audio) / SAMPLE_RATE
    lines = [{"text": ln.text, "start": ln.start, "end": ln.end} for ln in transcript_to_lines(tr, "w", "s", "s")]
    return {"backend": backend, "audio_s": round(dur, 2), "load_s": round(t1 - t0, 2), "transcribe_s": round(t2 - t1, 2),
            "rtf": round((t2 - t1) / dur, 3), "cpu_rtf": round((c2 - c1) / dur, 3), "segments": len(tr["segments"]),
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "lines": lines}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("media", nargs="?", default=str(REPO / "data/samples/sample.wav"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--backends", default="openai-whisper,faster-whisper")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run_one(a.media, a.child, a.threads)))
        return
    from extractors.tv.whisper_weights import bundled_openai_checkpoint

    bundled_openai_checkpoint()  # join/convert once, outside the timings
    env = {**os.environ, "OMP_NUM_THREADS": str(a.threads), "MKL_NUM_THREADS": str(a.threads)}
    print(f"media: {a.media}   threads: {a.threads}   model: bundled base (openai-whisper fp32, faster-whisper int8)")
    print(f"{'backend':16} {'audio s':>8} {'load s':>7} {'asr s':>7} {'RTF':>6} {'cpu RTF':>8} {'peak MB':>8}")
    res = []
    for backend in a.backends.split(","):
        out = subprocess.run([sys.executable, __file__, a.media, "--threads", str(a.threads), "--child", backend],
                             capture_output=True, text=True, env=env, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        res.append(r)
        print(f"{r['backend']:16} {r['audio_s']:8.1f} {r['load_s']:7.2f} {r['transcribe_s']:7.2f} {r['rtf']:6.3f} "
              f"{r['cpu_rtf']:8.3f} {r['peak_mb']:8.0f}")
    compare(res)


def compare(res: list[dict]) -> None:
    """Each backend's RTF as a ratio to the first backend's, and how close their lines are."""
    from extractors.records import Line
    from extractors.tv.wer import compare_lines

    base = res[0]
    for r in res[1:]:
        print(f"{r['backend']} / {base['backend']}: RTF ratio {r['rtf'] / base['rtf']:.3f} (wall), "
              f"{r['cpu_rtf'] / base['cpu_rtf']:.3f} (cpu)")
        mk = lambda rows: [Line("w", "s", "s", i, "dialogue", x["text"], start=x["start"], end=x["end"])  # noqa: E731
                           for i, x in enumerate(rows)]
        c = compare_lines(mk(r["lines"]), mk(base["lines"]))
        print(f"{r['backend']} vs {base['backend']} lines: {c['lines_a']} vs {c['lines_b']}, word error rate "
              f"{c['wer']:.3f} between them, {c['boundaries']:.3f} of line boundaries within 0.1 s")


if __name__ == "__main__":
    main()
