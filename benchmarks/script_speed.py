"""Script/wiki extractor speed: parse the whole As You Like It sample (and the play repeated
20 times) with each parser and with auto-detection; print lines and seconds.

    python benchmarks/script_speed.py
"""

from __future__ import annotations

import time
from pathlib import Path

from extractors.script import parse_text
from extractors.script.detect import PARSERS
from extractors.textio import read_text

REPO = Path(__file__).resolve().parent.parent
PLAY = REPO / "data" / "samples" / "asyoulik.txt"


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    t0 = time.perf_counter()
    text = read_text(PLAY)
    print(f"read_text {PLAY.name}: {len(text):,} chars in {time.perf_counter() - t0:.4f} s")
    result, fmt = parse_text(text, "play")
    n = len(result.events)
    for name, parse in PARSERS.items():
        secs = best_of(lambda: parse(text, None))
        print(f"{name:>10} parser on the play: {secs * 1000:7.1f} ms")
    secs = best_of(lambda: parse_text(text, "auto"))
    print(f"      auto (all parsers + scoring): {secs * 1000:7.1f} ms -> {fmt}, {n} lines")
    big = "\n".join([text] * 20)
    secs = best_of(lambda: parse_text(big, "play"), repeat=3)
    print(f"play parser, play x20 ({len(big):,} chars): {secs:.3f} s = {20 * n / secs:,.0f} lines/s")


if __name__ == "__main__":
    main()
