"""Fit the confidence calibration of rule attribution (`extractors/novel/attribution/calibration.py`) on the PDNC
dev novels, and report it leave-one-book-out.

Usage: python benchmarks/novel_calibrate.py [--target 0.92] [--write]

Four books are held out (benchmarks/pdnc_split.json) for measurement: they are reported apart, with tables fitted on
the other eight only (what a novel nobody tuned on gets). The shipped tables use all twelve (more data for users).
Prints: the rule precision table and the turn-taking weights fitted on all twelve books (`--write` writes them to
`extractors/novel/data/calibration.json`, which attribution/calibration.py loads), then for each book the figures when
calibration and hold are fitted on the OTHER books only (the hold: the lowest that keeps precision >= target on every one of them), the same
calibration at the fixed hold 0.88 and at the book's own hold (`calibration.book_hold`, the default; from
`calibration.CONFIGURED_CEILING` down, as the gold cast is a configured one),
and the hold that all twelve books support.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.novel.attribution import attributor as attribution  # noqa: E402
from extractors.novel.attribution import calibration  # noqa: E402
from extractors.novel.evaluation import evaluate  # noqa: E402
from extractors.novel.evaluation import pdnc  # noqa: E402
from extractors.novel.extract import analyse, extract_novel, read_novel  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parents[2] / "shared" / "corpora" / "pdnc" / "data"))
HOLDS = [round(0.5 + 0.02 * i, 2) for i in range(24)]
SPLIT = Path(__file__).resolve().parent / "pdnc_split.json"


def heldout_books() -> list[str]:
    """The dev novels kept out of fitting (benchmarks/pdnc_split.json)."""
    return json.loads(SPLIT.read_text(encoding="utf-8"))["heldout"]


def collect(book: Path) -> tuple[list, int]:
    """(attribution, right?) for every gold quotation the rules attributed, raw confidences; and the gold count."""
    chars, gold = pdnc.load_characters(book), pdnc.load_quotes(book)
    text = read_novel(book / "novel_text.txt")
    _, _, _, quotes, attrs = analyse(text, chars, "en", 0.0)
    by_start = {q.start: a for q, a in zip(quotes, attrs)}
    lines = extract_novel(book / "novel_text.txt", book.name, chars, language="en", min_confidence=0.0, text=text)
    out = []
    for g, ln in zip(gold, evaluate.match(gold, lines)):
        a = by_start.get(ln.extra["start"]) if ln is not None and ln.speaker else None
        if a is not None and a.speaker:
            out.append((a, ln.speaker == g.speaker))
    return out, len(gold)


def fit_rules(rows: list) -> dict[str, float]:
    counts: dict[str, list[int]] = {}
    for a, ok in rows:
        if not a.turn_features:
            c = counts.setdefault(calibration.rule_key(a.rule), [0, 0])
            c[0] += ok
            c[1] += 1
    out = {k: round((r + 1) / (n + 2), 3) for k, (r, n) in sorted(counts.items())}
    for k, parent in calibration.RULE_FAMILY.items():  # a rare variant of a tag is shrunk towards its family
        if k in counts and parent in counts:
            r, n = counts[k]
            pr, pn = counts[parent]
            out[k] = round((r + calibration.FAMILY_WEIGHT * (pr + 1) / (pn + 2)) / (n + calibration.FAMILY_WEIGHT), 3)
    return out


def fit_turns(rows: list, l2: float = 1.0) -> dict[str, float]:
    data = [(calibration.turn_vector(a.turn_features), ok) for a, ok in rows if a.turn_features]
    names = list(data[0][0])
    x = np.array([[v[k] for k in names] for v, _ in data])
    y = np.array([float(ok) for _, ok in data])
    w = np.zeros(len(names))
    for _ in range(30):  # Newton steps of L2-regularised logistic regression
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(names))
        w -= np.linalg.solve(hess, grad)
    return {k: round(float(v), 4) for k, v in zip(names, w)}


def scores(rows: list, n_gold: int, rules: dict, weights: dict, hold: float) -> tuple[float, float, float]:
    kept = []
    for a, ok in rows:
        c = calibration.calibrated(a, rules, weights)
        c = a.confidence if c is None else c
        if (c or 0) >= hold - 1e-9:
            kept.append(ok)
    right = sum(kept)
    return right / n_gold, len(kept) / n_gold, right / len(kept) if kept else 1.0


def own_hold(rows: list, rules: dict, weights: dict, ceiling: float) -> float:
    """The book's own hold (`calibration.book_hold`) from its calibrated confidences (gold quotations only)."""
    confs = []
    for a, _ in rows:
        c = calibration.calibrated(a, rules, weights)
        confs.append(a.confidence if c is None else c)
    return calibration.book_hold([c for c in confs if c is not None], ceiling)


def lowest_hold(books: dict, rules: dict, weights: dict, target: float) -> float:
    for h in HOLDS:
        if all(scores(rows, n, rules, weights, h)[2] >= target for rows, n in books.values()):
            return h
    return HOLDS[-1]


ABOUT = ("calibrated confidences of rule attribution, fitted on the twelve PDNC dev novels: rule_precision, each rule's "
         "pooled precision (Beta(1,1)-smoothed, rare variants shrunk towards their family); turn_weights, a logistic "
         "model over calibration.turn_vector; written by benchmarks/novel_calibrate.py --write")


def write_tables(rules: dict[str, float], weights: dict[str, float], path: Path = calibration.TABLES) -> None:
    """Write the fitted tables where `calibration.load_tables` reads them."""
    out = {"about": ABOUT, "rule_precision": rules, "turn_weights": weights}
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", type=float, default=0.92)
    ap.add_argument("--write", action="store_true",
                    help=f"write the tables fitted on all twelve books (what users get) to {calibration.TABLES}")
    a = ap.parse_args()
    calibration.ACTIVE = False
    held = heldout_books()
    every_book = {b.name: collect(b) for b in sorted(p for p in D.iterdir() if p.is_dir())}
    books = {k: v for k, v in every_book.items() if k not in held}
    kept_out = {k: v for k, v in every_book.items() if k in held}
    every = [r for rows, _ in every_book.values() for r in rows]
    shipped_rules, shipped_weights = fit_rules(every), fit_turns(every)
    print("RULE_PRECISION =", json.dumps(shipped_rules, indent=4))
    print("TURN_WEIGHTS =", json.dumps(shipped_weights, indent=4))
    if a.write:
        write_tables(shipped_rules, shipped_weights)
        print(f"written: {calibration.TABLES}")
    design = [r for rows, _ in books.values() for r in rows]
    rules, weights = fit_rules(design), fit_turns(design)  # what the held-out books are measured with
    hold = lowest_hold(books, rules, weights, a.target)
    print(f"\nhold supported by all {len(books)} books (precision >= {a.target} on each): {hold}")
    print(f"\nleave-one-book-out over the {len(books)} design books (calibration and hold fitted on the other design books):")
    default = attribution.DEFAULT_MIN_CONFIDENCE
    print(f"  (last columns: the same refit tables at the shipped default hold {default})")
    accs, precs, d_accs, d_precs, o_accs, o_precs = [], [], [], [], [], []
    for name, (rows, n) in books.items():
        others = {k: v for k, v in books.items() if k != name}
        rest = [r for rs, _ in others.values() for r in rs]
        r_rules, r_w = fit_rules(rest), fit_turns(rest)
        h = lowest_hold(others, r_rules, r_w, a.target)
        acc, cov, prec = scores(rows, n, r_rules, r_w, h)
        d_acc, _, d_prec = scores(rows, n, r_rules, r_w, default)
        oh = own_hold(rows, r_rules, r_w, min(default, calibration.CONFIGURED_CEILING))  # the gold cast: configured
        o_acc, _, o_prec = scores(rows, n, r_rules, r_w, oh)
        o_accs.append(o_acc)
        o_precs.append(o_prec)
        accs.append(acc)
        precs.append(prec)
        d_accs.append(d_acc)
        d_precs.append(d_prec)
        print(f"  {name[:26]:26s} hold {h:.2f}  acc {acc:.3f} cov {cov:.3f} prec {prec:.3f} | at {default}: acc {d_acc:.3f} "
              f"prec {d_prec:.3f} | own hold {oh:.2f}: acc {o_acc:.3f} prec {o_prec:.3f}")
    print(f"  mean acc {sum(accs) / len(accs):.3f}, worst precision {min(precs):.3f} | at {default}: mean acc "
          f"{sum(d_accs) / len(d_accs):.3f}, worst precision {min(d_precs):.3f} | the book's own hold (the default): "
          f"mean acc {sum(o_accs) / len(o_accs):.3f}, worst precision {min(o_precs):.3f}")
    print(f"\nheld-out books (never fitted on; the tables fitted on the {len(books)} design books):")
    h_accs, h_precs = [], []
    shipped = (calibration.RULE_PRECISION, calibration.TURN_WEIGHTS)  # as loaded before any --write
    for name, (rows, n) in kept_out.items():
        oh = own_hold(rows, rules, weights, min(default, calibration.CONFIGURED_CEILING))
        acc, cov, prec = scores(rows, n, rules, weights, oh)
        sh = own_hold(rows, *shipped, min(default, calibration.CONFIGURED_CEILING))
        s_acc, _, s_prec = scores(rows, n, *shipped, sh)
        h_accs.append(acc)
        h_precs.append(prec)
        print(f"  {name[:26]:26s} own hold {oh:.2f}: acc {acc:.3f} cov {cov:.3f} prec {prec:.3f} | the shipped "
              f"tables (fitted with this book too): acc {s_acc:.3f} prec {s_prec:.3f}")
    if h_accs:
        print(f"  mean acc {sum(h_accs) / len(h_accs):.3f}, worst precision {min(h_precs):.3f}")


if __name__ == "__main__":
    main()
