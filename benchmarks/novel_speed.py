"""How fast the rule-based novel extractor is: Pride and Prejudice (PDNC copy, ~700 KB) -> lines.

Run: `python benchmarks/novel_speed.py [NOVEL_DIR]` (default: ../shared/corpora/pdnc/data/PrideAndPrejudice).
Prints characters, quotations, seconds and quotations per second (target: whole novel < 10 s on one core).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.novel import pdnc  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402


def main() -> None:
    d = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpora" / "pdnc" / "data" / "PrideAndPrejudice"
    chars = pdnc.load_characters(d)
    t0 = time.perf_counter()
    text = read_novel(d / "novel_text.txt")
    lines = extract_novel(d / "novel_text.txt", d.name, chars, language="en", text=text)
    dt = time.perf_counter() - t0
    quotes = sum(1 for ln in lines if ln.kind == "dialogue")
    attributed = sum(1 for ln in lines if ln.kind == "dialogue" and ln.speaker)
    print(f"novel: {d.name}  chars: {len(text)}  lines: {len(lines)}  quotes: {quotes}  attributed: {attributed}")
    print(f"total seconds: {dt:.2f}  quotes/second: {quotes / dt:.0f}  (target: < 10 s)")


if __name__ == "__main__":
    main()
