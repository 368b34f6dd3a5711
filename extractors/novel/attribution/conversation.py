"""Conversation turn-taking as a small probabilistic model (an HMM over pairs of speakers).

An exchange is a run of quote paragraphs (turns); each turn's observations (tags, pronoun gender, vocatives,
narration subjects, the pronoun resolver's suggestion) give emission scores, transitions favour A B A B, and
forward-backward gives each turn's posterior over the candidates, the confidence of its guess. The model in full:
docs/novel.md, "The turn-taking model".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from itertools import repeat
from operator import sub
from pathlib import Path

OTHER = "\x00other"


@dataclass
class Turn:
    fixed: str | None = None            # explicit name tag
    gender: str | None = None           # a pronoun / noun-phrase tag wants this gender
    soft_gender: str | None = None      # the paragraph's narration opens a sentence with He/She
    vocatives: set = field(default_factory=set)
    narr_subj: list = field(default_factory=list)    # characters acting in this paragraph's narration
    narr_before: list = field(default_factory=list)  # characters of the narration paragraph before it
    suggestion: str | None = None       # pronoun resolver's answer (local antecedent)
    suggestion_weight: float = 0.0
    sug_why: str | None = None
    gap_before: bool = False            # a narration paragraph separates it from the turn before
    addr_gender: str | None = None      # `Sir` / `Madam` inside the quote: the gender of the person addressed
    allowed: set | None = None          # `said her sister`: the speaker is one of these (kinship)
    mentioned: set = field(default_factory=set)  # people the quote names in the third person (rarely its speaker)
    outsider: bool = False              # `said the mariner`, a description that is no cast member: someone else
    nobody: bool = False                # `said I` and no narrator in the cast: surely someone else
    style: dict | None = None           # the words' log-likelihood under each modelled candidate's style, centred
    words: int = 0                      # words in the turn's quotes
    length: dict | None = None          # log-density of the turn's length under each modelled candidate's, centred


TABLE = Path(__file__).resolve().parent.parent / "data" / "turn_weights.json"


def load_weights(path: Path = TABLE) -> tuple[dict, dict[str, float]]:
    """The conversation model's weights (`Weights`' defaults) and the weight of each kind of pronoun-resolver
    suggestion (`attributor.Attributor.SUGGEST`), as `benchmarks/novel_turn_weights.py --write` writes them. The
    shipped values were chosen by every-guess accuracy over the PDNC dev novels, checked leave-one-book-out; the
    script refits them by maximum likelihood (figures: docs/benchmarks.md)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data["weights"]), dict(data["suggest"])


FITTED, SUGGEST = load_weights()  # read once, at import


# The emission and transition weights (their values: `data/turn_weights.json`, see `load_weights`).
@dataclass
class Weights:
    tag_mismatch: float = FITTED["tag_mismatch"]
    vocative_self: float = FITTED["vocative_self"]
    gender_mismatch: float = FITTED["gender_mismatch"]
    gender_unknown: float = FITTED["gender_unknown"]
    soft_gender_mismatch: float = FITTED["soft_gender_mismatch"]  # the turn's narration opens a sentence with He/She of the other gender
    addressed_before: float = FITTED["addressed_before"]       # addressed by the previous turn -> answers
    addressed_after: float = FITTED["addressed_after"]        # addressed by the next turn -> spoke this one
    narr_subj: float = FITTED["narr_subj"]
    narr_before: float = FITTED["narr_before"]
    other: float = FITTED["other"]
    outsider_other: float = FITTED["outsider_other"]         # OTHER at a turn tagged `said the mariner` (a description naming no cast member)
    peripheral: float = FITTED["peripheral"]             # a candidate never tagged nor acting in the run's narration
    addr_gender_mismatch: float = FITTED["addr_gender_mismatch"]
    repeat: float = FITTED["repeat"]
    repeat_after_gap: float = FITTED["repeat_after_gap"]
    third: float = FITTED["third"]
    third_after_gap: float = FITTED["third_after_gap"]
    kin_mismatch: float = FITTED["kin_mismatch"]          # not among the relatives a `said her sister` tag allows
    mentioned_self: float = FITTED["mentioned_self"]        # the quote names this person in the third person
    # per unit of the turn's centred style log-likelihood (`Turn.style`, clipped to +-10)
    style: float = FITTED["style"]
    # per unit of the turn's centred length log-density (`Turn.length`, clipped to +-5), and the same speaker twice
    # running where both turns have at least `long_words` words (a story told over several paragraphs) costs
    # `repeat_long`, not `repeat` (0 / None: off)
    length: float = FITTED["length"]
    long_words: int = FITTED["long_words"]
    repeat_long: float | None = FITTED["repeat_long"]


def decode(turns: list[Turn], cands: list[str], gender: dict, prior: dict | None = None,
           w: Weights | None = None, core: set | list | None = None) -> list[dict[str, float]]:
    """Posterior over speakers (cands + OTHER) for each turn. Candidates outside `core` (the
    people tagged or acting in the run) pay `peripheral` on every turn; `core` may also be a list
    with one set per turn (the people plausible at that turn)."""
    w = w or Weights()
    states = list(dict.fromkeys(cands)) + [OTHER]
    S = len(states)
    n = len(turns)
    if n == 0:
        return []
    cores = core if isinstance(core, list) else [core] * n
    em = [[_emission(turns, k, c, gender, w) + (w.peripheral if cores[k] is not None and c != OTHER and c not in cores[k] else 0.0)
           for c in states] for k in range(n)]
    if prior:
        for j, c in enumerate(states):
            em[0][j] += prior.get(c, 0.0)

    tables = _tables(S, w)
    fwd = _forward(turns, em, S, w, tables)
    bwd = _backward(turns, em, fwd, w, tables)
    NEG = -1e9
    out = []
    for k in range(n):
        tot: dict[int, list[float]] = {}
        for key, v in fwd[k].items():
            tot.setdefault(key[1], []).append(v + bwd[k].get(key, NEG))
        logs = {c: _lse(v) for c, v in tot.items()}
        z = _lse(list(logs.values()))
        out.append({states[c]: math.exp(v - z) for c, v in logs.items()})
    return out


def _lse(vals: list[float]) -> float:
    m = max(vals)
    if m <= -1e8:
        return m
    return m + math.log(sum(map(math.exp, map(sub, vals, repeat(m)))))  # in C, the same sums in the same order


# The hidden state of turn k is the pair (a, b): b speaks turn k, a is the other party, the last speaker before turn k
# who was not b (a = S: nobody yet). Speaker c of turn k+1 moves it to (b, c), or keeps (a, b) when c = b: a speaker
# who talks twice running still has the same person to answer them (`"From me?" / "Safer from loving me?" / "…," she
# protested. / "What others? …"`: the fourth turn goes back to the first speaker, not to a third person). Costs: a third
# person joining (c is neither a nor b) `third`, the same speaker twice `repeat`, OTHER after OTHER -0.5; OTHER as the
# other party is nobody in particular. (A state of the two last speakers forgot the other party after a repeat.)

def _trans_parts(gap: bool, w: Weights, long: bool = False) -> tuple[float, float]:
    """(repeat, third) for a turn after a narration paragraph (gap) or not; `long`: it and the turn before are long."""
    rep = w.repeat_after_gap if gap else w.repeat
    if long and w.repeat_long is not None:
        rep = max(rep, w.repeat_long)
    return rep, (w.third_after_gap if gap else w.third)


def _kind(turns: list[Turn], k: int, w: Weights) -> tuple[bool, bool]:
    """Which transition table turn k uses: (after a narration paragraph, it and the turn before both long)."""
    return turns[k].gap_before, bool(w.long_words and turns[k].words >= w.long_words and turns[k - 1].words >= w.long_words)


def _step(a: int, b: int, c: int, S: int, rep: float, third: float) -> tuple[tuple[int, int], float]:
    """The next state and the transition's log-cost when speaker c follows state (a, b); OTHER is S - 1."""
    O = S - 1
    if c == O:
        return ((a if b == O else b), O), (-0.5 if b == O else 0.0)
    if c == b:
        return (a, b), rep
    return (b, c), (0.0 if a == S or a == O or c == a else third)


def _moves(S: int, rep: float, third: float) -> dict[tuple[int, int], list[tuple[int, tuple[int, int], float]]]:
    """For every state (a, b), the moves (c, next state, cost) over every next speaker c."""
    return {(a, b): [(c, *_step(a, b, c, S, rep, third)) for c in range(S)] for a in range(S + 1) for b in range(S)}


def _tables(S: int, w: Weights) -> dict:
    """The moves of every state, per transition kind (`_kind`: after a narration paragraph, both turns long)."""
    return {(g, lg): _moves(S, *_trans_parts(g, w, lg)) for g in (False, True) for lg in (False, True)}


def _forward(turns: list[Turn], em: list[list[float]], S: int, w: Weights, tables: dict) -> list[dict]:
    """Forward log-scores over the states (a, b) of each turn; turn 0 has a = S (nobody before)."""
    fwd = [{(S, c): em[0][c] for c in range(S)}]
    for k in range(1, len(turns)):
        moves, emk, acc = tables[_kind(turns, k, w)], em[k], {}
        for key, v in fwd[-1].items():
            for c, nxt, cost in moves[key]:
                acc.setdefault(nxt, []).append(v + cost + emk[c])
        fwd.append({key: _lse(vals) for key, vals in acc.items()})
    return fwd


def _backward(turns: list[Turn], em: list[list[float]], fwd: list[dict], w: Weights, tables: dict) -> list[dict]:
    """Backward log-scores over the same states (those the forward pass reached)."""
    n = len(turns)
    bwd = [dict() for _ in range(n)]
    bwd[n - 1] = {key: 0.0 for key in fwd[n - 1]}
    for k in range(n - 2, -1, -1):
        moves, em1, nxt = tables[_kind(turns, k + 1, w)], em[k + 1], bwd[k + 1]
        bwd[k] = {key: _lse([cost + em1[c] + nxt[ns] for c, ns, cost in moves[key] if ns in nxt] or [-1e9])
                  for key in fwd[k]}
    return bwd


def _emission(turns: list[Turn], k: int, c: str, gender: dict, w: Weights) -> float:
    t = turns[k]
    if t.nobody:
        return 0.0 if c == OTHER else w.tag_mismatch
    if c == OTHER:
        if t.fixed:
            return w.tag_mismatch
        return w.outsider_other if t.outsider else w.other
    if t.fixed:
        return 0.0 if c == t.fixed else w.tag_mismatch
    s = 0.0
    if c in t.vocatives:
        s += w.vocative_self
    elif c in t.mentioned:
        s += w.mentioned_self
    if t.allowed and c not in t.allowed:
        s += w.kin_mismatch
    g = gender.get(c)
    if t.gender:
        if g is None:
            s += w.gender_unknown
        elif g != t.gender:
            s += w.gender_mismatch
    elif t.soft_gender and g and g != t.soft_gender:
        s += w.soft_gender_mismatch
    if k > 0 and c in turns[k - 1].vocatives and not t.gap_before:
        s += w.addressed_before
    if k + 1 < len(turns) and c in turns[k + 1].vocatives and not turns[k + 1].gap_before:
        s += w.addressed_after
    for kk in (k - 1, k + 1):
        if 0 <= kk < len(turns) and turns[kk].addr_gender and g and g != turns[kk].addr_gender:
            s += w.addr_gender_mismatch
    if c in t.narr_subj:
        s += w.narr_subj
    elif c in t.narr_before:
        s += w.narr_before
    if t.suggestion == c:
        s += t.suggestion_weight
    if t.style and c in t.style:
        s += w.style * max(-10.0, min(10.0, t.style[c]))
    if w.length and t.length and c in t.length:
        s += w.length * max(-5.0, min(5.0, t.length[c]))
    return s
