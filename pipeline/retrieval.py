"""Nearest stories by cosine similarity: one matrix-vector product over a normalised float32 matrix."""

from __future__ import annotations

import numpy as np


class StoryIndex:
    def __init__(self, vectors: np.ndarray):
        v = np.ascontiguousarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        self.matrix = v / np.maximum(norms, 1e-12)

    def __len__(self) -> int:
        return len(self.matrix)

    def search(self, query: np.ndarray, k: int = 10) -> list[tuple[int, float]]:
        """(story position, cosine) of the k most similar stories, best first."""
        q = np.asarray(query, dtype=np.float32).ravel()
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        scores = self.matrix @ q
        k = min(k, len(scores))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(i), float(scores[i])) for i in top]


def cosine_loop(query: list[float], vectors: list[list[float]], k: int = 10) -> list[tuple[int, float]]:
    """The pure-Python search of the ChatHaruhi 2.0 runtime (lists, one cosine at a time): the benchmark's peer."""
    import math

    qn = math.sqrt(sum(x * x for x in query))
    scores = []
    for i, v in enumerate(vectors):
        dot = sum(a * b for a, b in zip(query, v))
        vn = math.sqrt(sum(x * x for x in v))
        scores.append((dot / (qn * vn + 1e-12), i))
    scores.sort(reverse=True)
    return [(i, s) for s, i in scores[:k]]
