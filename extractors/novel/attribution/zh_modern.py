"""Untagged quotations of a Chinese novel by the shape of the exchange, as modern novels write dialogue: one
quotation a paragraph, most of them without a tag (`“……”\\n\\n“……”`), or after a paragraph of narration about the
one who then speaks (`冯国斌长出了一口气。\\n\\n“……”`).

Rules, applied in order of the quotations to those no tag gave a speaker (nor a pronoun tag, nor a name inside
the quotation that addresses the candidate):
- `zh-reply-to`: the quotation opens the paragraph right after one whose tag names one cast member spoken to
  (`“……”徐爱云对大哥说。` / `少安问少平：“……”`): that person answers;
- `zh-alternate`: right after a quotation by X, in a run of paragraphs each holding quotations, the last other
  speaker of the run before X; `zh-alternate-abab` where the two turns before were X's and the other's already
  (X, Y, X: then Y), the surer shape;
- `zh-beat`: the paragraph before is narration only and its last sentence opens with a cast member (who then speaks);
- `zh-lead`: narration before the quotation in its own paragraph ending in a speech verb, its last sentence opening
  with a cast member;
- `zh-pronoun-turn`: a pronoun tag (`他说：`) right after a quotation by X in an exchange: the last other speaker,
  where the pronoun's gender does not rule that one out.

Pronoun tags that name nobody in their paragraph take the last person of their gender in the paragraphs
before (`pronoun_back`, rule `zh-pronoun-back`). Each rule's confidence is its precision measured on the design part of the 平凡的世界 cues by
`benchmarks/zh_fit.py`, which writes `data/zh_turns.json`; without that file every guess is held.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from extractors.text import ZH_FULL_STOPS
from ..cast.zh.tags import post_tag_clause, strip_opener

TABLE = Path(__file__).resolve().parent.parent / "data" / "zh_turns.json"
RULES = ("zh-turn", "zh-reply-to", "zh-alternate", "zh-alternate-two", "zh-alternate-abab", "zh-alternate-abab-two",
         "zh-beat", "zh-lead", "zh-pronoun-turn", "zh-pronoun", "zh-pronoun-gender", "zh-pronoun-gender-sole",
         "zh-pronoun-back", "zh-pronoun-back-gender", "zh-pronoun-back-gender-sole")
_HELD = 0.5  # a rule with no measured precision: its guess is kept for the LLM, never emitted
_BACK = 4  # how many quotations back `zh-alternate` looks for the other speaker
_ANCHOR = 0.8  # a tag's guess this sure anchors an exchange even when held (a pronoun tag's); a turn guess only when
# emitted: whether the rules built on it are sure is what their own measured confidence says


@lru_cache(maxsize=1)
def confidences() -> dict[str, float]:
    """rule -> confidence, as `benchmarks/zh_fit.py` wrote them (empty when the table is absent)."""
    if not TABLE.exists():
        return {}
    return {k: float(v) for k, v in json.loads(TABLE.read_text(encoding="utf-8"))["confidence"].items()}


def opening_member(att, s: int, e: int) -> str | None:
    """The cast member that opens text[s:e] (past an opener such as `这时`), or None."""
    p = strip_opener(att.text, s, e)
    ms = att.index.mentions(att.text, p, min(e, p + 8))
    if ms and ms[0].start == p and (ms[0].end >= e or att.text[ms[0].end] not in "的之家们們等"):
        return ms[0].cid
    return None


def last_sentence(t: str, s: int, e: int) -> int:
    """Start of the last sentence of text[s:e] (after its last full stop but the one closing it)."""
    k = e
    while k > s and t[k - 1] in ZH_FULL_STOPS + " \n\t\u3000":
        k -= 1
    while k > s and t[k - 1] not in ZH_FULL_STOPS + "\n":
        k -= 1
    return k


_SPEECH_END = re.compile(r"[说說问問道曰喊叫嚷答骂罵讲講嘱囑赞讚吼囔劝勸][着著]?[：:，,；;]?\s*$")


def modern_turns(att, res: list) -> None:
    """Fill untagged quotations of `att` (an `attribution.Attributor`) by the rules above, in order; a guess is
    emitted where its rule's confidence reaches the hold, and goes on to back the next quotation's guess."""
    conf = confidences()
    t, quotes, hold = att.text, att.quotes, att.min_confidence

    def known(i: int) -> str | None:
        a = res[i]
        c = a.confidence or 0
        ok = a.speaker in att.index.characters and (c >= hold - 1e-9 or c >= _ANCHOR and a.evidence != "turn-taking")
        return a.speaker if ok else None  # a cast member: `老人`, `那人` may be anyone

    gender = att.index.gender
    for j, q in enumerate(quotes):
        a = res[j]
        if a.speaker or a.held or (a.rule and not a.rule.startswith("zh-goes-on") and a.rule != "zh-pronoun"):
            continue
        p = q.para
        ps, pe = att.paras[p]
        lead = t[ps:q.outer[0][0]]
        guess = rule = None
        if a.pron_tag:  # `他说：` in an exchange: the other one of the last two speakers, of the pronoun's gender
            i = j - 1
            x = known(i) if j and quotes[i].paras[-1] >= p - 1 else None
            k = i
            while x and k > max(0, i - _BACK) and quotes[k - 1].paras[-1] >= quotes[k].para - 1:
                k -= 1
                y = known(k)
                if y and y != x:
                    if gender.get(y) in (None, a.want_gender) or a.want_gender is None:
                        guess, rule = y, "zh-pronoun-turn"
                    break
        elif lead.strip():  # `…，赶忙问：`: a speech verb whose subject the tag did not find (not `果然是“`)
            k = last_sentence(t, ps, q.outer[0][0])
            guess, rule = (opening_member(att, k, q.outer[0][0]) if _SPEECH_END.search(lead) else None), "zh-lead"
        elif j and quotes[j - 1].paras[-1] == p - 1 and att.para_ch[p - 1] == att.para_ch[p]:
            i = j - 1
            x = known(i)
            if x:
                to = {c for c in res[i].addressees if c != x}
                if len(to) == 1:
                    guess, rule = next(iter(to)), "zh-reply-to"
                else:
                    run = [x]  # the speakers of the run back from i, one a turn
                    k = i
                    while len(run) < 3 and k > max(0, i - _BACK) and quotes[k - 1].paras[-1] >= quotes[k].para - 1:
                        k -= 1
                        y = known(k)
                        if y and y != run[-1]:
                            run.append(y)
                        elif not y and quotes[k].para != quotes[k + 1].para:
                            break  # a turn nobody is known for: the pattern is lost
                    if len(run) >= 2:
                        guess = run[1]
                        rule = "zh-alternate-abab" if run[2:] == [x] else "zh-alternate"
                        if _only_two(att, quotes[k].para, p, {x, guess}):
                            rule += "-two"  # the narration since the exchange began names nobody else
        elif p and not att.by_para.get(p - 1) and att.para_ch[p - 1] == att.para_ch[p]:
            s, e = att.paras[p - 1]
            guess, rule = opening_member(att, last_sentence(t, s, e), e), "zh-beat"
        if not guess or guess in a.vocatives:
            continue
        a.speaker, a.confidence, a.evidence, a.rule = guess, conf.get(rule, _HELD), "turn-taking", rule


def _only_two(att, p0: int, p: int, pair: set[str]) -> bool:
    """Whether the narration of paragraphs p0..p (and the one before p0) names no cast member outside the pair."""
    return all(m.cid in pair for k in range(max(0, p0 - 1), p + 1) for m in att.narr_mentions.get(k, []))


_BACK_PARAS = 2  # how many paragraphs back a pronoun tag's antecedent is looked for


def pronoun_back(att, i: int, gender: str | None, res: list) -> tuple[str, str] | None:
    """(cast id, surface) for a pronoun tag (`她说：`) whose paragraph names nobody before it: the last person of
    the pronoun's gender (where the cast member's is known) in the `_BACK_PARAS` paragraphs before, as a clause
    opening in the narration or as the speaker a name tag gave a quotation there."""
    q = att.quotes[i]
    best = None
    replied = _replied(att, i, res)
    for p in range(max(0, q.para - _BACK_PARAS), q.para):
        if att.para_ch[p] != att.para_ch[q.para]:
            continue
        ps = att.paras[p][0]
        found = []
        for m in att.narr_mentions.get(p, []):
            if m.start == ps or att.text[m.start - 1] in "，。．！？；：\n”":
                found.append((m.start, m.cid, m.surface))
        for j in att.by_para.get(p, []):
            a = res[j]
            if a.speaker in att.index.characters and (a.rule or "").endswith("-verb") and not a.pron_tag:
                found.append((att.quotes[j].start, a.speaker, a.surface))
        for _, cid, surface in sorted(found):
            g = att.index.gender.get(cid)
            if (gender is None or g is None or g == gender) and cid != replied:
                best = (cid, surface)
    return best


def _replied(att, i: int, res: list) -> str | None:
    """The speaker a quotation opening its paragraph answers: the one of the quotation closing the paragraph right
    before (`“你吃了饭没？”贾冰问。\n\n“吃了。”他散谎说。`: he is not 贾冰), or None."""
    q = att.quotes[i]
    if not i or att.text[att.paras[q.para][0]:q.outer[0][0]].strip():
        return None
    k = att.quotes[i - 1]
    if k.paras[-1] != q.para - 1:
        return None
    s, e = k.outer[-1][1], att.paras[k.paras[-1]][1]
    if att.text[s:e].strip(" \t\n\u3000。．") and post_tag_clause(att.text, s, e) is None:
        return None  # narration after it, not its tag: the paragraph goes on past the quotation
    a = res[i - 1]
    return a.speaker if a.speaker in att.index.characters else None
