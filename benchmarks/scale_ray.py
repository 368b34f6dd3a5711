"""Wall time and peak memory of a batch of works on each engine, on this machine, as ratios.

Two batches made from the samples (tests/support/batch_samples.py): N novels (chapter ranges of alice29.txt and
sanguo_1-15.txt) and N audio episodes (10-second slices of sample.wav, no subtitles, so Whisper transcribes
each). Each batch is one batch work built by `rolecorpus build-lines WORK` in a fresh project with a fresh cache,
with: one process per file (what `dvc repro` did before batch works: one stage per work, the models loaded in
each), `--engine local` (serial, one process, models loaded once), and `--engine ray` with 1 and 2 workers.
Peak memory is the largest sum of the resident memory of the command's whole process tree (Ray's own processes
and actors included), sampled every 0.1 s.

    python benchmarks/scale_ray.py [--novels 6] [--episodes 4] [--skip-audio]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
import batch_samples as samples  # noqa: E402

NOVELS = [("alice29", 1, 2), ("alice29", 3, 4), ("alice29", 5, 6), ("alice29", 7, 8), ("alice29", 9, 10),
          ("alice29", 11, 12), ("sanguo_1-15", 1, 3), ("sanguo_1-15", 4, 6), ("sanguo_1-15", 7, 9),
          ("sanguo_1-15", 10, 12)]


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(cmds: list[list[str]], cwd: Path, env: dict) -> tuple[float, int]:
    """Wall seconds for the commands run one after another, and the peak RSS of any one's process tree."""
    peak, t0 = 0, time.perf_counter()
    for cmd in cmds:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ps, stop = psutil.Process(proc.pid), threading.Event()

        def sample():
            nonlocal peak
            while not stop.is_set():
                try:
                    peak = max(peak, _tree_rss(ps))
                except psutil.Error:
                    pass
                time.sleep(0.1)

        t = threading.Thread(target=sample, daemon=True)
        t.start()
        _, err = proc.communicate()
        stop.set()
        t.join()
        if proc.returncode:
            sys.exit(f"benchmark command failed ({' '.join(cmd)}):\n{err[-2000:]}")
    return time.perf_counter() - t0, peak


def make_batch(root: Path, kind: str, n: int) -> dict:
    if kind == "novel":
        for name, a, b in NOVELS[:n]:
            samples.novel(root / f"data/raw/batch/{name}_{a:02d}-{b:02d}.txt", name, a, b)
        return {"kind": "novel", "input": "data/raw/batch", "options": {}}
    for i in range(n):  # distinct slices: every episode is its own transcription
        samples.episode(root / f"data/raw/batch/ep{i + 1:02d}.wav", 2 * i, 2 * i + 10, subtitles=False)
    return {"kind": "tv", "input": "data/raw/batch", "options": {"language": "en", "asr_backend": "faster-whisper"}}


def run_config(kind: str, n: int, mode: str, workdir: Path) -> tuple[float, int]:
    root = workdir / f"{kind}-{mode}"
    work = make_batch(root, kind, n)
    samples.project(root, {"batch": work}, {})
    env = dict(os.environ, ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"), OMP_NUM_THREADS="1",
               PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    exe = [sys.executable, "-m", "pipeline.cli"]
    if mode == "per-file processes":
        opts = [f"--{k.replace('_', '-')}={v}" for k, v in work["options"].items()]
        cmds = [exe + ["extract", kind, str(f), "--work", "batch", "-o", str(root / "out" / (f.stem + ".jsonl"))] + opts
                for f in sorted((root / "data/raw/batch").iterdir()) if f.suffix in (".txt", ".wav")]
    elif mode == "local":
        cmds = [exe + ["build-lines", "batch", "--engine", "local"]]
    else:
        cmds = [exe + ["build-lines", "batch", "--engine", "ray", "--workers", mode[-1]]]
    return measure(cmds, root, env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--novels", type=int, default=6)
    ap.add_argument("--episodes", type=int, default=4)
    ap.add_argument("--skip-audio", action="store_true")
    args = ap.parse_args()
    modes = ["per-file processes", "local", "ray-1", "ray-2"]
    batches = [("novel", args.novels)] + ([] if args.skip_audio else [("tv", args.episodes)])
    print(f"machine: {os.cpu_count()} CPUs; ratios are against --engine local (serial, one process)")
    with tempfile.TemporaryDirectory(prefix="scale_ray_") as tmp:
        for kind, n in batches:
            got = {m: run_config(kind, n, m, Path(tmp)) for m in modes}
            base_t, base_m = got["local"]
            print(f"\n{n} {'novels' if kind == 'novel' else 'audio episodes (Whisper)'}:")
            print(f"  {'engine':<20} {'wall s':>8} {'peak MiB':>9} {'time ratio':>11} {'memory ratio':>13}")
            for m, (t, mem) in got.items():
                print(f"  {m:<20} {t:8.1f} {mem / 2**20:9.0f} {t / base_t:11.2f} {mem / base_m:13.2f}")


if __name__ == "__main__":
    main()
