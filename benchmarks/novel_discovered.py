"""What a user gets with no configuration: each PDNC dev novel attributed with the cast that
`characters discover` finds (not the gold character list), scored against the gold speakers.

Usage: python benchmarks/novel_discovered.py [--books A,B] [--stories] [--layout line|indented]

A discovered member counts as a gold character when its names resolve to that character and no
other; a line given to a member that maps to no gold character counts as wrong (so a name the gold
list lacks, such as `May` for Miss Welland, is scored as a wrong speaker). `--layout`: the text set a paragraph a
line or indented, as `novel_layouts.py` sets it (offsets kept).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.characters import normalize_name  # noqa: E402
from extractors.novel.evaluation import evaluate  # noqa: E402
from extractors.novel.evaluation import pdnc  # noqa: E402
from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.extract import extract_novel, read_novel  # noqa: E402
from extractors.novel.cast.names import NameIndex  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parents[2] / "shared" / "corpora" / "pdnc" / "data"))


def gold_map(book: Path, cast) -> dict[str, str]:
    """Discovered id -> gold id, where the member's names single out one gold character (through the
    same name index the attribution uses: gold aliases, surname/first-name forms, `Mr. X` over a bare `X`)."""
    chars = pdnc.load_characters(book)
    index = NameIndex(chars)
    owners: dict[str, set[str]] = {}
    for c in chars:
        for n in c.names()[1:]:
            owners.setdefault(normalize_name(n), set()).add(c.id)
    mains = {normalize_name(c.name): c.id for c in chars}
    speaking = {q.speaker for q in pdnc.load_quotes(book)}
    out = {}
    for m in cast:
        names = [m.name, *m.aliases]
        if normalize_name(m.name) in mains:  # the same full name: that character, whatever the aliases say ...
            out[m.id] = mains[normalize_name(m.name)]
            # ... unless the gold list names one person twice (HardTimes: `Childers`, who never speaks, and
            # `Mr. E. W. B. Childers`): then the one speaker the member's other names belong to
            other = set().union(*(owners.get(normalize_name(n), set()) for n in names[1:])) & speaking
            if out[m.id] not in speaking and len(other) == 1:
                out[m.id] = next(iter(other))
            continue
        ids = set().union(*(owners.get(normalize_name(n), set()) for n in names))
        if len(ids) != 1:
            ids = {index.lookup(n) for n in names} - {None}
        if len(ids) == 1:
            out[m.id] = next(iter(ids))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--books", default="")
    ap.add_argument("--stories", action="store_true", help="also print story purity (top-3 gold characters)")
    ap.add_argument("--layout", choices=("line", "indented"), help="set the text another way first (novel_layouts.py)")
    a = ap.parse_args()
    books = [D / b for b in a.books.split(",")] if a.books else sorted(p for p in D.iterdir() if p.is_dir())
    precs, pure = [], []
    for b in books:
        t0 = time.time()
        text = read_novel(b / "novel_text.txt")
        if a.layout:
            from benchmarks.novel_layouts import a_paragraph_a_line, indented

            text = a_paragraph_a_line(text) if a.layout == "line" else indented(text)
        cast = discover_cast(text, "en", by_lines=False)
        lines = extract_novel(b / "novel_text.txt", b.name, [m.to_character(b.name) for m in cast], language="en", text=text)
        dt = time.time() - t0
        to_gold = gold_map(b, cast)
        gold = pdnc.load_quotes(b)
        rows = [(g.speaker, (to_gold.get(ln.speaker, "?unmapped") if ln is not None and ln.speaker else None))
                for g, ln in zip(gold, evaluate.match(gold, lines))]
        att = [r for r in rows if r[1]]
        right = sum(1 for g, p in att if g == p)
        prec = right / len(att) if att else 1.0
        precs.append(prec)
        print(f"{b.name[:28]:28s} cast {len(cast):3d} mapped {len(to_gold):3d}  acc {right / len(rows):.3f} "
              f"cov {len(att) / len(rows):.3f} prec {prec:.3f}  unmapped {sum(1 for _, p in att if p == '?unmapped'):4d}  {dt:4.1f}s")
        if a.stories:
            pure += stories(b, gold, lines, to_gold)
    print(f"mean precision {sum(precs) / len(precs):.3f}, worst {min(precs):.3f}")
    if pure:
        own, right = [p[2] for p in pure], [p[3] for p in pure]
        print(f"story purity: mean own-words {sum(own) / len(own):.3f} (worst {min(own):.3f}); "
              f"mean all-right {sum(right) / len(right):.3f}")


def stories(book: Path, gold, lines, to_gold: dict) -> list:
    """`novel_generalisation.purity` with each discovered speaker shown as its gold character (`?id` if none)."""
    from novel_generalisation import purity

    mapped = [replace(ln, speaker=to_gold.get(ln.speaker, "?" + ln.speaker)) if ln.speaker else ln for ln in lines]
    rows = purity(book, gold, mapped)
    for cid, n, own, right in rows:
        print(f"  stories {cid:26s} {n:4d}  own-words {own:.3f}  all-right {right:.3f}")
    return rows


if __name__ == "__main__":
    main()
