"""Map the rows a model returned for a chunk back to the chunk's quotations.

A row's `dialogue` is compared with each quotation's text after normalisation (case, width,
punctuation and spaces folded) with rapidfuzz: full similarity, or partial similarity when the
shorter side is long enough to be distinctive (a row may hold one half of a quotation broken by
a speech tag, or both halves; the rules may have cut or merged quotations differently from the
model). Ties (a repeated "Yes.") go to the row whose place in the answer is
closest to the quotation's place in the chunk.
"""

from __future__ import annotations

import re
import unicodedata

from .schema import NO_DIALOGUE

MIN_SCORE = 80.0
ORDER_WEIGHT = 8.0


def norm_text(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).casefold()
    s = re.sub(r"[^\w]+", " ", s)  # keeps letters, digits, CJK
    return " ".join(s.split())


def similarity(a: str, b: str) -> float:
    """0..100: how well normalised row text `a` matches quotation text `b`."""
    from rapidfuzz import fuzz

    if not a or not b:
        return 0.0
    score = fuzz.ratio(a, b)
    short, long_ = sorted((len(a), len(b)))
    if short >= 30 or (short >= 12 and short >= 0.25 * long_) or (short >= 4 and short >= 0.5 * long_):
        score = max(score, fuzz.partial_ratio(a, b) * (0.97 if short < long_ else 1.0))
    return float(score)


def match_rows(rows: list[dict], quotes: list[tuple[int, str]]) -> dict[int, tuple[int, float]]:
    """For each quotation id, the best row (index into rows) and its score, when >= MIN_SCORE.

    `quotes` are (line id, text) in text order: all quotations of the chunk, so that rows about
    already-attributed quotations are not taken for unresolved ones.
    """
    speech = [(k, norm_text(r.get("dialogue") or "")) for k, r in enumerate(rows)]
    speech = [(k, t) for k, t in speech if t and t not in NO_DIALOGUE]
    if not speech or not quotes:
        return {}
    nq, nr = len(quotes), len(speech)
    best: dict[int, tuple[int, float]] = {}
    for qpos, (lid, qtext) in enumerate(quotes):
        qn = norm_text(qtext)
        qrel = qpos / max(1, nq - 1)
        cand = None
        for rpos, (k, rtext) in enumerate(speech):
            sim = similarity(rtext, qn)
            if sim < MIN_SCORE:
                continue
            rank = sim - ORDER_WEIGHT * abs(rpos / max(1, nr - 1) - qrel)
            if cand is None or rank > cand[0]:
                cand = (rank, k, sim)
        if cand is not None:
            best[lid] = (cand[1], cand[2])
    return best
