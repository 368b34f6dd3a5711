"""Speech-cue labels for a Chinese novel (the 红楼梦 labels of github stoensin/BERT_fun): read them and score
extracted lines against them.

A label file holds one Python dict literal a line: `context` (the text right before a quotation) and
`speaker` (the speaker as the text names it, `宝玉`, `那僧`, `众人`; None where the context names nobody).
Each label's quotation is the first one that opens right after its `context`, found in order. A cue is
right when the line's `name` (the surface the text writes) is the gold speaker (a leading determiner
`那`/`这` aside: the labels write `那僧道` both ways), or both resolve to the same cast member.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from extractors.errors import InputError
from extractors.textio import read_text


def load_labels(path: str | Path) -> list[dict]:
    """The labels of a file; a line that is not a dict with `context` and `speaker` is an InputError naming it."""
    out = []
    for row, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            d = ast.literal_eval(line.strip())
        except (ValueError, SyntaxError):
            raise InputError("not a Python dict literal", path, row) from None
        if not isinstance(d, dict) or not isinstance(d.get("context"), str) or "speaker" not in d:
            raise InputError("a label needs a `context` string and a `speaker` (a string or None)", path, row)
        out.append(d)
    if not out:
        raise InputError("no labels", path)
    return out


def align(text: str, labels: list[dict]) -> list[tuple[dict, int]]:
    """(label, offset of the opening quote mark) for each label found in order."""
    out, pos, last = [], 0, 0
    for d in labels:
        k = text.find(d["context"], pos)
        if k < 0:
            k = text.find(d["context"], last)
        if k < 0:
            continue
        last, pos = k, k + len(d["context"])
        out.append((d, pos))
    return out


def same_surface(name: str | None, gold: str) -> bool:
    """The line's surface is the gold one, a determiner aside: the labels write `那僧道` as `那僧` in one
    cue and `僧` in another."""
    def bare(x: str) -> str:
        return x[1:] if len(x) >= 2 and x[0] in "那这這此" else x
    return name is not None and (name == gold or bare(name) == bare(gold))


def score(text: str, labels: list[dict], lines: list, cast: list) -> dict:
    """Accuracy on cues with a gold speaker, coverage (a speaker given), precision (right among given), gold-None
    cues given a speaker, and the most confused (gold, given) pairs; `rows` keeps (label, line) for every cue.
    `cast`: members with `id`, `name`, `aliases` (discovered or configured)."""
    form = {f: m.id for m in cast for f in [m.name, *m.aliases]}
    by_open = {ln.extra["start"] - 1: ln for ln in lines if ln.kind == "dialogue"}
    rows = [(d, by_open.get(off) or by_open.get(off + 1)) for d, off in align(text, labels)]
    n_gold = right = given = none_given = 0
    wrong: Counter = Counter()
    for d, ln in rows:
        spk, name, gold = (ln.speaker, ln.name, d["speaker"]) if ln else (None, None, d["speaker"])
        if gold is None:
            none_given += bool(spk)
            continue
        n_gold += 1
        if spk:
            given += 1
            ok = same_surface(name, gold) or (form.get(gold) is not None and form.get(gold) in (spk, form.get(name or "")))
            right += ok
            wrong[(gold, name)] += not ok
    return {"cues": len(rows), "n_labels": len(labels), "gold": n_gold, "right": right, "given": given,
            "accuracy": right / max(1, n_gold), "coverage": given / max(1, n_gold),
            "precision": right / max(1, given), "none_given": none_given, "none": len(rows) - n_gold,
            "confusions": [{"gold": g, "predicted": p, "count": c} for (g, p), c in wrong.most_common() if c],
            "rows": rows, "form": form}
