"""A user who configures only some characters: are the lines given to them theirs? (`cast_others`)

Usage: python benchmarks/novel_others.py [--top N] [--books A,B] [--stories] [--bare]

For each PDNC dev novel, the N most quoted gold characters (default 3; 0: the whole gold cast) are configured,
as a user naming the characters they want would. Printed for the lines given to them, against the gold
speakers: accuracy (right / their gold quotations), coverage (lines given to them / their gold quotations) and
precision (right / lines given to them), first attributed with only the configured characters, then with the others
discovered in the text
(`cast_others.complete_cast`, what `rolecorpus extract novel` does). `--bare`: each character configured by its
main name alone (no aliases, gender or narrator flag), as `rolecorpus add-character --name` gives; the names and
gender are then taken from the text. `--stories`: the story purity of the three most quoted characters both ways
(`novel_generalisation.purity`: stories whose lines given to the character are all theirs, and whose attributed
quotations are all right).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.novel.evaluation import evaluate  # noqa: E402
from extractors.novel.evaluation import pdnc  # noqa: E402
from extractors.novel.cast.others import complete_cast  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402
from novel_generalisation import purity  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parents[2] / "shared" / "corpora" / "pdnc" / "data"))


def score(book: Path, gold, cast, mine: set, others: set, stories: bool) -> tuple[float, float, list, float]:
    """(accuracy, precision) of the lines given to the configured characters `mine`, the story purity rows, and the
    coverage (lines given to them / their gold quotations)."""
    lines = extract_novel(book / "novel_text.txt", book.name, cast, language="en", others=others)
    given = [(g.speaker, ln.speaker) for g, ln in zip(gold, evaluate.match(gold, lines))
             if ln is not None and ln.speaker in mine]
    right = sum(1 for g, s in given if g == s)
    pure = purity(book, gold, lines) if stories else []
    theirs = max(1, sum(1 for g in gold if g.speaker in mine))
    return right / theirs, right / max(1, len(given)), pure, len(given) / theirs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--books", default="")
    ap.add_argument("--stories", action="store_true", help="also the story purity of the three most quoted")
    ap.add_argument("--bare", action="store_true", help="configure each character by its main name only (no "
                    "aliases, gender or narrator flag), as `rolecorpus add-character --name` alone does")
    a = ap.parse_args()
    books = [D / b for b in a.books.split(",")] if a.books else sorted(p for p in D.iterdir() if p.is_dir())
    before, after = [], []
    for b in books:
        chars, gold = pdnc.load_characters(b), pdnc.load_quotes(b)
        top = {c for c, _ in collections.Counter(g.speaker for g in gold).most_common(a.top)} if a.top \
            else {c.id for c in chars}
        mine = [replace(c, aliases=[], gender=None, narrator=False) if a.bare else c for c in chars if c.id in top]
        alone = mine
        mine, others = complete_cast(mine, read_novel(b / "novel_text.txt"), "en", b.name)
        before.append(score(b, gold, alone, top, set(), a.stories))
        after.append(score(b, gold, mine + others, top, {c.id for c in others}, a.stories))
        print(f"{b.name[:28]:28s} configured {len(mine):3d}: acc {before[-1][0]:.3f} cov {before[-1][3]:.3f} "
              f"prec {before[-1][1]:.3f} | + {len(others):2d} others: acc {after[-1][0]:.3f} cov {after[-1][3]:.3f} "
              f"prec {after[-1][1]:.3f}", flush=True)
        for (cid, n0, own0, right0), (_, n1, own1, right1) in zip(before[-1][2], after[-1][2]):
            print(f"  stories {cid:26s} {n0:4d} -> {n1:4d}  own-words {own0:.3f} -> {own1:.3f}  "
                  f"all-right {right0:.3f} -> {right1:.3f}")
    for name, rows in (("configured only", before), ("with the others", after)):
        print(f"{name:16s}: mean acc {sum(r[0] for r in rows) / len(rows):.3f}, "
              f"mean cov {sum(r[3] for r in rows) / len(rows):.3f}, "
              f"mean precision {sum(r[1] for r in rows) / len(rows):.3f}, worst {min(r[1] for r in rows):.3f}")
        pure = [p for r in rows for p in r[2]]
        if pure:
            print(f"{'':16s}  stories: mean own-words {sum(p[2] for p in pure) / len(pure):.3f} "
                  f"(worst {min(p[2] for p in pure):.3f}), mean all-right {sum(p[3] for p in pure) / len(pure):.3f} "
                  f"(worst {min(p[3] for p in pure):.3f})")


if __name__ == "__main__":
    main()
