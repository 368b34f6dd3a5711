"""Turn-taking for the rule attribution: the exchanges of a novel and their speakers.

`ConversationMixin` (used by `attribution.Attributor`) cuts the quotes into runs of quote
paragraphs (an exchange: at most one short narration paragraph between turns), builds the
observations of each turn (explicit name tag, the gender a pronoun tag wants, vocatives, `Sir` /
`Madam` address, characters acting in the paragraph's narration or in the narration just before,
the pronoun resolver's local suggestion, the book's style and turn-length models' verdicts) and decodes the
speakers with `conversation.decode`, twice: the second pass's style and length models also learn from the untagged
turns the first was sure of (`self_train`). A turn's posterior is the confidence of its attribution. What backs a guess
(`turn_features`, `_turn_context`, the book's own style model's verdict, `attribution/turn_evidence.py`) is calibrated in
`attribution/calibration.py`.
"""

from __future__ import annotations

import copy
import re

from .conversation import OTHER, SUGGEST, Turn, Weights, decode
from .speaker_style import LengthModel, StyleModel, tokens
from .turn_evidence import centred, style_llr, tag_form, turn_features

PRON_GENDER = {"he": "male", "she": "female"}


class ConversationMixin:
    # The tags that name the speaker: they fix a turn, and teach the style model (a title naming the one cast member
    # who holds it, `cried the duchess`, is one of them).
    NAME_RULES = ("verb-name", "name-verb", "pre-name-verb", "pre-by-name", "prev-pre-name-verb", "narrator",
                  "verb-adj-name", "was-name-reply", "heard-name-say", "it-was-name", "xverb-name", "name-xverb",
                  "name-xverb-q", "verb-descr/alias", "verb-descr/role", "from-name",
                  "verb-descr/role-title", "descr-verb/role-title", "xverb-descr/role-title")
    SUGGEST = dict(SUGGEST)  # the weight of each kind of pronoun-resolver suggestion (`conversation.load_weights`)
    min_posterior = 0.4
    # pronoun-tag turns decoded with a posterior below `pron_sure` are less precise than untagged turns of the same
    # posterior: their confidence is lowered by `pron_unsure_discount`
    pron_sure = 0.9
    pron_unsure_discount = 0.15
    # a turn with one side of the alternation unanchored (the first turn of an exchange, or the turn right after a
    # name-tagged one) decoded with a posterior below `pron_sure` is less precise than other turns of that
    # posterior: its confidence is lowered by `edge_unsure_discount`
    edge_unsure_discount = 0.1
    scene_paras = 6
    # the posterior an untagged turn's guess needs in the first pass to teach the book's style and length models for
    # the second (None: one pass); the highest accuracy whose worst dev book stays >= 0.92 precision
    self_train: float | None = 0.97
    debug: list | None = None
    weights: Weights | None = None   # the conversation model's weights (None: conversation.Weights())
    max_gap_paras = 1
    local_core: int | None = 2   # narration-only people and pronoun-resolver suggestions are core within this many turns (None: whole run)
    max_gap_chars = 600
    mentioned_evidence = True   # a person the quote names in the third person is rarely its speaker
    _ADDRESS = re.compile(r"(?:^|[,!?;]\s*|\b(?:yes|no|oh|pray|dear|well)\s+)(sir|madam|ma'am|ma’am|my\s+lord|my\s+lady|your\s+ladyship|"
                          r"your\s+lordship)(?=\s*(?:[,!?;.]|--|—|$))", re.I)

    def _para_quotes(self, p: int) -> list[int]:
        return [j for j in self.by_para.get(p, []) if self.quotes[j].para == p]


    def _narr_subjects(self, p: int, exclude: set) -> tuple[list[str], str | None]:
        """Characters named (not after a preposition, not possessive) in the narration of paragraph p,
        and the gender of a sentence-initial he/she there."""
        out: list[str] = []
        g = None
        for s, e in self._para_gaps(p):
            for m in self._subject_mentions(s, e, None):
                if m.cid not in exclude and m.cid not in out:
                    out.append(m.cid)
            if g is None:
                pm = re.search(r"(?:^|[.!?;]\s+|[\"”'’]\s*)(He|She)\b", self.text[s:e])
                if pm:
                    g = PRON_GENDER[pm.group(1).lower()]
        return out, g


    def _address_gender(self, idx: list[int]) -> str | None:
        """`Yes, Sir`, `Madam,` inside the quotes of a turn: the gender of whoever it addresses."""
        found = {"male" if w in ("sir", "my lord", "your lordship") else "female"
                 for w in self._quote_words(idx, self._ADDRESS)}
        return found.pop() if len(found) == 1 else None

    def _quote_words(self, idx: list[int], regex: re.Pattern):
        """The lower-cased first group of every match of `regex` inside the quotes of turns `idx`
        (matched on each quote's slice, so `^` is the quote's start)."""
        for j in idx:
            for s, e in self.quotes[j].spans:
                for m in regex.finditer(self.text[s:e]):
                    yield m.group(1).lower()


    def _conversations(self, res: list[Attribution]) -> None:
        """Decode every exchange (run of quote paragraphs) with the turn-taking model and give the
        untagged turns their most likely speaker. Twice (`self_train`): the book's style and length models learn
        from its name-tagged quotes, then again with the untagged turns the first pass was sure of."""
        tagged = self._said(res, lambda a: a.rule in self.NAME_RULES)
        if self.self_train is not None:
            first, debug, self.debug = copy.deepcopy(res), self.debug, None
            self._decode_runs(first, tagged)
            self.debug = debug
            tagged += self._said(first, lambda a: a.evidence == "turn-taking" and a.turn_features
                                 and a.turn_features["posterior"] >= self.self_train)
        self._decode_runs(res, tagged)

    def _said(self, res: list[Attribution], keep) -> list[tuple[str, str]]:
        """(speaker, words) of every attributed quote whose attribution `keep` accepts."""
        return [(a.speaker, self.quotes[j].text(self.text)) for j, a in enumerate(res) if a.speaker and keep(a)]

    def _decode_runs(self, res: list[Attribution], lines: list[tuple[str, str]]) -> None:
        """One pass of `_conversations`, the book's style and length models fitted on `lines` (speaker, text)."""
        self.style, self.lengths = StyleModel.fit(lines), LengthModel.fit(lines)
        for r, run in enumerate(self.runs):
            turns: list[Turn] = []
            prev_p = None
            for k, i in enumerate(run):
                turns.append(self._make_turn(k, run, res, prev_p))
                prev_p = self.quotes[i].paras[-1]
            if all(t.fixed for t in turns):
                continue
            cands, prior = self._run_candidates(r, run, turns, res)
            self._style_evidence(run, turns, cands)
            self._length_evidence(run, turns, cands)
            post = decode(turns, cands, self.index.gender, prior, w=self.weights, core=self._run_core(turns))
            if self.debug is not None:
                self.debug.append((run, turns, cands, post))
            self._apply_posteriors(run, turns, post, res)

    def _make_turn(self, k: int, run: list[int], res: list[Attribution], prev_p: int | None) -> Turn:
        """The observations of turn k of an exchange: its tags, vocatives, and the narration around it."""
        p = self.quotes[run[k]].para
        idx = self._para_quotes(p)
        t = Turn()
        for j in idx:
            t.vocatives |= res[j].vocatives
        if self.mentioned_evidence:
            for j in idx:
                t.mentioned |= {m.cid for m in self._quote_text_mentions(self.quotes[j])}
            t.mentioned -= t.vocatives
        for j in idx:
            self._observe_tag(t, j, k, run, res)
        if self.kin:
            for noun in self._kin_address(idx):  # `my dear father,`: the father of someone in the scene
                rel = self._kin_speakers(idx[0], None, res, run, k, want=(None, noun))
                if len(rel) == 1:
                    t.vocatives |= rel
                    for j in idx:
                        res[j].vocatives |= rel
        t.narr_subj, t.soft_gender = self._narr_subjects(p, t.vocatives)
        t.words = sum(len(self.quotes[j].text(self.text).split()) for j in idx)
        t.addr_gender = self._address_gender(idx)
        lo = (prev_p + 1) if prev_p is not None else max(0, p - 1)
        if lo < p:
            t.gap_before = prev_p is not None
            for g in range(lo, p):
                if not self.by_para.get(g):
                    for c in self._narr_subjects(g, set())[0]:
                        if c not in t.narr_before:
                            t.narr_before.append(c)
        return t

    def _observe_tag(self, t: Turn, j: int, k: int, run: list[int], res: list[Attribution]) -> None:
        """What quote j's tag says about turn k: a name fixes it, `said her mother` may (kinship), a
        pronoun tag wants a gender and suggests the local antecedent."""
        a = res[j]
        if a.speaker and a.rule in self.NAME_RULES:
            t.fixed = t.fixed or a.speaker
        elif a.kin and not a.speaker and not t.fixed:
            kin = self._kin_speakers(j, a, res, run, k)
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
                cid, why = self._center(j, a.want_gender, a.vocatives), "center"
                if cid is None:
                    cid, why = self._narr_recent(j, a.want_gender, a.vocatives), "narr-recent"
                if cid is None:
                    cid, conf, why = self._resolve_pronoun(j, a.want_gender, res, final=False)
                if cid and why in self.SUGGEST:
                    t.suggestion, t.suggestion_weight = cid, self.SUGGEST[why]
                t.sug_why = why

    def _run_candidates(self, r: int, run: list[int], turns: list[Turn], res: list[Attribution]
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
        for rank, c in enumerate(self._recent_candidates(run[0], res, None)[:3]):
            counts[c] = counts.get(c, 0) + 0.5
            prior[c] = 0.6 - 0.2 * rank
        if r > 0:  # scene continuity: who spoke in the exchange just before
            prev_run = self.runs[r - 1]
            if self.quotes[run[0]].para - self.quotes[prev_run[-1]].paras[-1] <= self.scene_paras \
                    and self.para_ch[self.quotes[run[0]].para] == self.para_ch[self.quotes[prev_run[-1]].para]:
                for j in prev_run[-4:]:
                    c = res[j].speaker
                    if c:
                        counts[c] = counts.get(c, 0) + 0.3
        return sorted(counts, key=lambda c: -counts[c])[:6], prior

    def _run_core(self, turns: list[Turn]):
        """Who may speak where: the people tagged in the exchange, plus those acting in the narration
        near each turn (someone only acting in the narration is a plausible speaker near it, not ten
        turns later); without `local_core`, one set for the whole exchange."""
        tagged = {t.fixed for t in turns if t.fixed}
        if self.local_core is None:
            return tagged | {c for t in turns for c in t.narr_subj + t.narr_before}
        near = [set() for _ in turns]
        for k, t in enumerate(turns):
            for kk in range(max(0, k - self.local_core), min(len(turns), k + self.local_core + 1)):
                near[kk].update(t.narr_subj, t.narr_before)
                if t.suggestion:
                    near[kk].add(t.suggestion)
        return [tagged | near[k] for k in range(len(turns))]

    def _other_gender(self, a: Attribution, cid: str) -> bool:
        """`"…?" he queried; and she returned: "…"`: a quote whose own pronoun tag wants the other gender is not the
        paragraph's speaker's."""
        g = self.index.gender.get(cid)
        return bool(a.pron_tag and a.want_gender and g and g != a.want_gender)

    def _apply_posteriors(self, run: list[int], turns: list[Turn], post: list[dict], res: list[Attribution]) -> None:
        """Each untagged turn's quotes get the decoded speaker, with what backs it (`turn_features`)."""
        for k, i in enumerate(run):
            t = turns[k]
            if t.fixed:
                continue
            best = max(post[k], key=post[k].get)
            pr = post[k][best]
            if best == OTHER or pr < self.min_posterior:
                continue
            for j in self._para_quotes(self.quotes[i].para):
                a = res[j]
                if a.speaker or best in a.vocatives or self._other_gender(a, best):
                    continue
                conf = min(0.9, pr)
                if a.pron_tag and pr < self.pron_sure:
                    conf -= self.pron_unsure_discount  # a pronoun tag the model is not sure of: often the wrong he/she
                if pr < self.pron_sure and (k == 0 or turns[k - 1].fixed):
                    conf -= self.edge_unsure_discount
                a.speaker, a.confidence = best, round(conf, 3)
                a.turn_features = turn_features(turns, k, best, pr, a.pron_tag, post[k])
                a.turn_features.update(self._turn_context(turns, k, best, post))
                a.turn_features["style_llr"] = style_llr(turns[k], best, post[k])
                a.turn_features["tag_form"] = tag_form(a.rule) if a.pron_tag else None
                a.evidence = "explicit-verb" if a.pron_tag else "turn-taking"
                a.rule = ((a.rule or "") + "/conv") if a.pron_tag else "conv"

    def _style_evidence(self, run: list[int], turns: list[Turn], cands: list[str]) -> None:
        """Each untagged turn's words under the style model of each candidate that has one, relative to their mean
        (`Turn.style`, an emission of `conversation.decode`)."""
        modelled = [c for c in cands if c in self.style]
        if len(modelled) < 2:
            return
        for k, i in enumerate(run):
            if turns[k].fixed:
                continue
            words = tokens(self.quotes[i].text(self.text))
            if words:
                turns[k].style = centred({c: self.style.loglik(words, c) for c in modelled})

    def _length_evidence(self, run: list[int], turns: list[Turn], cands: list[str]) -> None:
        """Each untagged turn's length under each candidate's length model, relative to their mean (`Turn.length`, an
        emission of `conversation.decode`): the one telling a story speaks in long turns, the listener in short ones."""
        modelled = [c for c in cands if c in self.lengths]
        if len(modelled) < 2:
            return
        for k, t in enumerate(turns):
            if t.fixed or not t.words:
                continue
            t.length = centred({c: self.lengths.loglik(t.words, c) for c in modelled})

    def _turn_context(self, turns: list[Turn], k: int, best: str, post: list[dict]) -> dict:
        """What the exchange says about a guess beyond `turn_features`: how many of its people share
        the gender a pronoun tag wants (a man and a woman talking: `she said` is the woman), whether
        the pronoun resolver's local suggestion agrees, whether the previous turn addressed the guess,
        and whether the decoded speakers around it alternate with it."""
        t, gender = turns[k], self.index.gender
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

    _KIN_ADDRESS = re.compile(r"(?:^|[,!?;]\s*|\b(?:dear|dearest|oh|yes|no|pray|well)\s+)(mamma|mama|mother|papa|father)(?=\s*(?:[,!?;.]|--|—|$))", re.I)

    def _kin_address(self, idx: list[int]) -> set[str]:
        return {"mother" if w in ("mamma", "mama", "mother") else "father"
                for w in self._quote_words(idx, self._KIN_ADDRESS)}

    def _kin_speakers(self, j: int, a, res: list, run: list[int], k: int, want: tuple | None = None) -> set[str]:
        """`said her mother`: the mothers of the people of the scene of the possessor's gender (the
        run's tagged speakers, the speakers of the turns just before, the people addressed, the
        characters named in the narration of this paragraph and the two before it)."""
        g, noun = want or a.kin
        p = self.quotes[j].para
        people: list[str] = []
        for kk, i in enumerate(run):
            if kk < k - 2 and not (res[i].speaker and res[i].rule in self.NAME_RULES):
                continue
            for jj in self._para_quotes(self.quotes[i].para):
                if res[jj].speaker:
                    people.append(res[jj].speaker)
                if abs(kk - k) <= 1:
                    people.extend(res[jj].vocatives)
        for pp in range(max(0, p - 2), p + 1):
            people.extend(m.cid for m in self.narr_mentions.get(pp, []))
        out: set[str] = set()
        for c in dict.fromkeys(people):
            if g is None or self.index.gender.get(c) == g:
                out |= self.kin.relatives(noun, c)
        return out - a.vocatives if a is not None else out

    thoughts_apart = True
    _THOUGHT = re.compile(r"[\s,;:!?.\-—–]*(?:(?:[\w.]+\s+){0,3}?thought\b|(?:\w+\s+)?(?:thought|said|cried|exclaimed|whispered|"
                          r"added|continued|repeated|muttered|murmured)\s+(?:[\w.]+\s+){0,3}?to\s+(?:her|him|them)sel(?:f|ves)\b)")

    def _is_thought(self, j: int) -> bool:
        """`"…," thought she` / `said Elizabeth to herself`: a quote tagged as a thought (the tag
        right after one of its parts, in the same paragraph)."""
        q = self.quotes[j]
        for k, (s, e) in enumerate(q.outer):
            if q.paras[k] != q.para:
                continue
            if self._THOUGHT.match(self.text, e, min(e + 80, self.paras[q.para][1])):
                return True
        return False

    def _runs(self) -> tuple[list[list[int]], dict[int, int]]:
        """Runs of quote paragraphs (one quote per paragraph: its first) with at most one short
        narration paragraph between them: the exchanges where turn-taking applies."""
        runs: list[list[int]] = []
        for p in sorted(self.by_para):
            idx = [j for j in self.by_para[p] if self.quotes[j].para == p]
            if not idx or (self.thoughts_apart and all(self._is_thought(j) for j in idx)):
                continue  # a paragraph of thoughts is not a turn of the exchange
            if runs:
                prev_p = self.quotes[runs[-1][-1]].paras[-1]
                gap = range(prev_p + 1, p)
                gap_len = sum(self.paras[g][1] - self.paras[g][0] for g in gap)
                if len(gap) <= self.max_gap_paras and gap_len < self.max_gap_chars and self.para_ch[p] == self.para_ch[prev_p]:
                    runs[-1].append(idx[0])
                    continue
            runs.append([idx[0]])
        run_of = {}
        for r, run in enumerate(runs):
            for i in run:
                for j in self.by_para[self.quotes[i].para]:
                    run_of.setdefault(j, r)
        return runs, run_of

