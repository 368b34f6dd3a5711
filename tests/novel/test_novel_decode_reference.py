"""The turn-taking decoder (extractors/novel/conversation.py) against a plain loop over every (state, next speaker).

`decode` computes forward-backward over pair states (other party, speaker) from precomputed move tables; the
reference below walks every state in index order and calls `step` per move. Their posteriors must be equal to
1e-12, on random exchanges of every shape (1..14 turns, 1..10 candidates, tags, genders, vocatives, gaps, priors,
cores) and on the real exchanges of Alice: the novel figures depend on it. One hand-made exchange checks what the
state remembers: after a repeat (A B B), the next turn goes back to A, not to a third person.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from extractors.novel.attribution import conversation
from extractors.novel.attribution.conversation import OTHER, Turn, Weights, _emission, _lse, decode

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def reference_decode(turns, cands, gender, prior=None, w=None, core=None):
    w = w or Weights()
    states = list(dict.fromkeys(cands)) + [OTHER]
    S, n = len(states), len(turns)
    if n == 0:
        return []
    cores = core if isinstance(core, list) else [core] * n
    em = [[_emission(turns, k, c, gender, w) + (w.peripheral if cores[k] is not None and c != OTHER and c not in cores[k] else 0.0)
           for c in states] for k in range(n)]
    if prior:
        for j, c in enumerate(states):
            em[0][j] += prior.get(c, 0.0)

    O = S - 1

    def step(k, a, b, c):
        """(next state, cost): the state is (other party, speaker); a repeat keeps the other party."""
        gap = turns[k].gap_before
        if c == O:
            return ((a if b == O else b), O), (-0.5 if b == O else 0.0)
        if c == b:
            rep = w.repeat_after_gap if gap else w.repeat
            if w.long_words and w.repeat_long is not None and min(turns[k].words, turns[k - 1].words) >= w.long_words:
                rep = max(rep, w.repeat_long)  # a long turn after a long one: a story told over paragraphs
            return (a, b), rep
        if a == S or a == O or a == c:
            return (b, c), 0.0
        return (b, c), (w.third_after_gap if gap else w.third)

    NEG = -1e9
    fwd = [{(S, c): em[0][c] for c in range(S)}]
    for k in range(1, n):
        acc = {}
        for a in range(S + 1):
            for b in range(S):
                if (a, b) not in fwd[-1]:
                    continue
                for c in range(S):
                    nxt, cost = step(k, a, b, c)
                    acc.setdefault(nxt, []).append(fwd[-1][(a, b)] + cost + em[k][c])
        fwd.append({key: _lse(v) for key, v in acc.items()})
    bwd = [dict() for _ in range(n)]
    bwd[n - 1] = {key: 0.0 for key in fwd[n - 1]}
    for k in range(n - 2, -1, -1):
        for (a, b) in fwd[k]:
            vals = []
            for c in range(S):
                nxt, cost = step(k + 1, a, b, c)
                if nxt in bwd[k + 1]:
                    vals.append(cost + em[k + 1][c] + bwd[k + 1][nxt])
            bwd[k][(a, b)] = _lse(vals) if vals else NEG
    out = []
    for k in range(n):
        tot = {}
        for key, v in fwd[k].items():
            tot.setdefault(key[1], []).append(v + bwd[k].get(key, NEG))
        logs = {c: _lse(v) for c, v in tot.items()}
        z = _lse(list(logs.values()))
        out.append({states[c]: math.exp(v - z) for c, v in logs.items()})
    return out


def _random_exchange(rng: random.Random):
    names = [f"c{i}" for i in range(12)]
    n, S = rng.randint(1, 14), rng.randint(1, 10)
    cands = rng.sample(names, S)
    turns = [Turn(fixed=rng.choice([None, None, None, rng.choice(cands)]), gender=rng.choice([None, "male", "female"]),
                  vocatives=set(rng.sample(cands, rng.randint(0, min(2, S)))),
                  narr_subj=rng.sample(cands, rng.randint(0, min(2, S))), gap_before=rng.random() < 0.4,
                  suggestion=rng.choice([None, *cands]), suggestion_weight=rng.random(), words=rng.choice([0, 5, 40, 90]),
                  length={c: rng.uniform(-6, 6) for c in cands} if rng.random() < 0.3 else None) for _ in range(n)]
    gender = {c: rng.choice(["male", "female", None]) for c in cands}
    prior = {c: rng.random() for c in cands} if rng.random() < 0.5 else None
    core = [set(rng.sample(cands, rng.randint(0, S))) for _ in range(n)] if rng.random() < 0.5 else None
    return turns, cands, gender, prior, core


def _close(got, want) -> bool:
    """The same states in the same order, each posterior equal to 1e-12 (the sums run in another order)."""
    return [list(g) for g in got] == [list(x) for x in want] and all(
        math.isclose(g[c], x[c], rel_tol=0, abs_tol=1e-12) for g, x in zip(got, want) for c in g)


def test_decode_equals_the_plain_loop_on_random_exchanges():
    rng = random.Random(9)
    for _ in range(400):
        turns, cands, gender, prior, core = _random_exchange(rng)
        got, want = decode(turns, cands, gender, prior, core=core), reference_decode(turns, cands, gender, prior, core=core)
        assert _close(got, want)


def test_decode_equals_the_plain_loop_on_alices_exchanges(monkeypatch):
    from extractors.novel.attribution import turns as turns_module
    from extractors.novel.cast.discover import discover_cast
    from extractors.novel.extract import extract_novel, read_novel

    calls = []

    def checked(turns, cands, gender, prior=None, w=None, core=None):
        got = conversation.decode(turns, cands, gender, prior, w=w, core=core)
        calls.append(_close(got, reference_decode(turns, cands, gender, prior, w=w, core=core)))
        return got

    monkeypatch.setattr(turns_module, "decode", checked)
    path = SAMPLES / "alice29.txt"
    text = read_novel(path)
    cast = discover_cast(text, "en")
    extract_novel(path, "alice", [m.to_character("alice", "en") for m in cast], language="en", text=text)
    assert len(calls) >= 20 and all(calls)


def test_tag_neighbours_equal_the_walk_over_the_paragraph():
    """`_tag` finds a quote's narration bounds from per-paragraph running max/min (a one-line text is one
    paragraph of thousands of quotes: the walk it replaced was quadratic); the bounds must be the walk's."""
    from extractors.novel.attribution import explicit_tags
    from extractors.novel.attribution.attributor import Attributor
    from extractors.novel.text.chapters import split_paragraphs
    from extractors.novel.cast.names import NameIndex
    from extractors.novel.text.quotes import find_quotes

    line = "“Hello there, Tom,” said Mary. “Good day to you, Mary,” Tom replied. She nodded. “Come,” she said. "
    for text in ((SAMPLES / "alice29.txt").read_text(encoding="utf-8"), line * 300):
        paras = split_paragraphs(text)
        quotes = find_quotes(text, paras)
        att = Attributor(text, paras, quotes, NameIndex([], "en"), "en")
        assert len(quotes) > 500
        for i, q in enumerate(quotes):
            walk_end = max([paras[q.para][0]] + [quotes[j].outer[-1][1] for j in att.by_para.get(q.para, []) if j < i])
            lp = q.paras[-1]
            walk_start = min([paras[lp][1]] + [quotes[j].outer[0][0] for j in att.by_para.get(lp, []) if j > i])
            assert max(paras[q.para][0], explicit_tags._para_end_before(att, q.para, i)) == walk_end
            assert min(paras[lp][1], explicit_tags._para_start_after(att, lp, i)) == walk_start


def test_after_a_repeat_the_other_party_answers_not_a_third_person():
    """Archer, then Olenska twice running, then an untagged turn: Archer answers, and the `he said` after Olenska's
    next turn is Archer's too. Chivers, a candidate from the narration before, never spoke here; the old (speaker
    k-2, speaker k-1) state forgot Archer after the repeat and gave Chivers both turns as often as Archer
    (0.47 / 0.50 there)."""
    gender = {"archer": "male", "olenska": "female", "chivers": "male"}
    turns = [Turn(fixed="archer"), Turn(fixed="olenska"), Turn(fixed="olenska"), Turn(), Turn(gender="female"),
             Turn(gender="male")]
    post = decode(turns, ["archer", "olenska", "chivers"], gender)
    assert [max(p, key=p.get) for p in post] == ["archer", "olenska", "olenska", "archer", "olenska", "archer"]
    assert post[3]["archer"] > 0.9 and post[5]["archer"] > 0.85
