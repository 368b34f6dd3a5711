"""Open-set speaker identification: the cohort normalisation and the voices nobody enrolled.

Most lines of a series belong to side characters nobody enrolled. The cohort is every line of the episode
(plus lines of other episodes handed in): embeddings are centred on the cohort's mean (what every voice of
the recording shares: channel, synthesiser, room), and the centred cosine s(x, c) of line x and character c
is normalised the adaptive s-norm way, against the mean of the `cohort_top` most similar cohort lines of the
line (mu_x, itself left out) and of the character (mu_c): norm = s - (mu_x + mu_c) / 2. A voice nobody
enrolled finds its own lines closer than any character and falls below `snorm_maybe`. Such a line is
`unknown` when at least `group_size` - 1 other low lines lie within `group_link` of it (a voice of its
own); a lone low line (a short or noisy line of an enrolled voice, as on a telephone) stays a `maybe`.
Lines with a voice of their own never join a character's profile while the episode adapts it.
"""

from __future__ import annotations

import numpy as np

from .speaker_model import DEFAULTS, _unit

JOIN_AT = "snorm_accept"  # below it, a line in a group of its own never joins a profile while the episode adapts it


class Cohort:
    """Adaptive s-norm against a cohort of lines (the episode's, plus any handed in): see the module docstring."""

    def __init__(self, E: np.ndarray, extra: np.ndarray | None, exemplars: np.ndarray, top: int):
        parts = [E] + ([_unit(np.asarray(extra, np.float64))] if extra is not None and len(extra) else [])
        if len(exemplars):  # the labelled lines are voices of the cohort too (unless they are lines of E)
            parts.append(exemplars[(exemplars @ E.T).max(1) < 0.9999] if len(E) else exemplars)
        pool = np.concatenate(parts)
        self.mu = pool.mean(0)
        self.P = _unit(pool - self.mu)
        self.Ec = self.P[: len(E)]
        self.top = max(1, min(int(top), len(pool) - 1))
        SX = self.Ec @ self.P.T
        SX[np.arange(len(E)), np.arange(len(E))] = -np.inf  # a line is not its own cohort
        self.mu_x = np.sort(SX, axis=1)[:, -self.top:].mean(1)

    def norm(self, rows, sums: np.ndarray) -> np.ndarray:
        C = _unit(_unit(sums) - self.mu)
        mu_c = np.sort(C @ self.P.T, axis=1)[:, -self.top:].mean(1)
        return self.Ec[rows] @ C.T - (self.mu_x[rows, None] + mu_c[None, :]) / 2

    def grouped(self, rows: list[int], low: np.ndarray, link: float, size: int) -> np.ndarray:
        """Which of the `low` rows (below snorm_maybe) have at least size-1 other low rows within cosine `link`:
        a voice of its own. A lone low line may be a noisy line of an enrolled voice: it stays a `maybe`."""
        idx = np.asarray(rows)[low]
        out = np.zeros(len(rows), dtype=bool)
        if len(idx) >= size:
            G = self.Ec[idx] @ self.Ec[idx].T
            out[np.flatnonzero(low)] = (G >= link).sum(1) - 1 >= size - 1
        return out


def own_voices(pending: list[int], score, coh: Cohort, th: dict, st: dict) -> set[int]:
    """Lines that, scored against the enrolled profiles alone, fall below JOIN_AT in a group of their own."""
    if not pending:
        return set()
    _, R, N = score(pending)
    low = N[np.arange(len(pending)), R.argmax(1)] < th[JOIN_AT]
    g = coh.grouped(pending, low, st.get("group_link", DEFAULTS["group_link"]),
                    st.get("group_size", DEFAULTS["group_size"]))
    return {r for r, x in zip(pending, g) if x}


def keep_lone_lines(out: dict, rows_of: dict, coh: Cohort, th: dict, st: dict, verdict) -> None:
    """Open set, last pass: a line below snorm_maybe is a voice nobody enrolled only when other such lines
    share its voice (`Cohort.grouped`); a lone one (a short or noisy line of an enrolled voice) is a `maybe`."""
    rows = sorted(rows_of)
    nb = np.array([out[r].norm if out[r].norm is not None else np.inf for r in rows])
    low = nb < th["snorm_maybe"]
    grouped = coh.grouped(rows, low, st.get("group_link", DEFAULTS["group_link"]),
                          st.get("group_size", DEFAULTS["group_size"]))
    for j in np.flatnonzero(low & ~grouped):
        r = rows[j]
        S_j, R_j, N_j = rows_of[r]
        out[r] = verdict(S_j, R_j, np.maximum(N_j, th["snorm_maybe"]))
        out[r].norm = float(nb[j])
