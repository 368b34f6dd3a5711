"""Pronoun and noun-phrase tags (`said she`, `he replied`, `cried her mother`) resolved to characters.

`PronounMixin` (used by `attribution.Attributor`): the nearest clause-initial character of the
wanted gender in the narration before the quote (`_narr_recent`, a suggestion for the
conversation model); the cascade of `_resolve_pronoun` (a subject in the same paragraph, the
previous speaker for `she added`, the narration just before, the person the previous turn
addressed, the speaker two turns back, the only participant of that gender, the most recent
character of that gender); and `_leftover_pronouns` for tags the conversation model did not
settle. Gender comes from the character list.
"""

from __future__ import annotations

import re

from extractors.text import EN_CLAUSE_END
from ..cast.names import Mention
from .turns import para_quotes

_GENDER_PRON = {"female": "she", "male": "he"}
_CONTINUE = re.compile(r"\b(?:added|adding|continued|continuing|went\s+on|resumed|pursued|persisted|repeated)\b")


class PronounMixin:
    narr_recent_loose = False
    _CLAUSE_START = re.compile(r"(?:^|[.!?;:]\s*|--\s*|\b(?:and|but|when|while|as|where|till|until|before|after|though|although|that|"
                               r"then|so|yet|which|who)\s+|,\s*)(?:(?:however|then|now|at\s+last|at\s+length|immediately|instantly),?\s+)?$")

    carry_tail = True   # the narration after the last quote of the paragraph before counts as narration before

    def _narr_segments_before(self, i: int, max_paras: int) -> list[tuple[int, int]]:
        """The narration before quote i: its own paragraph's narration before it, then up to
        `max_paras` narration-only paragraphs before that; a paragraph with quotes stops the walk,
        but its narration after its last quote (`"…" said Elizabeth to herself. She then sought
        her sister…`) is taken first (`carry_tail`)."""
        q = self.quotes[i]
        p = q.para
        segs = [(s, e) for s, e in self._para_gaps(p) if e <= q.outer[0][0]]
        for pp in range(p - 1, max(-1, p - 1 - max_paras), -1):
            if self.by_para.get(pp):
                if self.carry_tail:
                    last = max(self.quotes[j].outer[-1][1] for j in self.by_para[pp])
                    tail = [(s, e) for s, e in self._para_gaps(pp) if s >= last and self.text[s:e].strip()]
                    if tail and len(self.text[tail[-1][0]:tail[-1][1]].split()) >= 4:
                        segs = tail[-1:] + segs
                break
            segs.insert(0, self.paras[pp])
        return segs

    def _narr_recent(self, i: int, gender: str, exclude: set, max_paras: int = 2) -> str | None:
        """The nearest character of `gender` named as a possible subject in the narration before
        quote i: its own paragraph first, then up to `max_paras` narration-only paragraphs before it."""
        segs = self._narr_segments_before(i, max_paras)
        loose = None
        for s, e in reversed(segs):
            ms = [m for m in self._subject_mentions(s, e, gender) if m.cid not in exclude]
            for m in reversed(ms):
                if self._CLAUSE_START.search(self.text[max(s, m.start - 30):m.start]) or m.start == s:
                    return m.cid
            if ms and loose is None:
                loose = ms[-1].cid
        return loose if self.narr_recent_loose else None

    # ---- centering: the antecedent of a subject pronoun is the subject of an earlier main clause ----
    _CLAUSE_SPLIT = re.compile(EN_CLAUSE_END + r"+[\"'”’)]*\s+|\s*--\s*(?=[A-Z])")
    _CHUNK_LEAD = re.compile(r"[\s\"'“”‘’(_*—–-]*(?:(?:and|but|then|so|yet|now|thus|here|there|however|at\s+length|at\s+last|"
                             r"immediately|instantly|presently|soon|still|again|nor|or)\b[\s,]*)*")
    _PRON_SUBJ = re.compile(r"(he|she|it|they|I|we|you)\b", re.I)
    center_max_clauses = 6
    center_cataphora = True

    def _clause_subject(self, s: int, e: int, ms: list[Mention]) -> tuple[str | None, str | None] | None:
        """The subject of the main clause in text[s:e]: the first comma chunk that opens (after a
        conjunction or adverb) with a name or a personal pronoun (a chunk opened by `when`, `after`,
        a preposition, a participle… is subordinate and skipped). -> (cid, None) for a character,
        (None, pronoun) for a pronoun, None when no subject is found."""
        r = self._clause_subject_at(s, e, ms)
        return r[:2] if r else None

    def _clause_subject_at(self, s: int, e: int, ms: list[Mention]) -> tuple[str | None, str | None, int] | None:
        """`_clause_subject` with the subject's offset."""
        t = self.text
        pos = s
        chunk_starts = [s] + [s + m.end() for m in re.finditer(r",", t[s:e])]
        for cs in chunk_starts:
            lead = self._CHUNK_LEAD.match(t, cs, e)
            pos = lead.end()
            for m in ms:
                if m.start == pos:
                    if t[m.end:m.end + 2] in ("'s", "’s"):
                        break
                    return m.cid, None, pos
                if m.start > pos:
                    break
            pm = self._PRON_SUBJ.match(t, pos, e)
            if pm:
                return None, pm.group(1).lower(), pos
        return None

    def _center(self, i: int, gender: str, exclude: set, max_paras: int = 2) -> str | None:
        """Centering for a pronoun tag (`she added`): walk back over the main clauses of the narration
        before quote i (its own paragraph, then narration-only paragraphs) and return the subject of
        the nearest clause whose subject is a character of `gender`; clauses whose subject is a
        pronoun, another character or nothing are passed over. None when no such clause is found
        within `center_max_clauses`."""
        segs = self._narr_segments_before(i, max_paras)
        clauses: list[tuple[int, int]] = []
        for s, e in segs:
            a = s
            for m in self._CLAUSE_SPLIT.finditer(self.text, s, e):
                clauses.append((a, m.start()))
                a = m.end()
            clauses.append((a, e))
        n = 0
        for s, e in reversed(clauses):
            if e - s < 2:
                continue
            n += 1
            if n > self.center_max_clauses:
                break
            ms = self.mentions(s, e)
            subj = self._clause_subject_at(s, e, ms)
            if subj and subj[0] and subj[0] not in exclude and self.index.gender.get(subj[0]) == gender:
                return subj[0]
            if self.center_cataphora and subj and subj[1] == _GENDER_PRON.get(gender):
                # `when at last Kitty did, she said`: the pronoun subject of the main clause is the
                # one character of that gender named as a subject in the subordinate clause before it
                cs = {m.cid for m in self._subject_mentions(s, subj[2], gender) if m.cid not in exclude
                      and self.text[m.end:m.end + 2] not in ("'s", "’s")}
                if len(cs) == 1:
                    return cs.pop()
        return None


    center_outside_runs = True
    center_outside_conf = 0.8

    def _leftover_pronouns(self, res: list[Attribution]) -> None:
        """Pronoun tags the conversation model did not settle (a second quote of a paragraph, or a
        turn it left open): the paragraph's own speaker when the gender fits, else the resolver."""
        for i, a in enumerate(res):
            if not a.pron_tag or a.speaker or not a.want_gender:
                continue
            q = self.quotes[i]
            mates = [j for j in para_quotes(self, q.para) if j != i and res[j].speaker]
            mates.sort(key=lambda j: (j > i, abs(j - i)))
            for j in mates:
                c = res[j].speaker
                if self.index.gender.get(c) == a.want_gender and c not in a.vocatives:
                    a.speaker, a.confidence, a.evidence, a.rule = c, 0.85, "explicit-verb", f"{a.rule}/para-speaker"
                    break
            if a.speaker:
                continue
            if self.center_outside_runs and i not in self.turn_of:  # a thought, a lone quote: no exchange to decode
                cid = self._center(i, a.want_gender, a.vocatives)
                if cid:
                    a.speaker, a.confidence, a.evidence, a.rule = cid, self.center_outside_conf, "explicit-verb", f"{a.rule}/center"
                    continue
            cid, conf, why = self._resolve_pronoun(i, a.want_gender, res, final=True)
            if cid:
                a.speaker, a.confidence, a.evidence, a.rule = cid, conf, "explicit-verb", f"{a.rule}/{why}"


    def _participants(self, i: int, res: list[Attribution]) -> list[str]:
        """Speakers named by explicit tags in the exchange of quote i, in order of first turn."""
        r = self.run_of.get(i)
        if r is None:
            return []
        out: list[str] = []
        for k in self.runs[r]:
            for j in self.by_para[self.quotes[k].para]:
                a = res[j]
                if a.speaker and a.evidence == "explicit-verb" and a.speaker not in out:
                    out.append(a.speaker)
        return out


    def _recent_candidates(self, i: int, res: list[Attribution], gender: str | None, window_paras: int = 8) -> list[str]:
        """Characters by recency before quote i: speakers of earlier quotes and narration mentions."""
        q = self.quotes[i]
        events: list[tuple[int, str]] = []
        lo = max(0, q.para - window_paras)
        while lo < q.para and self.para_ch[lo] != self.para_ch[q.para]:  # not across a chapter heading
            lo += 1
        for p in range(lo, q.para + 1):
            for m in self.narr_mentions.get(p, []):
                if m.start < q.outer[0][0]:
                    events.append((m.start, m.cid))
        for j in range(i - 1, -1, -1):
            if self.quotes[j].para < lo:
                break
            if res[j].speaker:
                events.append((self.quotes[j].start, res[j].speaker))
        events.sort(reverse=True)
        out = []
        for _, cid in events:
            if cid not in out and (gender is None or self.index.gender.get(cid) == gender):
                out.append(cid)
        return out


    def _subject_mentions(self, s: int, e: int, gender: str | None) -> list[Mention]:
        """Mentions in text[s:e] that are not objects of a preposition nor possessives."""
        out = []
        for m in self.mentions(s, e):
            if gender and self.index.gender.get(m.cid) != gender:
                continue
            if self._PREP.search(self.text[max(s, m.start - 16):m.start]) or self.text[m.end:m.end + 2] in ("'s", "’s"):
                continue
            out.append(m)
        return out


    def _turn_speaker(self, r: int, k: int, res: list[Attribution]) -> str | None:
        """Speaker of turn k of run r (the first attributed quote of that paragraph)."""
        run = self.runs[r]
        if not 0 <= k < len(run):
            return None
        p = self.quotes[run[k]].para
        for j in self.by_para[p]:
            if self.quotes[j].para == p and res[j].speaker:
                return res[j].speaker
        return None


    def _turn_vocatives(self, r: int, k: int, res: list[Attribution]) -> set:
        run = self.runs[r]
        if not 0 <= k < len(run):
            return set()
        p = self.quotes[run[k]].para
        out = set()
        for j in self.by_para[p]:
            if self.quotes[j].para == p:
                out |= res[j].vocatives
        return out


    def _narration_before(self, i: int) -> bool:
        """Is quote i the first of its paragraph with narration (not a quote) just before it?"""
        q = self.quotes[i]
        return q.para > 0 and not self.by_para.get(q.para - 1)


    def _resolve_pronoun(self, i: int, gender: str | None, res: list[Attribution],
                         final: bool = False) -> tuple[str | None, float, str | None]:
        if gender is None:
            return None, 0.0, None
        q = self.quotes[i]
        voc = res[i].vocatives
        ps, pe = self.paras[q.para]
        # 1. an antecedent in the same paragraph, before the quote ends
        same = [m for m in self._subject_mentions(ps, q.outer[-1][1], gender) if m.cid not in voc
                and not any(s <= m.start < e for s, e in q.outer)]
        same = [m for m in same if not any(self.quotes[j].outer[0][0] <= m.start < self.quotes[j].outer[-1][1]
                                            for j in self.by_para.get(q.para, []))]
        if same:
            return same[0].cid, 0.85, "same-subj"
        rk = self.turn_of.get(i)
        # `she added`, `he went on`: the speaker of the turn before goes on
        if rk and res[i].verb and _CONTINUE.search(res[i].verb):
            prev = self._turn_speaker(rk[0], rk[1] - 1, res)
            if prev and self.index.gender.get(prev) == gender and prev not in voc:
                return prev, 0.8, "continue"
        # any mention of that gender in the paragraph (possessives too)
        same = [m for m in self.mentions(ps, q.outer[0][0])
                if self.index.gender.get(m.cid) == gender and m.cid not in voc
                and not self._PREP.search(self.text[max(ps, m.start - 16):m.start])
                and not any(self.quotes[j].outer[0][0] <= m.start < self.quotes[j].outer[-1][1]
                            for j in self.by_para.get(q.para, []))]
        if same:
            return same[-1].cid, 0.75, "same-any"
        # 2. a new exchange after narration: the character of that gender the narration is about
        if self._narration_before(i):
            s0, e0 = self.paras[q.para - 1]
            ms = [m for m in self._subject_mentions(s0, e0, gender) if m.cid not in voc]
            if ms:
                cnt: dict[str, int] = {}
                for m in ms:
                    cnt[m.cid] = cnt.get(m.cid, 0) + 1
                best = max(cnt, key=lambda c: (cnt[c], -[m.cid for m in ms].index(c)))
                return best, 0.8, "narr-before"
        if rk is None:
            return None, 0.0, None
        r, k = rk
        p1, p2 = self._turn_speaker(r, k - 1, res), self._turn_speaker(r, k - 2, res)
        # 4. whoever the previous turn addressed answers
        pv = [c for c in self._turn_vocatives(r, k - 1, res) if self.index.gender.get(c) == gender and c != p1 and c not in voc]
        if len(pv) == 1:
            return pv[0], 0.8, "prev-addressee"
        # 3. in an exchange: the one who spoke two turns before, when the gender fits
        if p2 and p2 != p1 and p2 not in voc and self.index.gender.get(p2) == gender and (p1 or final):
            return p2, 0.8, "p2"
        parts = [c for c in self._participants(i, res) if self.index.gender.get(c) == gender and c not in voc]
        if p1 and p1 in parts:
            others = [c for c in parts if c != p1]
            if len(others) == 1:
                return others[0], 0.75, "other-part"
        elif p1 and len(parts) == 1:
            return parts[0], 0.8, "only-part"
        if not final:
            return None, 0.0, None
        if len(parts) == 1 and parts[0] != p1:
            return parts[0], 0.65, "only-part-final"
        for cid in self._recent_candidates(i, res, gender):
            if cid != p1 and cid not in voc:
                return cid, 0.6, "recent"
        return None, 0.0, None
