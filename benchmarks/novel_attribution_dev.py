"""Dev figures for rule attribution on PDNC: metrics, per-rule precision, confidence sweep, error samples.

Usage: python benchmarks/novel_attribution_dev.py [Pride:RULE ...]   (RULE as printed, e.g. conv)

First line per book: the default output (guesses below `attribution.DEFAULT_MIN_CONFIDENCE` held back).
Per-rule counts and the threshold sweep are computed on every guess (the hold switched off).
"""
import collections
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.novel.attribution import attributor as attribution  # noqa: E402
from extractors.novel.evaluation import evaluate  # noqa: E402
from extractors.novel.evaluation import pdnc  # noqa: E402
from extractors.novel.extract import extract_novel  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "pdnc" / "data"))
books = ["PrideAndPrejudice", "AlicesAdventuresInWonderland"]
show = sys.argv[1:]  # e.g. PrideAndPrejudice:rule


def line(b, res, dt):
    o = res["overall"]
    return (f"{b[:12]:12s} acc {o['accuracy']:.3f} cov {o['coverage']:.3f} prec {o['precision']:.3f} | " +
            " ".join(f"{t[:4]} {r['accuracy']:.3f}/{r['precision']:.3f}" for t, r in res["by_type"].items()) + f" | {dt:.2f}s")


default_hold = attribution.DEFAULT_MIN_CONFIDENCE
for b in books:
    d = D / b
    chars = pdnc.load_characters(d)
    gold = pdnc.load_quotes(d)
    text = (d / "novel_text.txt").read_text()
    t0 = time.time()
    lines = extract_novel(d / "novel_text.txt", b, chars, language="en")  # the default hold
    dt = time.time() - t0
    print(line(b, evaluate.score(gold, lines), dt) + f"  (default, hold < {default_hold})")
    lines = extract_novel(d / "novel_text.txt", b, chars, language="en", min_confidence=0.0)
    print(line(b, evaluate.score(gold, lines), 0.0) + "  (every guess)")
    m = evaluate.match(gold, lines)
    byrule = collections.defaultdict(lambda: [0, 0])
    errs = collections.defaultdict(list)
    for g, ln in zip(gold, m):
        if ln is None or not ln.speaker:
            key = "NONE:" + ((ln.extra or {}).get("rule") or "-") if ln else "UNMATCHED"
            byrule[key][1] += 1
            errs[key].append((g, ln))
            continue
        r = (ln.extra or {}).get("rule", "?")
        byrule[r][1] += 1
        if ln.speaker == g.speaker:
            byrule[r][0] += 1
        else:
            errs[r].append((g, ln))
    for r, (c, n) in sorted(byrule.items(), key=lambda kv: -kv[1][1]):
        print(f"   {r:25s} {c:4d}/{n:4d} {c/n:.2f}")
    for s in show:
        bb, rr = s.split(":", 1)
        if bb != b[:len(bb)]:
            continue
        random.seed(0)
        es = errs[rr]
        for g, ln in random.sample(es, min(12, len(es))):
            s0 = g.spans[0][0]
            ctx = text[max(0, s0 - 300):g.spans[-1][1] + 120].replace("\n", " | ")
            print(f"--- gold {g.speaker} ({g.qtype}) pred {ln.speaker if ln else None} conf {ln.confidence if ln else None}\n{ctx}\n")
    # precision/accuracy at confidence thresholds
    rows = [(g.speaker, ln.speaker if ln else None, (ln.confidence or 0) if ln else 0) for g, ln in zip(gold, m)]
    out = []
    for th in (0.0, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        att = [(g, p) for g, p, c in rows if p and c >= th - 1e-9]
        right = sum(1 for g, p in att if g == p)
        out.append(f"{th:.2f}:{right/len(rows):.3f}/{right/max(1,len(att)):.3f}")
    print("   thresholds acc/prec  " + "  ".join(out))
