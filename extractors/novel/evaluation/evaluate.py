"""Score extracted dialogue lines against gold quotations (PDNC) by span overlap.

Each gold quotation is matched to the extracted dialogue line whose spans overlap it most.
accuracy = right / all gold quotes (unmatched or unattributed count as wrong);
coverage = attributed / all; precision = right / attributed.
"""

from __future__ import annotations

import bisect
from collections import Counter

from extractors.records import Line

from .pdnc import GoldQuote

TYPES = ("Explicit", "Anaphoric", "Implicit")


def _line_spans(ln: Line) -> list[tuple[int, int]]:
    ex = ln.extra or {}
    if ex.get("spans"):
        return [(int(a), int(b)) for a, b in ex["spans"]]
    return [(int(ex["start"]), int(ex["end"]))]


def match(gold: list[GoldQuote], lines: list[Line]) -> list[Line | None]:
    """For each gold quote, the dialogue line overlapping it most (or None)."""
    spans = []
    for ln in lines:
        if ln.kind != "dialogue":
            continue
        for s, e in _line_spans(ln):
            spans.append((s, e, ln))
    spans.sort(key=lambda t: t[0])
    starts = [s for s, _, _ in spans]
    out: list[Line | None] = []
    for g in gold:
        best: dict[int, int] = {}
        by_id: dict[int, Line] = {}
        for gs, ge in g.spans:
            k = bisect.bisect_left(starts, ge)
            j = k - 1
            while j >= 0 and k - j < 50:
                s, e, ln = spans[j]
                ov = min(e, ge) - max(s, gs)
                if ov > 0:
                    best[id(ln)] = best.get(id(ln), 0) + ov
                    by_id[id(ln)] = ln
                j -= 1
        out.append(by_id[max(best, key=best.get)] if best else None)
    return out


def line_truth(gold: list[GoldQuote], lines: list[Line]) -> dict[int, str]:
    """For each dialogue line (by index), the gold speaker of the quotation overlapping it most. Unlike `match`
    (one line per quotation), every part of a quotation the extractor split into several lines gets its speaker;
    a line that overlaps no gold quotation (a letter heading, a quoted title) has none."""
    speaker_of = gold_speaker_finder(gold)
    out: dict[int, str] = {}
    for ln in lines:
        if ln.kind == "dialogue" and (who := speaker_of(_line_spans(ln))):
            out[ln.index] = who
    return out


def gold_speaker_finder(gold: list[GoldQuote]):
    """A function from text spans [(start, end), ...] to the gold speaker whose quotations overlap them most (None)."""
    spans = sorted((s, e, g.speaker) for g in gold for s, e in g.spans)
    starts = [s for s, _, _ in spans]

    def speaker_of(text_spans) -> str | None:
        overlap: Counter = Counter()
        for ls, le in text_spans:
            j = bisect.bisect_left(starts, le) - 1
            while j >= 0 and spans[j][0] >= ls - 20000:
                s, e, who = spans[j]
                if min(e, le) > max(s, ls):
                    overlap[who] += min(e, le) - max(s, ls)
                j -= 1
        return overlap.most_common(1)[0][0] if overlap else None
    return speaker_of


def _block(rows: list[tuple[str, str | None]]) -> dict:
    n = len(rows)
    att = sum(1 for _, p in rows if p is not None)
    right = sum(1 for g, p in rows if p is not None and g == p)
    return {"accuracy": round(right / n, 4) if n else 0.0, "coverage": round(att / n, 4) if n else 0.0,
            "precision": round(right / att, 4) if att else 0.0, "quotes": n}


def score(gold: list[GoldQuote], lines: list[Line], top: int = 10) -> dict:
    matched = match(gold, lines)
    rows = [(g.speaker, m.speaker if m is not None else None) for g, m in zip(gold, matched)]
    out = {"overall": _block(rows), "by_type": {}}
    for t in TYPES:
        out["by_type"][t] = _block([r for r, g in zip(rows, gold) if g.qtype == t])
    conf = Counter((g, p) for g, p in rows if p is not None and p != g)
    out["confusions"] = [{"gold": g, "predicted": p, "count": c} for (g, p), c in conf.most_common(top)]
    out["unmatched"] = sum(1 for m in matched if m is None)
    return out
