"""Rules 1 and 2 of the attribution: the speech tag of a quotation (`tag`, a
function over the attribution's state, an `Attributor`).

A tag after the quote or between two parts of one utterance (`attribution/tags_after.py`), in the narration before it or ending
the paragraph before (`attribution/tags_before.py`); names give the speaker (`explicit-verb`), pronouns and noun phrases
(`said she`, `cried her mother`) the gender the speaker must have. Chinese tags: `attribution/zh.py`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING

from . import zh
from .speaker_guess import Attribution
from ..text.speech_tags import _V
from .tags_after import heard_pre_tag, post_tag, voice_pre_tag
from .tags_before import bare_prev, hint, pre_tag, subject_before

if TYPE_CHECKING:
    from .attributor import Attributor


def tag(st: Attributor, i: int) -> Attribution | None:
    a = _tag(st, i)
    if a is not None and a.pron_tag and (a.surface or "").strip() in ("I", "我"):
        if (a.rule or "").startswith("prev-"):  # `"…?" I asked.` closes the paragraph before: not this quote's tag
            return None
        if not st.index.narrator:  # a narrator the cast lacks: nobody in it, never the nearest guess
            return Attribution(outsider=True, nobody=True, rule="narrator-unknown", surface=a.surface, verb=a.verb)
        # `said I`, `I answered`: the first-person narrator
        return Attribution(st.index.narrator, 0.95, "explicit-verb", "narrator", a.surface)
    return a


def _para_bounds(st: Attributor, p: int) -> tuple[list[int], list[int], list[int]]:
    """Quotes of paragraph p (increasing), the running max of their ends, the running min (from the right)
    of their starts: a quote's neighbours in O(log n), not a walk over the whole paragraph (a text written
    on one line is one paragraph of thousands of quotes)."""
    memo = st.__dict__.setdefault("_para_bounds_memo", {})
    got = memo.get(p)
    if got is None:
        js = st.by_para.get(p, [])
        ends = list(accumulate((st.quotes[j].outer[-1][1] for j in js), max))
        starts = list(accumulate((st.quotes[j].outer[0][0] for j in reversed(js)), min))[::-1]
        got = memo[p] = (js, ends, starts)
    return got


def _para_end_before(st: Attributor, p: int, i: int) -> int:
    """The furthest end of the quotes of paragraph p numbered below i (-1 when none)."""
    js, ends, _ = _para_bounds(st, p)
    k = bisect_left(js, i)
    return ends[k - 1] if k else -1


def _para_start_after(st: Attributor, p: int, i: int) -> float:
    """The earliest start of the quotes of paragraph p numbered above i (inf when none)."""
    js, _, starts = _para_bounds(st, p)
    k = bisect_right(js, i)
    return starts[k] if k < len(js) else float("inf")


def _tag(st: Attributor, i: int) -> Attribution | None:
    q = st.quotes[i]
    t = st.text
    p = q.para
    ps, pe = st.paras[p]
    # narration before this quote within its paragraph
    prev_end = max(ps, _para_end_before(st, p, i))
    pre = (prev_end, q.outer[0][0])
    mids = [(q.outer[k][1], q.outer[k + 1][0]) for k in range(len(q.outer) - 1) if q.paras[k] == q.paras[k + 1]]
    lp = q.paras[-1]
    lps, lpe = st.paras[lp]
    nxt = min(lpe, _para_start_after(st, lp, i))
    post = (q.outer[-1][1], nxt)
    if st.lang == "zh":
        return zh.tags(st, pre, mids, post)
    handed = i + 1 < len(st.quotes) and st.quotes[i + 1].handover and st.quotes[i + 1].para == lp
    for s, e in mids + ([] if handed else [post]):  # a handover: the narration after is the next quote's tag
        a = post_tag(st, s, min(e, s + 200))
        if a:
            if a.pron_tag and (s, e) == post and (a.surface or "").strip() not in ("I", "我") \
                    and all(t[ms:me].strip() for ms, me in mids):  # `"A." "B," she said`: two quotes, two speakers
                before = _named_pre_tag(st, pre)
                if before is not None:
                    return before
            return a
    a = voice_pre_tag(st, *pre) or pre_tag(st, *pre)  # `…, and May's voice broke out:` before any earlier name
    if a is None and not t[pre[0]:pre[1]].strip() and p > 0 and prev_end == ps:
        # the tag ends the previous narration paragraph: `Mr. Bennet coolly observed,`
        pp = p - 1
        pps, ppe = st.paras[pp]
        last = max(pps, _para_end_before(st, pp, len(st.quotes)))
        bare = bare_prev(st, last, ppe) if last < ppe else None
        if bare is not None:  # a clue turn-taking must agree with (`conv+prev-name-verb/bare`)
            return Attribution(hint=(bare.speaker, bare.rule))
        if last < ppe and re.search(r"[,:\-—]\s*$", t[last:ppe]):
            a = pre_tag(st, last, ppe)
        elif last < ppe and re.search(r"\b" + _V + r"(?:\s+[\w' ]{0,30})?\.\s*$", t[last:ppe]) \
                and not (last > pps and re.fullmatch(r"[^.!?]*\.\s*", t[last:ppe])):
            # (`"…?" she asked.` right after a quote is that quote's tag, not the next paragraph's)
            a = pre_tag(st, last, ppe, full_stop=True)  # `…, began scolding one of her daughters.`
            if a and a.pron_tag:  # `She nodded.` / `He went on.`: as often the other one's turn as the pronoun's
                a = None
            elif a:
                a.rule = "prev-" + (a.rule or "")
        if a is None and last < ppe and t[last:ppe].rstrip().endswith(":"):  # `Heavywether fell upon him:`
            a = voice_pre_tag(st, last, ppe) or subject_before(st, last, ppe, "prev-subj")
        elif a is None and last < ppe and t[last:ppe].strip():  # `Mr. Mace began at once.`: only a hint
            a = hint(subject_before(st, last, ppe, "prev-subj", act=True))
    elif a is None and t[pre[0]:pre[1]].strip():
        a = voice_pre_tag(st, *pre) or heard_pre_tag(st, *pre) or subject_before(st, *pre, "subj")
        if a is not None and a.rule == "subj":  # someone else is named in that sentence: left to turn-taking
            a = None
        elif a is not None and a.rule.startswith("subj") and prev_end > ps:
            a = None  # `"…," said Mr. Wilcox. Charles hardened his mouth. "You young…`: the paragraph's speaker goes on
    return a


def _named_pre_tag(st: Attributor, pre: tuple[int, int]) -> Attribution | None:
    """`…, and Anne said, "Shall we go?" he nodded`: a name tag right before the quote beats the pronoun
    tag after it (that one tells of the reply, or opens the next quote of the paragraph)."""
    a = pre_tag(st, *pre)
    if a is None or not a.speaker or a.rule not in ("pre-name-verb", "pre-name-verb/sub", "pre-by-name"):
        return None
    a.rule += "/before-pron"
    return a
