"""Fit the confidences of the Chinese exchange rules (`extractors/novel/attribution/zh_modern.py`) and write them to
`extractors/novel/data/zh_turns.json`.

Run: `python benchmarks/zh_fit.py`. On the design part of the 平凡的世界 cues (the first `zh_modern.DESIGN`; the rest
stay held out), with the cast discovered, each rule's confidence is its precision among the cues it guesses
(held guesses included), smoothed as (right + 1) / (given + 2), measured without the turn model (`zh_model.py`,
fitted afterwards on these rules by `benchmarks/zh_model_fit.py`). A rule builds on the guesses emitted before it
(`zh-alternate` goes on from an emitted turn), so the fit is repeated until no confidence moves by more than
0.005 (at most `ROUNDS` times), each round reading the table the one before wrote.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from unittest.mock import patch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.zh_modern import DESIGN, WP2021  # noqa: E402
from extractors.novel.attribution import zh_model, zh_modern  # noqa: E402
from extractors.novel.analysis import analyse  # noqa: E402
from extractors.novel.attribution.attributor import DEFAULT_MIN_CONFIDENCE  # noqa: E402
from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.evaluation.cue_labels import align, load_labels  # noqa: E402
from extractors.novel.extract import read_novel  # noqa: E402

ROUNDS = 4


def measure(text: str, labels: list[dict], cast: list) -> tuple[Counter, Counter]:
    """(given, right) per exchange rule over the labelled cues, held guesses included."""
    chars = [m.to_character("wp2021", "zh") for m in cast]
    form = {f: c.id for m, c in zip(cast, chars) for f in [m.name, *m.aliases]}
    with patch.object(zh_model, "decode", lambda att, res: None):  # the rules alone: the turn model is fitted on them
        *_, quotes, attrs = analyse(text, chars, "zh", DEFAULT_MIN_CONFIDENCE)  # the fitting hold (zh_model_fit.FIT_HOLD)
    by_open = {q.outer[0][0]: a for q, a in zip(quotes, attrs)}
    given, right = Counter(), Counter()
    for d, off in align(text, labels):
        a = by_open.get(off) or by_open.get(off + 1)
        if not a or a.rule not in zh_modern.RULES or not d["speaker"]:
            continue
        spk = a.speaker or (a.held or (None,))[0]
        if spk:
            given[a.rule] += 1
            right[a.rule] += form.get(d["speaker"]) == spk
    return given, right


def main() -> None:
    text = read_novel(WP2021 / "wp2021_train.txt")
    labels = load_labels(WP2021 / "label_wp2021_train.txt")[:DESIGN]
    cast = discover_cast(text, "zh", by_lines=False)
    table = zh_modern.TABLE
    if table.exists():
        table.unlink()  # the first round: every exchange guess held
    zh_modern.confidences.cache_clear()
    old: dict[str, float] = {}
    for r in range(ROUNDS):
        given, right = measure(text, labels, cast)
        conf = {k: round((right[k] + 1) / (given[k] + 2), 3) for k in zh_modern.RULES}
        print(f"round {r + 1}: " + ", ".join(f"{k} {right[k]}/{given[k]} -> {conf[k]}" for k in zh_modern.RULES))
        table.parent.mkdir(parents=True, exist_ok=True)
        table.write_text(json.dumps({
            "about": "precision of each exchange rule of attribution/zh_modern.py on the design cues of 平凡的世界 "
                     "(wp2021, the first %d), (right + 1) / (given + 2); written by benchmarks/zh_fit.py" % DESIGN,
            "confidence": conf, "given": dict(given), "right": dict(right)}, ensure_ascii=False, indent=1) + "\n",
            encoding="utf-8")
        zh_modern.confidences.cache_clear()
        if old and all(abs(conf[k] - old.get(k, 0)) <= 0.005 for k in conf):
            break
        old = conf


if __name__ == "__main__":
    main()
