"""How fast a novel goes from text to lines with no configuration (cast discovery + rule attribution).

Run: `python benchmarks/novel_speed.py`. Prints seconds for
- Oliver Twist (PDNC copy, ~900 KB), English;
- 红楼梦 at full size: the eight chapters in ../shared/corpora/honglou repeated to 2.5 MB (the
  whole novel is about that size), Chinese.
Target: each under 20 s on one core (the code is single-threaded).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"


def timed(path: Path, language: str, label: str) -> None:
    t0 = time.perf_counter()
    text = read_novel(path)
    cast = discover_cast(text, language, by_lines=False)
    t1 = time.perf_counter()
    lines = extract_novel(path, "speed", [m.to_character("speed", language) for m in cast], language=language, text=text)
    t2 = time.perf_counter()
    quotes = sum(1 for ln in lines if ln.kind == "dialogue")
    attributed = sum(1 for ln in lines if ln.kind == "dialogue" and ln.speaker)
    print(f"{label}: {len(text):,} chars, cast {len(cast)}, {quotes} quotes, {attributed} attributed; "
          f"discover {t1 - t0:.1f} s + extract {t2 - t1:.1f} s = {t2 - t0:.1f} s (target < 20 s)")


def main() -> None:
    timed(CORPORA / "pdnc" / "data" / "OliverTwist" / "novel_text.txt", "en", "Oliver Twist")
    one = (CORPORA / "honglou" / "hongloumeng_1-8.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as d:
        big = Path(d) / "hongloumeng_2.5MB.txt"
        big.write_text(one * max(1, round(2_500_000 / len(one.encode("utf-8")))), encoding="utf-8")
        timed(big, "zh", "红楼梦 (2.5 MB)")


if __name__ == "__main__":
    main()
