"""A user who configures only some characters: are the lines given to them theirs? (`cast_others`)

Usage: python benchmarks/novel_others.py [--top N] [--books A,B]

For each PDNC dev novel, the N most quoted gold characters (default 3; 0: the whole gold cast) are configured,
as a user naming the characters they want would. Printed for the lines given to them, against the gold
speakers: accuracy (right / their gold quotations) and precision (right / lines given to them), first
attributed with only the configured characters, then with the others discovered in the text
(`cast_others.others_for`, what `rolecorpus extract novel` does).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.novel import evaluate, pdnc  # noqa: E402
from extractors.novel.cast_others import others_for  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parents[2] / "shared" / "corpora" / "pdnc" / "data"))


def score(book: Path, gold, cast, mine: set, others: set) -> tuple[float, float]:
    """(accuracy, precision) of the lines given to the configured characters `mine`."""
    lines = extract_novel(book / "novel_text.txt", book.name, cast, language="en", others=others)
    given = [(g.speaker, ln.speaker) for g, ln in zip(gold, evaluate.match(gold, lines))
             if ln is not None and ln.speaker in mine]
    right = sum(1 for g, s in given if g == s)
    return right / max(1, sum(1 for g in gold if g.speaker in mine)), right / max(1, len(given))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--books", default="")
    a = ap.parse_args()
    books = [D / b for b in a.books.split(",")] if a.books else sorted(p for p in D.iterdir() if p.is_dir())
    before, after = [], []
    for b in books:
        chars, gold = pdnc.load_characters(b), pdnc.load_quotes(b)
        top = {c for c, _ in collections.Counter(g.speaker for g in gold).most_common(a.top)} if a.top \
            else {c.id for c in chars}
        mine = [c for c in chars if c.id in top]
        others = others_for(mine, read_novel(b / "novel_text.txt"), "en", b.name)
        before.append(score(b, gold, mine, top, set()))
        after.append(score(b, gold, mine + others, top, {c.id for c in others}))
        print(f"{b.name[:28]:28s} configured {len(mine):3d}: acc {before[-1][0]:.3f} prec {before[-1][1]:.3f} | "
              f"+ {len(others):2d} others: acc {after[-1][0]:.3f} prec {after[-1][1]:.3f}", flush=True)
    for name, rows in (("configured only", before), ("with the others", after)):
        print(f"{name:16s}: mean acc {sum(r[0] for r in rows) / len(rows):.3f}, "
              f"mean precision {sum(r[1] for r in rows) / len(rows):.3f}, worst {min(r[1] for r in rows):.3f}")


if __name__ == "__main__":
    main()
