"""Scores of a chatbot's reply against the character's original line (the paper's §6 automatic evaluation).

- `cosine`: the embedding cosine of reply and original with the project's embedder (the paper uses one multilingual
  sentence embedder); vectors are normalised in float64 and the cosine rounded to 6 places, so a line scored
  against itself is exactly 1.0.
- `rouge_l`: ROUGE-L F-measure (package rouge-score) over our own tokens: every CJK character is one token, every
  run of latin letters/digits is one lower-cased word, punctuation is dropped, no stemming. rouge-score's default
  tokenizer keeps only [a-z0-9] and would turn a Chinese line into nothing; character-level ROUGE is the usual
  choice for Chinese. A reply with no tokens scores 0.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]|[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]")


def tokenize(text: str) -> list[str]:
    """CJK characters one by one, other words whole (lower-cased); a word run never swallows a CJK character."""
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower()):
        if len(tok) > 1 and _CJK.search(tok):
            out.extend(t for t in re.split(f"({_CJK.pattern})", tok) if t)
        else:
            out.append(tok)
    return out


class _Tokenizer:
    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


_SCORER = None


def rouge_l(reply: str, original: str) -> float:
    """ROUGE-L F-measure of the reply against the original line, rounded to 6 places."""
    global _SCORER
    if _SCORER is None:
        from rouge_score import rouge_scorer

        _SCORER = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tokenizer())
    if not tokenize(reply) or not tokenize(original):
        return 0.0
    return round(float(_SCORER.score(original, reply)["rougeL"].fmeasure), 6)


def cosines(embedder, replies: Sequence[str], originals: Sequence[str]) -> list[float]:
    """Cosine of each reply with its original (an empty reply scores 0)."""
    if not replies:
        return []
    vecs = np.asarray(embedder.encode(list(replies) + list(originals)), dtype=np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    n = len(replies)
    raw = np.clip(np.sum(vecs[:n] * vecs[n:], axis=1), -1.0, 1.0)
    return [round(float(c), 6) if r.strip() else 0.0 for c, r in zip(raw, replies)]


def mean(values: Sequence[float]) -> float | None:
    return round(float(np.mean(values)), 4) if len(values) else None
