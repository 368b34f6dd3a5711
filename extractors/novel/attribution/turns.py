"""Turn-taking for the rule attribution: the exchanges of a novel and their speakers, as stage functions over the
attribution's state (an `attribution.Attributor`).

`find_runs` cuts the quotes into runs of quote paragraphs (an exchange: at most one short narration paragraph between
turns). `conversations` builds the observations of each turn (explicit name tag, the gender a pronoun tag wants,
vocatives, `Sir` / `Madam` address, characters acting in the paragraph's narration or just before, the pronoun
resolver's local suggestion, the book's style and turn-length models' verdicts) and decodes the speakers with
`conversation.decode`, twice: the second pass's style and length models also learn from the untagged turns the first
was sure of (`SELF_TRAIN`). A turn's posterior is the confidence of its attribution; what backs a guess
(`attribution/turn_evidence.py`) is calibrated in `attribution/calibration.py`. The turn model's weights, the
suggestion weights and a debug list are the state's (`Attributor.weights`, `.SUGGEST`, `.debug`: benchmarks set them).
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING

from .conversation import OTHER, Turn, decode
from .pronouns import center, narr_recent, para_quotes, recent_candidates, resolve_pronoun, subject_mentions
from .speaker_style import LengthModel, StyleModel, tokens
from .turn_evidence import centred, style_llr, tag_form, turn_context, turn_features

if TYPE_CHECKING:
    from .attributor import Attributor
    from .speaker_guess import Attribution

PRON_GENDER = {"he": "male", "she": "female"}


# The tags that name the speaker: they fix a turn, and teach the style model (a title naming the one cast member
# who holds it, `cried the duchess`, is one of them).
NAME_RULES = ("verb-name", "name-verb", "pre-name-verb", "pre-by-name", "prev-pre-name-verb", "narrator",
              "verb-adj-name", "was-name-reply", "heard-name-say", "it-was-name", "xverb-name", "name-xverb",
              "name-xverb-q", "verb-descr/alias", "verb-descr/role", "from-name",
              "verb-descr/role-title", "descr-verb/role-title", "xverb-descr/role-title")
MIN_POSTERIOR = 0.4
# pronoun-tag turns decoded with a posterior below `PRON_SURE` are less precise than untagged turns of the same
# posterior: their confidence is lowered by `PRON_UNSURE_DISCOUNT`
PRON_SURE = 0.9
PRON_UNSURE_DISCOUNT = 0.15
# a turn with one side of the alternation unanchored (the first turn of an exchange, or the turn right after a
# name-tagged one) decoded with a posterior below `PRON_SURE` is less precise than other turns of that
# posterior: its confidence is lowered by `EDGE_UNSURE_DISCOUNT`
EDGE_UNSURE_DISCOUNT = 0.1
SCENE_PARAS = 6
# the posterior an untagged turn's guess needs in the first pass to teach the book's style and length models for
# the second (None: one pass); the highest accuracy whose worst dev book stays >= 0.92 precision
SELF_TRAIN: float | None = 0.97
MAX_GAP_PARAS = 1
LOCAL_CORE: int | None = 2   # narration-only people and pronoun-resolver suggestions are core within this many turns (None: whole run)
MAX_GAP_CHARS = 600
MENTIONED_EVIDENCE = True   # a person the quote names in the third person is rarely its speaker


_ADDRESS = re.compile(r"(?:^|[,!?;]\s*|\b(?:yes|no|oh|pray|dear|well)\s+)(sir|madam|ma'am|ma’am|my\s+lord|my\s+lady|your\s+ladyship|"
                      r"your\s+lordship)(?=\s*(?:[,!?;.]|--|—|$))", re.I)


def _narr_subjects(st: Attributor, p: int, exclude: set) -> tuple[list[str], str | None]:
    """Characters named (not after a preposition, not possessive) in the narration of paragraph p,
    and the gender of a sentence-initial he/she there."""
    out: list[str] = []
    g = None
    for s, e in st._para_gaps(p):
        for m in subject_mentions(st, s, e, None):
            if m.cid not in exclude and m.cid not in out:
                out.append(m.cid)
        if g is None:
            pm = re.search(r"(?:^|[.!?;]\s+|[\"”'’]\s*)(He|She)\b", st.text[s:e])
            if pm:
                g = PRON_GENDER[pm.group(1).lower()]
    return out, g


def _address_gender(st: Attributor, idx: list[int]) -> str | None:
    """`Yes, Sir`, `Madam,` inside the quotes of a turn: the gender of whoever it addresses."""
    found = {"male" if w in ("sir", "my lord", "your lordship") else "female"
             for w in _quote_words(st, idx, _ADDRESS)}
    return found.pop() if len(found) == 1 else None


def _quote_words(st: Attributor, idx: list[int], regex: re.Pattern):
    """The lower-cased first group of every match of `regex` inside the quotes of turns `idx`
    (matched on each quote's slice, so `^` is the quote's start)."""
    for j in idx:
        for s, e in st.quotes[j].spans:
            for m in regex.finditer(st.text[s:e]):
                yield m.group(1).lower()


def conversations(st: Attributor, res: list[Attribution]) -> None:
    """Decode every exchange (run of quote paragraphs) with the turn-taking model and give the
    untagged turns their most likely speaker. Twice (`SELF_TRAIN`): the book's style and length models learn
    from its name-tagged quotes, then again with the untagged turns the first pass was sure of."""
    tagged = _said(st, res, lambda a: a.rule in NAME_RULES)
    if SELF_TRAIN is not None:
        first, debug, st.debug = copy.deepcopy(res), st.debug, None
        _decode_runs(st, first, tagged)
        st.debug = debug
        tagged += _said(st, first, lambda a: a.evidence == "turn-taking" and a.turn_features
                             and a.turn_features["posterior"] >= SELF_TRAIN)
    _decode_runs(st, res, tagged)


def _said(st: Attributor, res: list[Attribution], keep) -> list[tuple[str, str]]:
    """(speaker, words) of every attributed quote whose attribution `keep` accepts."""
    return [(a.speaker, st.quotes[j].text(st.text)) for j, a in enumerate(res) if a.speaker and keep(a)]


def _decode_runs(st: Attributor, res: list[Attribution], lines: list[tuple[str, str]]) -> None:
    """One pass of `_conversations`, the book's style and length models fitted on `lines` (speaker, text)."""
    st.style, st.lengths = StyleModel.fit(lines), LengthModel.fit(lines)
    for r, run in enumerate(st.runs):
        turns: list[Turn] = []
        prev_p = None
        for k, i in enumerate(run):
            turns.append(_make_turn(st, k, run, res, prev_p))
            prev_p = st.quotes[i].paras[-1]
        if all(t.fixed for t in turns):
            continue
        cands, prior = _run_candidates(st, r, run, turns, res)
        _style_evidence(st, run, turns, cands)
        _length_evidence(st, run, turns, cands)
        post = decode(turns, cands, st.index.gender, prior, w=st.weights, core=_run_core(st, turns))
        if st.debug is not None:
            st.debug.append((run, turns, cands, post))
        _apply_posteriors(st, run, turns, post, res)


def _make_turn(st: Attributor, k: int, run: list[int], res: list[Attribution], prev_p: int | None) -> Turn:
    """The observations of turn k of an exchange: its tags, vocatives, and the narration around it."""
    p = st.quotes[run[k]].para
    idx = para_quotes(st, p)
    t = Turn()
    for j in idx:
        t.vocatives |= res[j].vocatives
    if MENTIONED_EVIDENCE:
        for j in idx:
            t.mentioned |= {m.cid for m in st._quote_text_mentions(st.quotes[j])}
        t.mentioned -= t.vocatives
    for j in idx:
        _observe_tag(st, t, j, k, run, res)
    if st.kin:
        for noun in _kin_address(st, idx):  # `my dear father,`: the father of someone in the scene
            rel = _kin_speakers(st, idx[0], None, res, run, k, want=(None, noun))
            if len(rel) == 1:
                t.vocatives |= rel
                for j in idx:
                    res[j].vocatives |= rel
    t.narr_subj, t.soft_gender = _narr_subjects(st, p, t.vocatives)
    t.words = sum(len(st.quotes[j].text(st.text).split()) for j in idx)
    t.addr_gender = _address_gender(st, idx)
    lo = (prev_p + 1) if prev_p is not None else max(0, p - 1)
    if lo < p:
        t.gap_before = prev_p is not None
        for g in range(lo, p):
            if not st.by_para.get(g):
                for c in _narr_subjects(st, g, set())[0]:
                    if c not in t.narr_before:
                        t.narr_before.append(c)
    return t


def _observe_tag(st: Attributor, t: Turn, j: int, k: int, run: list[int], res: list[Attribution]) -> None:
    """What quote j's tag says about turn k: a name fixes it, `said her mother` may (kinship), a
    pronoun tag wants a gender and suggests the local antecedent."""
    a = res[j]
    if a.speaker and a.rule in NAME_RULES:
        t.fixed = t.fixed or a.speaker
    elif a.kin and not a.speaker and not t.fixed:
        kin = _kin_speakers(st, j, a, res, run, k)
        if len(kin) == 1:  # `said her mother` and only one mother in the scene
            c = next(iter(kin))
            a.speaker, a.confidence, a.evidence, a.rule = c, 0.9, "explicit-verb", a.rule + "/kin"
            t.fixed = c
        elif kin:
            t.allowed = kin
    elif a.outsider and not a.speaker:
        t.outsider, t.nobody = True, a.nobody
    elif a.pron_tag and t.gender is None:
        t.gender = a.want_gender
        if a.want_gender:
            cid, why = center(st, j, a.want_gender, a.vocatives), "center"
            if cid is None:
                cid, why = narr_recent(st, j, a.want_gender, a.vocatives), "narr-recent"
            if cid is None:
                cid, conf, why = resolve_pronoun(st, j, a.want_gender, res, final=False)
            if cid and why in st.SUGGEST:
                t.suggestion, t.suggestion_weight = cid, st.SUGGEST[why]
            t.sug_why = why


def _run_candidates(st: Attributor, r: int, run: list[int], turns: list[Turn], res: list[Attribution]
                    ) -> tuple[list[str], dict[str, float]]:
    """The six likeliest speakers of an exchange (tags, narration subjects, suggestions, vocatives,
    recent speakers, the exchange just before) and the prior over the first turn."""
    counts: dict[str, float] = {}
    for t in turns:
        for c, w in ([(t.fixed, 3)] if t.fixed else []) + [(c, 1.5) for c in t.narr_subj] \
                + [(c, 1) for c in t.narr_before] + ([(t.suggestion, 1)] if t.suggestion else []):
            counts[c] = counts.get(c, 0) + w
    voc_count: dict[str, int] = {}
    for t in turns:
        for c in sorted(t.vocatives):  # sets iterate in a per-process order: ties must not depend on it
            voc_count[c] = voc_count.get(c, 0) + 1
    for c, n in voc_count.items():
        if c in counts or n >= 2:
            counts[c] = counts.get(c, 0) + 0.5 * n
    prior: dict[str, float] = {}
    for rank, c in enumerate(recent_candidates(st, run[0], res, None)[:3]):
        counts[c] = counts.get(c, 0) + 0.5
        prior[c] = 0.6 - 0.2 * rank
    if r > 0:  # scene continuity: who spoke in the exchange just before
        prev_run = st.runs[r - 1]
        if st.quotes[run[0]].para - st.quotes[prev_run[-1]].paras[-1] <= SCENE_PARAS \
                and st.para_ch[st.quotes[run[0]].para] == st.para_ch[st.quotes[prev_run[-1]].para]:
            for j in prev_run[-4:]:
                c = res[j].speaker
                if c:
                    counts[c] = counts.get(c, 0) + 0.3
    return sorted(counts, key=lambda c: -counts[c])[:6], prior


def _run_core(st: Attributor, turns: list[Turn]):
    """Who may speak where: the people tagged in the exchange, plus those acting in the narration
    near each turn (someone only acting in the narration is a plausible speaker near it, not ten
    turns later); without `LOCAL_CORE`, one set for the whole exchange."""
    tagged = {t.fixed for t in turns if t.fixed}
    if LOCAL_CORE is None:
        return tagged | {c for t in turns for c in t.narr_subj + t.narr_before}
    near = [set() for _ in turns]
    for k, t in enumerate(turns):
        for kk in range(max(0, k - LOCAL_CORE), min(len(turns), k + LOCAL_CORE + 1)):
            near[kk].update(t.narr_subj, t.narr_before)
            if t.suggestion:
                near[kk].add(t.suggestion)
    return [tagged | near[k] for k in range(len(turns))]


def _other_gender(st: Attributor, a: Attribution, cid: str) -> bool:
    """`"…?" he queried; and she returned: "…"`: a quote whose own pronoun tag wants the other gender is not the
    paragraph's speaker's."""
    g = st.index.gender.get(cid)
    return bool(a.pron_tag and a.want_gender and g and g != a.want_gender)


def _apply_posteriors(st: Attributor, run: list[int], turns: list[Turn], post: list[dict], res: list[Attribution]) -> None:
    """Each untagged turn's quotes get the decoded speaker, with what backs it (`turn_features`)."""
    for k, i in enumerate(run):
        t = turns[k]
        if t.fixed:
            continue
        best = max(post[k], key=post[k].get)
        pr = post[k][best]
        if best == OTHER or pr < MIN_POSTERIOR:
            continue
        for j in para_quotes(st, st.quotes[i].para):
            a = res[j]
            if a.speaker or best in a.vocatives or _other_gender(st, a, best):
                continue
            conf = min(0.9, pr)
            if a.pron_tag and pr < PRON_SURE:
                conf -= PRON_UNSURE_DISCOUNT  # a pronoun tag the model is not sure of: often the wrong he/she
            if pr < PRON_SURE and (k == 0 or turns[k - 1].fixed):
                conf -= EDGE_UNSURE_DISCOUNT
            a.speaker, a.confidence = best, round(conf, 3)
            a.turn_features = turn_features(turns, k, best, pr, a.pron_tag, post[k])
            a.turn_features.update(turn_context(st.index.gender, turns, k, best, post))
            a.turn_features["style_llr"] = style_llr(turns[k], best, post[k])
            a.turn_features["tag_form"] = tag_form(a.rule) if a.pron_tag else None
            a.evidence = "explicit-verb" if a.pron_tag else "turn-taking"
            a.rule = ((a.rule or "") + "/conv") if a.pron_tag else "conv"


def _style_evidence(st: Attributor, run: list[int], turns: list[Turn], cands: list[str]) -> None:
    """Each untagged turn's words under the style model of each candidate that has one, relative to their mean
    (`Turn.style`, an emission of `conversation.decode`)."""
    modelled = [c for c in cands if c in st.style]
    if len(modelled) < 2:
        return
    for k, i in enumerate(run):
        if turns[k].fixed:
            continue
        words = tokens(st.quotes[i].text(st.text))
        if words:
            turns[k].style = centred({c: st.style.loglik(words, c) for c in modelled})


def _length_evidence(st: Attributor, run: list[int], turns: list[Turn], cands: list[str]) -> None:
    """Each untagged turn's length under each candidate's length model, relative to their mean (`Turn.length`, an
    emission of `conversation.decode`): the one telling a story speaks in long turns, the listener in short ones."""
    modelled = [c for c in cands if c in st.lengths]
    if len(modelled) < 2:
        return
    for k, t in enumerate(turns):
        if t.fixed or not t.words:
            continue
        t.length = centred({c: st.lengths.loglik(t.words, c) for c in modelled})


_KIN_ADDRESS = re.compile(r"(?:^|[,!?;]\s*|\b(?:dear|dearest|oh|yes|no|pray|well)\s+)(mamma|mama|mother|papa|father)(?=\s*(?:[,!?;.]|--|—|$))", re.I)


def _kin_address(st: Attributor, idx: list[int]) -> set[str]:
    return {"mother" if w in ("mamma", "mama", "mother") else "father"
            for w in _quote_words(st, idx, _KIN_ADDRESS)}


def _kin_speakers(st: Attributor, j: int, a, res: list, run: list[int], k: int, want: tuple | None = None) -> set[str]:
    """`said her mother`: the mothers of the people of the scene of the possessor's gender (the
    run's tagged speakers, the speakers of the turns just before, the people addressed, the
    characters named in the narration of this paragraph and the two before it)."""
    g, noun = want or a.kin
    p = st.quotes[j].para
    people: list[str] = []
    for kk, i in enumerate(run):
        if kk < k - 2 and not (res[i].speaker and res[i].rule in NAME_RULES):
            continue
        for jj in para_quotes(st, st.quotes[i].para):
            if res[jj].speaker:
                people.append(res[jj].speaker)
            if abs(kk - k) <= 1:
                people.extend(res[jj].vocatives)
    for pp in range(max(0, p - 2), p + 1):
        people.extend(m.cid for m in st.narr_mentions.get(pp, []))
    out: set[str] = set()
    for c in dict.fromkeys(people):
        if g is None or st.index.gender.get(c) == g:
            out |= st.kin.relatives(noun, c)
    return out - a.vocatives if a is not None else out

THOUGHTS_APART = True


_THOUGHT = re.compile(r"[\s,;:!?.\-—–]*(?:(?:[\w.]+\s+){0,3}?thought\b|(?:\w+\s+)?(?:thought|said|cried|exclaimed|whispered|"
                      r"added|continued|repeated|muttered|murmured)\s+(?:[\w.]+\s+){0,3}?to\s+(?:her|him|them)sel(?:f|ves)\b)")


def _is_thought(st: Attributor, j: int) -> bool:
    """`"…," thought she` / `said Elizabeth to herself`: a quote tagged as a thought (the tag
    right after one of its parts, in the same paragraph)."""
    q = st.quotes[j]
    for k, (s, e) in enumerate(q.outer):
        if q.paras[k] != q.para:
            continue
        if _THOUGHT.match(st.text, e, min(e + 80, st.paras[q.para][1])):
            return True
    return False


def find_runs(st: Attributor) -> tuple[list[list[int]], dict[int, int]]:
    """Runs of quote paragraphs (one quote per paragraph: its first) with at most one short
    narration paragraph between them: the exchanges where turn-taking applies."""
    runs: list[list[int]] = []
    for p in sorted(st.by_para):
        idx = [j for j in st.by_para[p] if st.quotes[j].para == p]
        if not idx or (THOUGHTS_APART and all(_is_thought(st, j) for j in idx)):
            continue  # a paragraph of thoughts is not a turn of the exchange
        if runs:
            prev_p = st.quotes[runs[-1][-1]].paras[-1]
            gap = range(prev_p + 1, p)
            gap_len = sum(st.paras[g][1] - st.paras[g][0] for g in gap)
            if len(gap) <= MAX_GAP_PARAS and gap_len < MAX_GAP_CHARS and st.para_ch[p] == st.para_ch[prev_p]:
                runs[-1].append(idx[0])
                continue
        runs.append([idx[0]])
    run_of = {}
    for r, run in enumerate(runs):
        for i in run:
            for j in st.by_para[st.quotes[i].para]:
                run_of.setdefault(j, r)
    return runs, run_of

