"""Chinese speaker attribution by speech tags: `玄德曰：「`, `宝玉听了，忙笑道：“`, `众人都笑说：“`,
`“……”玄德道。`, and pronoun tags (`他乃说道：`) resolved in context.

`ZhMixin` is mixed into `attribution.Attributor`; it uses the Attributor's text, paragraphs, quotes and
name index. The tag grammar lives in `cast_zh.py`: the clause ending in a speech verb, its subject at
the clause start; when that clause has none (`笑道`, `因说`), the clauses before it in the same sentence
(`宝玉听了，忙笑道`). The subject is either a cast member (through the name index; 0.95) or a speaker
the cast does not hold (`众人`, `那僧`, `丫鬟`): such a line gets the speaker id `slug(surface)` and keeps
the surface as written, so it is never given to a wrong cast member (0.9). A pronoun subject takes the
last person that opens a clause of the paragraph's narration before the tag (below the hold).
Chinese paragraphs hold whole exchanges: no turn-taking guesses.
"""

from __future__ import annotations

import re

from extractors.characters import slug

from .cast_zh import (_PRED, _PRED2, CLAUSE_MARK, PRONOUNS, _base, _TRANSPARENT, bare_subject, is_group,
                      strip_opener, tag_clause)
from .speaker_guess import Attribution

_POST = re.compile(r"[\s，,]*([^。！？“”「」，,：:\s]{1,6}?)(?:笑|又|也|便|忙|因)?(?:道|说|說|曰|问|問|答|叹|嘆)[。！？．]")
_SENDS = re.compile(r"(?:使|命|令|叫|遣|打发|打發|派)(?:了)?(?:人|个人|個人)")


class ZhMixin:
    def _zh_lookup(self, surface: str) -> str | None:
        return self.index.lookup(surface) or self.index.lookup(_base(surface))

    def _zh_subject(self, p: int, end: int, verb_clause: bool, crossed: bool = False) -> Attribution | str | None:
        """The subject opening text[p:end]: an Attribution, "none" when the clause opens with its
        predicate (look further back), or None (no subject to be had)."""
        t = self.text
        if p >= end:
            return "none"
        ms = self.index.mentions(t, p, end)
        if ms and ms[0].start == p:  # a cast member opens the clause: its subject, unless possessive
            m = max((m for m in ms if m.start == p), key=lambda m: m.end - m.start)
            if m.end < end and t[m.end] not in "的之家等们們" and any(n.start == m.end for n in ms):
                last = m.end  # `尤氏秦氏都说道`: two people speak together
                while any(n.start == last for n in ms):
                    last = max(n.end for n in ms if n.start == last)
                return Attribution(slug(t[p:last]), 0.9, "explicit-verb", "zh-names-verb", t[p:last])
            if m.end == end or t[m.end] not in "的之家等们們":
                conf = 0.95 if verb_clause else 0.92
                return Attribution(m.cid, conf, "explicit-verb", "zh-name-verb", m.surface)
        if t[p] in _PRED or _TRANSPARENT.match(t, p, end):
            return "none"
        subj = bare_subject(t[p:end])
        if not subj:
            return None
        if subj in PRONOUNS:
            if PRONOUNS[subj] is None and subj not in ("他们", "她们"):
                return None
            if subj in ("他们", "她们"):
                return Attribution(slug(subj), 0.5, "explicit-verb", "zh-group-pron", subj)
            return Attribution(want_gender=PRONOUNS[subj], pron_tag=True, surface=subj, rule="zh-pronoun")
        kin = subj[0] in "他她其" and len(subj) > 1
        core = subj[1:] if kin else subj
        cid = self._zh_lookup(core)
        if cid:
            return Attribution(cid, 0.95 if verb_clause else 0.9, "explicit-verb", "zh-name-verb", core)
        if crossed:
            return None  # across a full stop only a cast member
        conf = (0.9 if verb_clause else 0.85) if not kin else 0.8
        return Attribution(slug(core), conf, "explicit-verb", "zh-other-verb", core)

    def _zh_tag(self, s: int, e: int) -> Attribution | None:
        """The speaker named by a tag that ends text[s:e]."""
        t = self.text
        cs = tag_clause(t, s, e)
        if cs is None:
            return None
        end = len(t[:e].rstrip("：:，, \n\t"))
        if _SENDS.search(t, cs, end):
            return None  # `贾政便使人…说`: the one sent speaks
        verb_clause, crossed = True, False
        while True:
            p = strip_opener(t, cs, end)
            a = self._zh_subject(p, end, verb_clause, crossed)
            if isinstance(a, Attribution):
                if crossed and a.confidence:
                    a.confidence = min(a.confidence, 0.85)
                return a
            if a is None or cs <= s or t[cs - 1] not in "，,．。":
                return None
            if t[cs - 1] in "．。":
                if crossed:
                    return None
                crossed = True
            end = cs - 1
            k = end
            while k > s and not CLAUSE_MARK.match(t[k - 1]):
                k -= 1
            cs, verb_clause = k, False

    def _zh_tags(self, pre: tuple[int, int], mids: list[tuple[int, int]], post: tuple[int, int]) -> Attribution | None:
        """The tag of one quotation: the narration before it first, then after each of its parts."""
        t = self.text
        a = self._zh_tag(*pre)
        if a:
            return a
        for s, e in mids + [post]:
            m = _POST.match(t, s, e)  # “……”玄德道。
            if m:
                cid = self._zh_lookup(m.group(1))
                if cid:
                    return Attribution(cid, 0.9, "explicit-verb", "zh-post-name-verb", m.group(1))
        return None

    def _zh_antecedent(self, i: int) -> tuple[str, str] | None:
        """The last cast member opening a clause in the narration of quote i's paragraph before it."""
        q = self.quotes[i]
        ps = self.paras[q.para][0]
        best = None
        for s, e in self._para_gaps(q.para):
            if s >= q.outer[0][0]:
                break
            for m in self.index.mentions(self.text, s, min(e, q.outer[0][0])):
                k = m.start
                while k > s and self.text[k - 1] in "这這那":
                    k -= 1
                if k == ps or k == s or CLAUSE_MARK.match(self.text[k - 1]):
                    best = (m.cid, m.surface)
        return best

    def _zh_run(self, res: list[Attribution]) -> list[Attribution]:
        """After the tags: pronoun tags take the paragraph's last clause-opening person (held: 0.55);
        group speakers that are no cast member stay as written."""
        for i in range(len(self.quotes)):
            a = res[i]
            if a.pron_tag and a.speaker is None:
                ante = self._zh_antecedent(i)
                if ante:
                    a.speaker, a.confidence, a.evidence = ante[0], 0.55, "explicit-verb"
            if a.speaker and a.rule == "zh-other-verb" and is_group(a.surface or ""):
                a.confidence = min(a.confidence, 0.9)
        return self._hold_unsure(res)
