"""Calibrated confidences for rule attribution: a confidence is the share of such guesses that were right on
books the tables were not fitted on, so one hold means the same precision on every book.

Two fitted tables, in `data/calibration.json` (written by `benchmarks/novel_calibrate.py --write`): each naming
rule's pooled precision (`RULE_PRECISION`), and a logistic model over what backs a turn-taking guess
(`TURN_WEIGHTS`, inputs in `turn_vector`). A rule missing from the table keeps the confidence its rule gave it.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from itertools import groupby
from pathlib import Path

from .speaker_style import STRONG

# A rare variant of a name tag (`said the unsympathetic Marilla`, `"…?" Archer smirked`) is fitted as its
# measured hits shrunk towards its family's precision, FAMILY_WEIGHT pseudo-observations strong, not towards 1/2.
RULE_FAMILY: dict[str, str] = {
    "verb-adj-name": "verb-name", "name-xverb": "name-verb", "xverb-name": "verb-name", "name-xverb-q": "name-xverb",
    "heard-name-say": "name-verb",
    "was-name-reply": "name-verb", "it-was-name": "name-verb", "from-name": "name-verb",
    "pre-name-verb/sub": "pre-name-verb", "prev-pre-name-verb/sub": "pre-name-verb/sub",
    "subj": "subj/one", "subj/colon": "subj/one", "subj/colon/one": "subj/one",
    "prev-subj/colon": "prev-subj/colon/one", "prev-subj/colon/one": "subj/one", "voice-name": "name-verb",
    "descr-verb/alias": "verb-descr/alias", "descr-verb/role": "verb-descr/role", "descr-verb/generic": "verb-descr/generic",
    "xverb-descr/alias": "verb-descr/alias", "xverb-descr/role": "verb-descr/role",
    "verb-adj-name/bare": "verb-adj-name", "pre-name-who-verb": "pre-name-verb",
    "verb-this-descr/alias": "verb-descr/alias", "verb-this-descr/role": "verb-descr/role",
    "pre-name-verb/before-pron": "pre-name-verb", "pre-name-verb/sub/before-pron": "pre-name-verb/sub",
    "pre-by-name/before-pron": "pre-by-name",
    "descr-verb/role-title": "verb-descr/role-title", "descr-verb/role-scene": "verb-descr/role-scene",
    "xverb-descr/role-title": "verb-descr/role-title", "xverb-descr/role-scene": "verb-descr/role-scene",
}
FAMILY_WEIGHT = 10.0

ACTIVE = True  # switched off by the calibration benchmark to see the raw rule confidences

TABLES = Path(__file__).resolve().parent.parent / "data" / "calibration.json"


def load_tables(path: Path = TABLES) -> tuple[dict[str, float], dict[str, float]]:
    """The fitted tables (rule precision, turn weights) as `benchmarks/novel_calibrate.py --write` wrote them."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data["rule_precision"]), dict(data["turn_weights"])


RULE_PRECISION, TURN_WEIGHTS = load_tables()  # read once, at import



def rule_key(rule: str | None) -> str:
    """The table key of a rule: its full name (`prev-pre-name-verb`, `pronoun-verb/kin`), so each
    variant keeps its own measured precision."""
    return (rule or "?").strip()


def turn_vector(f: dict) -> dict[str, float]:
    """The named inputs of the turn-taking model."""
    return {
        "bias": 1.0,
        "posterior": float(f["posterior"]),
        "before_agrees": float(f["before"] == 1), "before_contradicts": float(f["before"] == -1),
        "after_agrees": float(f["after"] == 1), "after_contradicts": float(f["after"] == -1),
        "both_agree": float(f["before"] == 1 and f["after"] == 1),
        "two_people": float(f["people"] == 2), "nobody_tagged": float(f["people"] == 0),
        "addressed": float(bool(f["addressed"])), "clean_alternation": float(bool(f["clean"])),
        "clean_and_sure": float(f["clean"] and f["posterior"] >= 0.9), "pronoun_tag": float(bool(f["pron"])),
        "first_turn": float(bool(f["first"])), "log_turns": math.log(1 + f["len"]),
        "near_before": 1.0 / f["d_before"], "near_after": 1.0 / f["d_after"],
        "margin": float(f["margin"]), "gap_before": float(f["gap_before"]),
        "narration_is_guess": float(f["narr_is_guess"]),
        "narration_is_other": float(f["narr_is_other"]),
        "two_present": float(f["present"] == 2), "crowd": float(f["present"] >= 4),
        "outsider_tag": float(bool(f.get("outsider"))),
        **_context_vector(f), **_book_vector(f),
    }


# A noun tag (`said the girl`) that the book uses at least EPITHET_MIN times and whose guesses go to one person at
# least EPITHET_SHARE of the time is that person's epithet in this book (Oliver Twist's `the girl`: Nancy); one whose guesses scatter (`the man`, `the gentleman`) names whoever is at hand. Fixed before any fit.
EPITHET_MIN, EPITHET_SHARE = 4, 0.8


# A form of address (`Lizzy`, `Miss Eliza`, `my dear Mr. Bennet`) is a person's habit: in a book, the quotes whose
# tag names the speaker show who uses which. A form used at least FORM_MIN times in such quotes says something
# about the untagged quote that uses it: is the guess one of the people seen using it? Fixed before any fit.
FORM_MIN = 3


def address_form_usage(res: list, name_rules: tuple) -> None:
    """Mark each turn guess whose quote uses a form of address the book's name-tagged quotes use FORM_MIN times or
    more: `form_used` (the guess was seen using one of them) or `form_never` (never), in its `turn_features`."""
    use: dict[str, Counter] = defaultdict(Counter)
    for a in res:
        if a.speaker and a.rule in name_rules:
            for form in a.address_forms:
                use[form][a.speaker] += 1
    for a in res:
        if not (a.speaker and a.turn_features):
            continue
        forms = [x for x in a.address_forms if sum(use[x].values()) >= FORM_MIN]
        if forms:
            a.turn_features["form_used"] = any(use[x][a.speaker] for x in forms)
            a.turn_features["form_never"] = not a.turn_features["form_used"]


def _book_vector(f: dict) -> dict[str, float]:
    """What the whole book says about a guess: its noun tag's guesses go to one person or scatter
    (`epithet_consistency`); the guess was or was never seen using the quote's form of address
    (`address_form_usage`); the share of the book's quotations that a name tag attributes (`book_named`)."""
    n, share = f.get("epithet_n", 0), f.get("epithet_share", 0.0)
    return {"epithet_one": float(n >= EPITHET_MIN and share >= EPITHET_SHARE),
            "epithet_scattered": float(n >= EPITHET_MIN and share < 0.5),
            "form_used": float(bool(f.get("form_used"))), "form_never": float(bool(f.get("form_never"))),
            "book_named": float(f.get("book_named", 0.0))}


def epithet_consistency(res: list) -> None:
    """Give each turn guess with a noun tag the share of the book's guesses for the same tag (`the girl`) that went
    to the same person, and how many there are (`epithet_share`, `epithet_n` of its `turn_features`)."""
    def key(a) -> str | None:
        f = a.turn_features
        noun = a.speaker and f and f.get("tag_form") == "noun" and a.surface
        return " ".join(a.surface.lower().split()) if noun else None
    keyed = [(a, k) for a in res if (k := key(a))]
    groups: dict[str, Counter] = defaultdict(Counter)
    for a, k in keyed:
        groups[k][a.speaker] += 1
    for a, k in keyed:
        n = sum(groups[k].values())
        a.turn_features["epithet_share"], a.turn_features["epithet_n"] = groups[k][a.speaker] / n, n


def _context_vector(f: dict) -> dict[str, float]:
    """The inputs from `turn_evidence.turn_context` (0 when absent): pronoun-gender uniqueness
    among the exchange's people, the pronoun resolver's agreement, addressed by the turn before/after,
    decoded alternation two turns away, and the posterior's log-odds (the posterior near 1 matters most)."""
    if "want" not in f:
        return {}
    pron, p = bool(f["pron"]), min(1 - 1e-9, max(1e-9, float(f["posterior"])))
    return {
        "sug_agrees": float(f["sug_agrees"] is True), "sug_disagrees": float(f["sug_agrees"] is False),
        "prev_addressed": float(bool(f["prev_addressed"])), "next_addressed": float(bool(f["next_addressed"])),
        "gender_unique": float(pron and f["same_gender_local"] == 1),
        "gender_crowd": float(pron and f["same_gender_local"] >= 3),
        "narr_before_is_guess": float(f["narr_before_is_guess"]),
        "alt2": float(f["alt2"] is True), "alt2_no": float(f["alt2"] is False),
        "alt_next2": float(f["alt_next2"] is True), "alt_next2_no": float(f["alt_next2"] is False),
        "repeat": float(f["prev_top"] is True), "local_n": float(min(f["local_n"], 5)),
        "mentioned": float(f["mentioned"]), "soft_gender_bad": float(f["soft_gender_ok"] is False),
        "mixed_pair_pron": float(pron and f["genders_local"] == 2),
        "post_logit": max(-6.0, min(6.0, math.log(p / (1 - p)))), "pron_post": float(pron) * p,
        "post99": float(p >= 0.99), "sug_good": float(f["sug_why"] in ("center", "prev-addressee", "only-part")),
        "noun_tag": float(f.get("tag_form") == "noun"), "pre_pron_tag": float(f.get("tag_form") == "pre"),
        **_style_vector(f.get("style_llr")),
    }


def _style_vector(llr: float | None) -> dict[str, float]:
    """The book's style model on the guess against the runner-up (`speaker_style`): agrees, disagrees (by STRONG)."""
    if llr is None:
        return {"style_agrees": 0.0, "style_disagrees": 0.0}
    return {"style_agrees": float(llr >= STRONG), "style_disagrees": float(llr <= -STRONG)}


def turn_probability(f: dict, weights: dict[str, float] | None = None) -> float:
    w = TURN_WEIGHTS if weights is None else weights
    z = sum(w.get(k, 0.0) * v for k, v in turn_vector(f).items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def calibrated(a, rules: dict[str, float] | None = None, weights: dict[str, float] | None = None) -> float | None:
    """The calibrated confidence of one attributed guess (None: keep the rule's own)."""
    rules = RULE_PRECISION if rules is None else rules
    w = TURN_WEIGHTS if weights is None else weights
    if a.turn_features and w:
        return round(turn_probability(a.turn_features, w), 3)
    p = rules.get(rule_key(a.rule))
    return round(p, 3) if p is not None else None


def calibrate(res: list, name_rules: tuple = ()) -> None:
    """Replace each guess's confidence by its calibrated one (in place); `name_rules`: the rules that name the
    speaker (their lines teach the book's forms of address, `address_form_usage`)."""
    epithet_consistency(res)
    address_form_usage(res, name_rules)
    named = sum(1 for a in res if a.speaker and a.rule in name_rules) / max(1, len(res))
    for a in res:  # how much of the book its name tags attribute (`_book_vector`)
        if a.turn_features:
            a.turn_features["book_named"] = named
    for a in res:  # turn-taking agrees with a weak clue of the text (`hint`): scored as that pair, not by the turn model
        if a.hint and a.rule == "conv" and a.speaker == a.hint[0]:
            a.rule, a.turn_features = "conv+" + a.hint[1], None
    if not ACTIVE:
        return
    for a in res:
        if a.speaker:
            c = calibrated(a)
            if c is not None:
                a.confidence = c


# The book's own hold (`book_hold`): a book whose confident guesses are nearly all safe can keep some less sure ones
# and still be right BUDGET_PRECISION of the time by its own calibrated confidences; a book with no such margin keeps
# the fixed hold. Never below BUDGET_FLOOR, never above the fixed hold. Chosen leave-one-book-out on the PDNC dev
# novels (`benchmarks/novel_calibrate.py`): the highest mean accuracy whose kept guesses stay right >= 0.955 of the
# time on average, with the gold cast and with a discovered one (figures: docs/benchmarks.md).
BUDGET_PRECISION = 0.955
BUDGET_FLOOR = 0.7

# Where a book's own hold starts (`own_hold_ceiling`): with the characters configured (the user named them),
# CONFIGURED_CEILING, chosen by the rule above. A discovered cast keeps the fixed hold as its ceiling: it misses
# minor speakers (their lines go to whoever else is present) and splits or merges people, so at the same hold it is
# right less often.
CONFIGURED_CEILING = 0.83


def own_hold_ceiling(characters, fixed: float) -> float:
    """The ceiling of a book's own hold: `fixed` for a discovered cast (every member carries the `mentions` count
    that discovery gives), else the lower of `fixed` and CONFIGURED_CEILING."""
    chars = list(characters)
    if chars and all(c.mentions is not None for c in chars):
        return fixed
    return min(fixed, CONFIGURED_CEILING)


def book_hold(confidences: list[float], ceiling: float) -> float:
    """The lowest hold, from `ceiling` down to BUDGET_FLOOR, at which the guesses kept (those at or above it) have a
    mean confidence of at least BUDGET_PRECISION; `ceiling` when none is lower."""
    kept, total, hold = 0, 0.0, ceiling
    for c, same in groupby(sorted(confidences, reverse=True)):  # the running mean only falls: stop at its first drop
        n = len(list(same))
        kept, total = kept + n, total + c * n
        if c < BUDGET_FLOOR - 1e-9 or total / kept < BUDGET_PRECISION - 1e-9:
            break
        hold = min(hold, c)
    return hold
