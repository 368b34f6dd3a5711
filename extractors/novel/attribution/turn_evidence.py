"""What backs a turn-taking guess, for the calibration (`calibration.turn_vector`): the exchange around the turn
(`turn_features`, `turn_context`), the book's style model's verdict (`style_llr`) and the form of a pronoun-like tag (`tag_form`).
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


def turn_context(gender: dict, turns: list[Turn], k: int, best: str, post: list[dict]) -> dict:
    """What the exchange says about a guess beyond `turn_features`: how many of its people share
    the gender a pronoun tag wants (a man and a woman talking: `she said` is the woman), whether
    the pronoun resolver's local suggestion agrees, whether the previous turn addressed the guess,
    and whether the decoded speakers around it alternate with it."""
    t = turns[k]
    near = range(max(0, k - 2), min(len(turns), k + 3))
    local = {c for kk in near for c in ([turns[kk].fixed] if turns[kk].fixed else []) + turns[kk].narr_subj
             + turns[kk].narr_before + list(turns[kk].vocatives)}
    present = {c for u in turns for c in ([u.fixed] if u.fixed else []) + u.narr_subj + u.narr_before + list(u.vocatives)}
    local.add(best)
    present.add(best)
    want = t.gender
    top = [max(p, key=p.get) if p else None for p in post]
    ranked = sorted((c for c in post[k] if c != OTHER), key=lambda c: -post[k][c])
    runner = next((c for c in ranked if c != best), None)
    return {
        "want": want, "best_gender": gender.get(best),
        "same_gender_local": sum(1 for c in local if want and gender.get(c) == want),
        "same_gender_run": sum(1 for c in present if want and gender.get(c) == want),
        "local_n": len(local), "genders_local": len({gender.get(c) for c in local}),
        "runner_same_gender": bool(runner and gender.get(runner) == gender.get(best)),
        "sug_agrees": t.suggestion == best if t.suggestion else None, "sug_why": t.sug_why,
        "prev_addressed": k > 0 and best in turns[k - 1].vocatives,
        "next_addressed": k + 1 < len(turns) and best in turns[k + 1].vocatives,
        "narr_before_is_guess": best in t.narr_before, "mentioned": best in t.mentioned,
        "soft_gender_ok": (gender.get(best) == t.soft_gender) if t.soft_gender else None,
        "prev_top": top[k - 1] == best if k > 0 else None,
        "alt2": (top[k - 2] == best and top[k - 1] != best) if k > 1 else None,
        "alt_next2": (top[k + 2] == best and top[k + 1] != best) if k + 2 < len(turns) else None,
    }
