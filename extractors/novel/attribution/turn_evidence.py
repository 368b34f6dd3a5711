"""What backs a turn-taking guess, for the calibration (`calibration.turn_vector`): the exchange around the turn
(`turn_features`), the book's style model's verdict (`style_llr`) and the form of a pronoun-like tag (`tag_form`).
"""

from __future__ import annotations

import re

from .conversation import OTHER, Turn


def centred(ll: dict[str, float]) -> dict[str, float]:
    """Each candidate's log-likelihood relative to their mean."""
    mean = sum(ll.values()) / len(ll)
    return {c: v - mean for c, v in ll.items()}


def style_llr(t: Turn, best: str, post_k: dict) -> float | None:
    """How much better the book's style model finds the turn's words in the guess's mouth than in the runner-up's
    (from `Turn.style`); None when either has no model."""
    runner = max((c for c in post_k if c not in (best, OTHER)), key=post_k.get, default=None)
    return t.style[best] - t.style[runner] if t.style and best in t.style and runner in t.style else None


def turn_features(turns: list, k: int, best: str, posterior: float, pron_tag: bool, post_k: dict | None = None) -> dict:
    """What backs a turn-taking guess: the posterior and its margin over the runner-up, whether the
    nearest name-tagged turns before and after agree with strict alternation (+1), contradict it (-1)
    or are absent/far (0) and how far they are, how many people are tagged in the exchange, whether a
    neighbour turn addresses the guess, whether the paragraph's own narration is about the guess
    or about someone else, and whether the turn's tag is a description naming no cast member (`said the sailor`)."""
    def anchor(step: int) -> tuple[int, int]:
        kk = k + step
        while 0 <= kk < len(turns) and abs(kk - k) <= 6:
            f = turns[kk].fixed
            if f:
                return (1 if ((abs(kk - k) % 2 == 0) == (f == best)) else -1), abs(kk - k)
            kk += step
        return 0, 7
    tagged = {t.fixed for t in turns if t.fixed}
    fixed = [(kk, t.fixed) for kk, t in enumerate(turns) if t.fixed]
    clean = False
    if len(tagged) == 2:  # a two-person exchange whose every tag keeps strict alternation, and the guess too
        k0, f0 = fixed[0]
        other = next(iter(tagged - {f0}))
        clean = all((f0 if (kk - k0) % 2 == 0 else other) == f for kk, f in fixed) \
            and (f0 if (k - k0) % 2 == 0 else other) == best
    voc = any(best in turns[kk].vocatives for kk in (k - 1, k + 1) if 0 <= kk < len(turns))
    (before, d_before), (after, d_after) = anchor(-1), anchor(1)
    ranked = sorted((post_k or {}).values(), reverse=True)
    t = turns[k]
    present = set(tagged).union(*(set(u.narr_subj) | set(u.narr_before) | u.vocatives for u in turns))
    return {"present": len(present), "posterior": posterior, "before": before, "after": after, "d_before": d_before, "d_after": d_after,
            "margin": ranked[0] - ranked[1] if len(ranked) > 1 else 1.0, "people": min(3, len(tagged)),
            "addressed": voc, "clean": clean, "pron": bool(pron_tag), "first": k == 0, "len": len(turns),
            "gap_before": bool(t.gap_before), "narr_is_guess": best in t.narr_subj,
            "narr_is_other": bool(set(t.narr_subj) - {best}), "outsider": t.outsider}


def tag_form(rule: str | None) -> str:
    """The form of a pronoun-like tag, for the calibration: `noun` (`said the man`, `her sister cried`), `pre`
    (`she said, "…` before the quote: often the next speaker's), or `post` (`"…," she said`)."""
    r = rule or ""
    if re.search(r"(?<!pro)noun", r.split("/")[0]):
        return "noun"
    return "pre" if r.startswith(("pre-", "prev-pre-")) else "post"
