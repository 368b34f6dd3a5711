"""The Kor LLM pass with a real model on PDNC chapters: what the LLM adds to the rules, and how sure it is.

For each book, the opening `--chars` characters (cut at a paragraph end) and the gold quotations inside them; the
rules alone (default hold), then rules + the LLM for the quotations the rules hold back (`extract_novel(llm=...)`).
Every speaker the model names (`llm_keep="all"`) for a line the rules left is scored against gold, split by
whether it agrees with the rules' held guess for that line: the keep rule (`llm_keep`) is chosen from those
precisions; `agree` keeps only the first group.

Needs an endpoint (`eval "$(make -s llm)"`); without one it says so and exits 0. Answers are cached under --cache,
so a rerun is free. `python benchmarks/novel_llm_real.py [--books A,B] [--chars 15000] [--json out.json]`
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
PDNC = Path(os.environ.get("PDNC_DIR", REPO.parent / "shared" / "corpora" / "pdnc" / "data"))


def cut_book(book: Path, chars: int, out: Path) -> Path:
    """A PDNC directory holding the book's first `chars` characters (to a paragraph end) and its quotations."""
    text = (book / "novel_text.txt").read_text(encoding="utf-8")
    end = text.find("\n\n", chars)
    text = text if end < 0 else text[:end]
    out.mkdir(parents=True, exist_ok=True)
    (out / "novel_text.txt").write_text(text, encoding="utf-8")
    (out / "character_info.csv").write_bytes((book / "character_info.csv").read_bytes())
    with open(book / "quotation_info.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    keep = [r for r in rows if max(int(b) for _, b in json.loads(r["quoteByteSpans"])) <= len(text)]
    with open(out / "quotation_info.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        w.writeheader()
        w.writerows(keep)
    return out


def added_kind(ln, held: dict) -> str:
    """How a line the rules left got its speaker: from the model, agreeing or not with the rules' held guess
    (`held`: line index -> that guess), or otherwise."""
    if ln.evidence != "llm":
        return "held guess given back"
    h = held.get(ln.index)
    return "llm, no held guess" if h is None else ("llm = held guess" if h == ln.speaker else "llm != held guess")


def no_endpoint(name: str) -> bool:
    """True (and says so) when no LLM endpoint is configured: the real-model benchmarks then skip."""
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return False
    print(f"{name}: no LLM endpoint configured (eval \"$(make -s llm)\" starts a local one): skipped")
    return True


def score_book(book: Path, chat, cache: Path) -> dict:
    from extractors.errors import InputError
    from extractors.novel import extract_novel, load_pdnc_characters, load_pdnc_quotes, score_quotes
    from extractors.novel.evaluation.evaluate import line_truth

    chars, gold = load_pdnc_characters(book), load_pdnc_quotes(book)
    path = book / "novel_text.txt"
    rules = extract_novel(path, book.name, chars, language="en")
    guess = extract_novel(path, book.name, chars, language="en", min_confidence=0.0)
    metrics = cache / f"metrics_{book.name}.json"
    t0 = time.monotonic()
    try:
        both = extract_novel(path, book.name, chars, language="en", llm=chat,
                             llm_kwargs={"cache_dir": cache, "metrics_path": metrics, "timeout": 1200.0,
                                         "concurrency": 1, "max_retries": 1}, llm_keep="all")
    except InputError as e:  # a chunk the model never answered in form: the book is reported as failed
        return {"book": book.name, "failed": str(e)[:300], "seconds": round(time.monotonic() - t0, 1)}
    secs = time.monotonic() - t0
    truth = line_truth(gold, both)
    by = {ln.index: ln for ln in rules}
    held = {ln.index: ln.speaker for ln in guess}
    kinds: dict[str, Counter] = {}
    for ln in both:
        t = truth.get(ln.index)
        if ln.kind != "dialogue" or t is None or ln.speaker is None or by[ln.index].speaker is not None:
            continue
        kinds.setdefault(added_kind(ln, held), Counter())["right" if ln.speaker == t else "wrong"] += 1
    before, after = score_quotes(gold, rules)["overall"], score_quotes(gold, both)["overall"]
    m = json.loads(metrics.read_text(encoding="utf-8")) if metrics.exists() else {}
    return {"book": book.name, "quotes": before["quotes"], "seconds": round(secs, 1),
            "chunks_sent": m.get("chunks_sent"), "calls": m.get("calls"), "mended": m.get("answers_mended"),
            "tokens_in": m.get("tokens_in"), "tokens_out": m.get("tokens_out"),
            "rules": {k: before[k] for k in ("accuracy", "coverage", "precision")},
            "rules+llm": {k: after[k] for k in ("accuracy", "coverage", "precision")},
            "added": {k: dict(v) for k, v in sorted(kinds.items())}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--books", help="comma-separated PDNC books (default: the eight design books of the split)")
    ap.add_argument("--chars", type=int, default=15000, help="characters read from each book's opening")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache/rolecorpus/llm-bench/novel")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if no_endpoint("novel_llm_real"):
        return
    from extractors.llm import chat_model_from_env

    split = json.loads((REPO / "benchmarks/pdnc_split.json").read_text(encoding="utf-8"))
    books = args.books.split(",") if args.books else sorted(
        d.name for d in PDNC.iterdir() if (d / "novel_text.txt").exists() and d.name not in split["heldout"])
    chat = chat_model_from_env(timeout=1200.0, max_tokens=1024)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in books:
            cut = cut_book(PDNC / name, args.chars, Path(tmp) / name)
            if (cut / "quotation_info.csv").read_text(encoding="utf-8").count("\n") < 2:
                print(json.dumps({"book": name, "skipped": f"no quotation in its first {args.chars} characters"}))
                continue
            r = score_book(cut, chat, args.cache)
            results.append(r)
            print(json.dumps(r, ensure_ascii=False), flush=True)
    failed = [r for r in results if "failed" in r]
    results = [r for r in results if "failed" not in r]
    total: dict[str, Counter] = {}
    for r in results:
        for k, v in r["added"].items():
            total.setdefault(k, Counter()).update(v)
    quotes = sum(r["quotes"] for r in results)
    print(f"{len(results)} books, {quotes} quotations, {sum(r['seconds'] for r in results):.0f} s"
          + (f"; {len(failed)} failed ({', '.join(r['book'] for r in failed)})" if failed else ""))
    for k, v in sorted(total.items()):
        n = v["right"] + v["wrong"]
        print(f"  {k:24s} {n:4d} lines added ({n / quotes:.3f} of the quotations), precision {v['right'] / n:.3f}")
    if args.json:
        args.json.write_text(json.dumps(results + failed, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
