"""Benchmark: segmenter throughput and retrieval latency (issue 2).

1. Segmenter: the whole play (As You Like It) repeated 50 times (each copy its own source, so
   nothing is de-duplicated away), stories for Rosalind; prints lines per second.
2. Retrieval: 10,000 stories of 512-d vectors; latency per query of the runtime's numpy search
   and of a pure-Python cosine loop over lists (how the ChatHaruhi 2.0 runtime searches); ratio.
"""

from __future__ import annotations

import os
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from extractors.characters import AliasResolver, Character  # noqa: E402
from extractors.script import extract_script  # noqa: E402
from pipeline.retrieval import StoryIndex, cosine_loop  # noqa: E402
from pipeline.segment import Params, Segmenter  # noqa: E402


def bench_segmenter(copies: int = 50) -> None:
    resolver = AliasResolver([Character("rosalind", "Rosalind", "As You Like It", aliases=["ROSALIND"])])
    lines, _ = extract_script(REPO / "data/samples/asyoulik.txt", "asyoulik", fmt="play", resolver=resolver)
    big = [replace(ln, source=f"copy{c}/{ln.source}") for c in range(copies) for ln in lines]
    t0 = time.perf_counter()
    stories = Segmenter("rosalind", resolver, Params()).run(big)
    dt = time.perf_counter() - t0
    print(f"segmenter: {len(big):,} lines ({copies} x the play) -> {len(stories):,} stories in {dt:.2f} s "
          f"= {len(big) / dt:,.0f} lines/s")


def bench_retrieval(n: int = 10_000, dim: int = 512, queries: int = 200, loop_queries: int = 5) -> None:
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    qs = rng.standard_normal((queries, dim)).astype(np.float32)
    index = StoryIndex(vecs)
    index.search(qs[0], k=10)
    t0 = time.perf_counter()
    for q in qs:
        index.search(q, k=10)
    ours = (time.perf_counter() - t0) / queries
    as_lists = vecs.tolist()
    t0 = time.perf_counter()
    for q in qs[:loop_queries]:
        loop_top = cosine_loop(q.tolist(), as_lists, k=10)
    loop = (time.perf_counter() - t0) / loop_queries
    assert [i for i, _ in loop_top] == [i for i, _ in index.search(qs[loop_queries - 1], k=10)]
    print(f"retrieval over {n:,} stories ({dim}-d): numpy {ours * 1e3:.3f} ms/query; "
          f"pure-Python cosine loop {loop * 1e3:.1f} ms/query; ratio {loop / ours:,.0f}x")


if __name__ == "__main__":
    bench_segmenter()
    bench_retrieval()
