"""The Kor LLM pass with a real model on 平凡的世界: what the LLM adds to the Chinese rules, and how sure it is.

The opening `--chars` characters of the WP2021 text (cut at a paragraph end; the cast discovered from the whole text,
as a user's run has it) and the labelled cues inside them (design cues only: the held-out part stays unread). The
rules alone (default hold), then rules + the LLM for the quotations the rules hold back (`extract_novel(llm=...)`,
`llm_keep="all"`). Every speaker the model names for a line the rules left is scored against the labels, split by
whether it agrees with the rules' held guess: `llm_keep: agree` (the default) keeps only that group.

Needs an endpoint (`eval "$(make -s llm)"`); without one it says so and exits 0. Answers are cached under --cache, so
a rerun is free. `python benchmarks/zh_llm_real.py [--chars 12000] [--json out.json]`
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.novel_llm_real import added_kind, no_endpoint  # noqa: E402
from benchmarks.zh_modern import DESIGN, WP2021, right  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=12000, help="characters read from the book's opening")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache/rolecorpus/llm-bench/zh")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if no_endpoint("zh_llm_real"):
        return
    from extractors.errors import InputError
    from extractors.llm import chat_model_from_env
    from extractors.novel.cast.discover import discover_cast
    from extractors.novel.evaluation.cue_labels import load_labels, score
    from extractors.novel.extract import extract_novel, read_novel

    full = read_novel(WP2021 / "wp2021_train.txt")
    end = full.find("\n\n", args.chars)
    text = full if end < 0 else full[:end]
    cast = discover_cast(full, "zh", by_lines=False)
    chars = [m.to_character("wp2021", "zh") for m in cast]
    labels = load_labels(WP2021 / "label_wp2021_train.txt")[:DESIGN]
    chat = chat_model_from_env(timeout=1200.0, max_tokens=1024)
    args.cache.mkdir(parents=True, exist_ok=True)
    metrics = args.cache / "metrics_wp2021.json"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wp2021.txt"
        path.write_text(text, encoding="utf-8")
        rules = extract_novel(path, "wp2021", chars, language="zh", text=text)
        guess = extract_novel(path, "wp2021", chars, language="zh", text=text, min_confidence=0.0)
        t0 = time.monotonic()
        try:
            both = extract_novel(path, "wp2021", chars, language="zh", text=text, llm=chat,
                                 llm_kwargs={"cache_dir": args.cache, "metrics_path": metrics, "timeout": 1200.0,
                                             "concurrency": 1, "max_retries": 1}, llm_keep="all")
        except InputError as e:  # a chunk the model never answered in form
            print(json.dumps({"failed": str(e)[:300], "seconds": round(time.monotonic() - t0, 1)}, ensure_ascii=False))
            return
        secs = time.monotonic() - t0
    labels = [d for d, ln in score(text, labels, rules, cast)["rows"] if ln is not None]  # the cues inside the cut
    r0, r1 = score(text, labels, rules, cast), score(text, labels, both, cast)
    by = {ln.index: ln for ln in rules}
    held = {ln.index: ln.speaker for ln in guess}
    kinds: dict[str, Counter] = {}
    for d, ln in r1["rows"]:
        if not d["speaker"] or not ln or not ln.speaker or by[ln.index].speaker is not None:
            continue
        kinds.setdefault(added_kind(ln, held), Counter())["right" if right(d, ln, r1["form"]) else "wrong"] += 1
    m = json.loads(metrics.read_text(encoding="utf-8")) if metrics.exists() else {}
    out = {"chars": len(text), "cues": r0["gold"], "seconds": round(secs, 1), "calls": m.get("calls"),
           "tokens_in": m.get("tokens_in"), "tokens_out": m.get("tokens_out"),
           "rules": {k: round(r0[k], 3) for k in ("accuracy", "coverage", "precision")},
           "rules+llm (all)": {k: round(r1[k], 3) for k in ("accuracy", "coverage", "precision")},
           "added": {k: dict(v) for k, v in sorted(kinds.items())}}
    print(json.dumps(out, ensure_ascii=False))
    for k, v in sorted(kinds.items()):
        n = v["right"] + v["wrong"]
        print(f"  {k:24s} {n:4d} lines added ({n / max(1, r0['gold']):.3f} of the cues), precision {v['right'] / n:.3f}")
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
