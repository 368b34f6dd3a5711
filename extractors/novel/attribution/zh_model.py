"""The quotations of a Chinese novel that no tag decides, by a conditional logit over the cast members of the
scene: who spoke the turns before, who was spoken to or named, who opens the narration around it, what a pronoun
tag's gender allows, and the exchange rules' own guesses. The weights are `data/zh_model.json`, fitted on the
design cues of 平凡的世界 by `benchmarks/zh_model_fit.py`, with the default hold of Chinese books (`hold()`);
without that file this stage does nothing. Features and fitting: docs/novel.md, "Chinese attribution"."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


from ..cast.zh.tags import post_tag_clause
from .zh_modern import last_sentence, opening_member

TABLE = Path(__file__).resolve().parent.parent / "data" / "zh_model.json"
RULE = "zh-model"
_BACK = 6  # how many quotations back the history reaches
_GAP = 3  # ... and within how many paragraphs
_NARR_BACK = 3  # the members named this many paragraphs back are of the scene
_ANCHOR = 0.8  # a tag's guess this sure is history even when held
_SURE = 0.5  # a model guess this sure is history in the second pass
_PRON_GENDER = {"他": "male", "她": "female"}
_CLAUSE = re.compile(r"[^，,。．！？；：“”\n]+")  # the first clause of the narration after a quotation
_HEARS = re.compile(r"听|聽|闻|聞")
_ASKS_PRON = re.compile(r"(?:问|問|对|對|向|朝|冲|衝|跟)(他|她)(?![们們])")
FEATURES = ("prev1", "prev1_same", "prev2", "abab", "prev3", "recent", "to_prev", "voc_prev", "voc_own",
            "next1", "next2", "to_next", "voc_next",
            "lead", "after_open", "narr_own", "narr_after", "narr_back", "last_narr", "beat", "narr_prev",
            "pron_match", "pron_clash", "pron_none", "near_pron_match", "near_pron_clash",
            "to_prev_pron_match", "to_prev_pron_clash", "rule_guess", "rule_conf", "mentions",
            "none")  # `none`: the row of "someone not among the candidates"


@lru_cache(maxsize=1)
def weights() -> dict[str, float]:
    """feature -> weight as the fitting script wrote them (empty when the table is absent)."""
    if not TABLE.exists():
        return {}
    return {k: float(v) for k, v in json.loads(TABLE.read_text(encoding="utf-8"))["weights"].items()}


@lru_cache(maxsize=1)
def hold() -> float | None:
    """The hold of a Chinese book when none is given: the lowest at which the design cues keep the fitting script's
    precision target, with these weights (None when the table has none)."""
    if not TABLE.exists():
        return None
    h = json.loads(TABLE.read_text(encoding="utf-8")).get("hold")
    return float(h) if h is not None else None


def eligible(att, res: list, j: int) -> bool:
    """Whether quote j is left to the model: no speaker at the hold, and either a pronoun tag, a turn rule's
    guess, or no tag at all (no lead-in ending in a colon or comma, no tag after it): a tag that named nobody on
    purpose (`问左右，答曰：`, `只听有人笑声，说：`, `上面写着：`) is not second-guessed."""
    a = res[j]
    if a.speaker and (a.confidence or 0) >= att.min_confidence - 1e-9:
        return False
    if a.pron_tag:
        return True
    if a.rule and not a.rule.startswith("zh-goes-on") and a.evidence != "turn-taking":
        return False
    q, t = att.quotes[j], att.text
    ps, pe = att.paras[q.para]
    before = [att.quotes[k].outer[-1][1] for k in att.by_para.get(q.para, []) if att.quotes[k].outer[-1][1] <= q.outer[0][0]]
    lead = t[max([ps, *before]):q.outer[0][0]].rstrip()
    return not lead.endswith(("：", ":", "，", ",")) and post_tag_clause(t, q.outer[-1][1], pe) is None


def history(att, res: list, extra: dict[int, str] | None = None) -> list[str | None]:
    """The speaker each quotation is known to have, for the features of the ones after it: an emitted guess, a
    tag's guess of at least `_ANCHOR`, or (second pass) a sure model guess."""
    out = []
    for j, a in enumerate(res):
        c = a.confidence or 0
        if a.speaker in att.index.characters and (c >= att.min_confidence - 1e-9
                                                  or c >= _ANCHOR and a.evidence != "turn-taking"):
            out.append(a.speaker)
        else:
            out.append((extra or {}).get(j))
    return out


def _opening(att, s: int, e: int) -> str | None:
    """The cast member opening the last sentence of text[s:e], or None."""
    return opening_member(att, last_sentence(att.text, s, e), e)


@dataclass
class _Scene:
    """What the features of one quotation read: the turns around it and the narration of its paragraphs."""
    prev: list    # (k, speaker, same paragraph) of the quotations before, nearest first
    nxt: list     # (k, speaker) of the two quotations after, in the paragraphs right after
    own_before: list[str]   # members the narration of its paragraph names before it
    own_after: list[str]    # ... and after it
    lead: str | None        # the member opening the last sentence before it in its paragraph
    beat: str | None        # ... of the narration paragraph right before
    narr_prev: set[str]     # members the paragraph before names
    last_narr: str | None   # the last member the narration names before it, back to `_GAP` paragraphs
    guess: str | None       # the rules' own guess (emitted or held)
    near_pron: str | None   # the gender of `他`/`她` opening the narration right after it in its paragraph
    # (`“嗯。”她点点头。`: most often the speaker's own beat)
    to_prev_pron: str | None  # the gender of `他`/`她` the tag of the turn before speaks to (`”晓霞问他。`)
    narr_back: set[str]     # members the narration names two and three paragraphs before
    after_open: str | None  # the member opening the narration right after it in its paragraph, not as a listener
    # (`“我是石圪节公社的。”润叶告诉贾老师。`, `”侯玉英兴奋地笑着，对少平说。`; not `”少平听了…`)


def _scene(att, res: list, j: int, hist: list[str | None]) -> _Scene:
    """The scene of quote j, its turns' speakers read from `hist`."""
    q, a = att.quotes[j], res[j]
    p, t = q.para, att.text
    ch = att.para_ch[p]
    prev = []
    for k in range(j - 1, max(-1, j - 1 - _BACK), -1):
        qk = att.quotes[k]
        if att.para_ch[qk.para] != ch or qk.paras[-1] < p - _GAP - len(prev):
            break
        prev.append((k, hist[k], qk.paras[-1] == p))
    nxt = []
    for k in range(j + 1, min(len(att.quotes), j + 3)):
        qk = att.quotes[k]
        if att.para_ch[qk.para] != ch or qk.para > (att.quotes[nxt[-1][0]].paras[-1] if nxt else q.paras[-1]) + 1 \
                or qk.para == q.para:
            break
        nxt.append((k, hist[k]))
    ps = att.paras[p][0]
    beat, narr_prev = None, set()
    if p and att.para_ch[p - 1] == ch:
        narr_prev = {m.cid for m in att.narr_mentions.get(p - 1, [])}
        if not att.by_para.get(p - 1):
            beat = _opening(att, *att.paras[p - 1])
    narr_back = {m.cid for k in range(max(0, p - _NARR_BACK), p - 1) if att.para_ch[k] == ch
                 for m in att.narr_mentions.get(k, [])}
    last_narr = None
    for k in range(p, max(-1, p - _GAP - 1), -1):
        if att.para_ch[k] != ch:
            break
        ms = [m for m in att.narr_mentions.get(k, []) if k < p or m.start < q.outer[0][0]]
        if ms:
            last_narr = ms[-1].cid
            break
    after = t[q.outer[-1][1]:att.paras[p][1]].lstrip()
    a0, ae = q.outer[-1][1], att.paras[q.paras[-1]][1]
    clause = _CLAUSE.match(t, a0, ae)
    after_open = opening_member(att, a0, ae) if clause and not _HEARS.search(clause.group(0)) else None
    near = _PRON_GENDER[after[0]] if after[:1] in _PRON_GENDER and after[1:2] not in "们們" else None
    to_prev_pron = None
    if prev:
        qk = att.quotes[prev[0][0]]
        s0, e0 = att.paras[qk.para][0], att.paras[qk.paras[-1]][1]
        m = _ASKS_PRON.search(t, qk.outer[-1][1], min(e0, q.outer[0][0])) or _ASKS_PRON.search(t, s0, qk.outer[0][0])
        to_prev_pron = _PRON_GENDER[m.group(1)] if m else None
    return _Scene(prev, nxt,
                  [m.cid for m in att.narr_mentions.get(p, []) if m.start < q.outer[0][0]],
                  [m.cid for m in att.narr_mentions.get(p, []) if m.start >= q.outer[-1][1]],
                  _opening(att, ps, q.outer[0][0]) if t[ps:q.outer[0][0]].strip() else None,
                  beat, narr_prev, last_narr, a.speaker or (a.held or (None,))[0], near, to_prev_pron, narr_back, after_open)


def _candidates(att, res: list, sc: _Scene) -> set[str]:
    """The cast members of the scene: speakers around, those the turns next to it speak to or name, those the
    narration names, the rules' guess."""
    cands: set[str] = {s for _, s, _ in sc.prev if s} | {s for _, s in sc.nxt if s}
    near = [turns[0][0] for turns in (sc.prev, sc.nxt) if turns]  # the turns right before and after
    for k in near:
        cands |= set(res[k].addressees) | set(res[k].vocatives)
    cands |= set(sc.own_before) | set(sc.own_after) | sc.narr_prev | sc.narr_back | {sc.beat, sc.guess}
    return {c for c in cands if c in att.index.characters}


def _features(att, res: list, a, sc: _Scene, c: str) -> dict[str, float]:
    """Feature values of member c as quote `a`'s speaker."""
    prev, nxt = sc.prev, sc.nxt
    f = dict.fromkeys(FEATURES, 0.0)
    if prev:
        if prev[0][1] == c:
            f["prev1_same" if prev[0][2] else "prev1"] = 1.0
        f["to_prev"] = float(c in res[prev[0][0]].addressees)
        f["voc_prev"] = float(c in res[prev[0][0]].vocatives)
    f["prev2"] = float(len(prev) > 1 and prev[1][1] == c)
    f["abab"] = float(f["prev2"] and prev[0][1] not in (None, c))  # X (c), Y, X: then Y
    f["prev3"] = float(len(prev) > 2 and prev[2][1] == c)
    f["recent"] = [s for _, s, _ in prev].count(c) / _BACK
    f["voc_own"] = float(c in a.vocatives)
    if nxt:
        f["next1"] = float(nxt[0][1] == c)
        f["next2"] = float(len(nxt) > 1 and nxt[1][1] == c)
        f["to_next"] = float(c in res[nxt[0][0]].addressees)  # `X对c说` next: c spoke before
        f["voc_next"] = float(c in res[nxt[0][0]].vocatives)
    f["lead"] = float(sc.lead == c)
    f["after_open"] = float(sc.after_open == c)
    f["narr_own"] = float(c in sc.own_before)
    f["narr_after"] = float(c in sc.own_after)
    f["beat"] = float(sc.beat == c)
    f["last_narr"] = float(sc.last_narr == c)
    f["mentions"] = math.log1p(getattr(att.index.characters[c], "mentions", 0) or 0) / 5
    f["narr_prev"] = float(c in sc.narr_prev)
    f["narr_back"] = float(c in sc.narr_back)
    if a.pron_tag and a.want_gender:
        g = att.index.gender.get(c)
        f["pron_match" if g == a.want_gender else "pron_clash" if g else "pron_none"] = 1.0
    if sc.near_pron and not a.pron_tag and att.index.gender.get(c):
        f["near_pron_match" if att.index.gender.get(c) == sc.near_pron else "near_pron_clash"] = 1.0
    if sc.to_prev_pron and att.index.gender.get(c):
        f["to_prev_pron_match" if att.index.gender.get(c) == sc.to_prev_pron else "to_prev_pron_clash"] = 1.0
    if sc.guess == c:
        f["rule_guess"] = 1.0
        f["rule_conf"] = a.confidence or (a.held or (None, 0.0))[1] or 0.0
    return f


def candidates_and_features(att, res: list, j: int, hist: list[str | None]) -> dict[str, dict[str, float]]:
    """cast id -> feature values, for the members of quote j's scene."""
    sc = _scene(att, res, j, hist)
    return {c: _features(att, res, res[j], sc, c) for c in _candidates(att, res, sc)}


def posterior(feats: dict[str, dict[str, float]], w: dict[str, float]) -> dict[str, float]:
    """Softmax of the candidates' scores beside the score of nobody among them (`none`, whose mass is left out):
    a scene whose speaker the candidates miss keeps every candidate's probability low."""
    if not feats:
        return {}
    score = {c: sum(w.get(k, 0.0) * v for k, v in f.items()) for c, f in feats.items()}
    top = max(max(score.values()), w.get("none", 0.0))
    z = sum(math.exp(s - top) for s in score.values()) + math.exp(w.get("none", 0.0) - top)
    return {c: math.exp(s - top) / z for c, s in score.items()}


def guesses(att, res: list, w: dict[str, float], passes: int = 1) -> dict[int, tuple[str, float]]:
    """quote -> (member, probability) for every eligible quotation with a candidate; each pass after the first
    reads the guesses of the pass before that reach `_SURE` as history."""
    todo = [j for j in range(len(res)) if eligible(att, res, j)]
    extra: dict[int, str] = {}
    best: dict[int, tuple[str, float]] = {}
    for _ in range(passes):
        hist = history(att, res, extra)
        best = {}
        for j in todo:
            post = posterior(candidates_and_features(att, res, j, hist), w)
            if post:
                c = max(post, key=post.get)
                best[j] = (c, post[c])
        sure = {j: c for j, (c, pr) in best.items() if pr >= _SURE}
        if sure == extra:
            break  # a fixed point: another pass reads the same history
        extra = sure
    return best


PASSES = 6  # the design cues stop gaining at six; more passes let chains run on past their evidence (docs/novel.md)


def decode(att, res: list) -> None:
    """Give each eligible quotation its most probable member, with that probability as confidence (the hold
    decides what is emitted), after `PASSES` passes."""
    w = weights()
    if not w:
        return
    for j, (c, pr) in guesses(att, res, w, PASSES).items():
        a = res[j]
        if c in a.vocatives:
            continue
        if a.speaker and (a.confidence or 0) >= pr:
            continue  # the rule's own guess is surer (both below the hold)
        # a pronoun tag the model resolves is still a tag (as the pronoun rules' guesses are); the rest are turns
        a.speaker, a.confidence, a.rule = c, round(pr, 4), RULE
        a.evidence = "explicit-verb" if a.pron_tag else "turn-taking"
