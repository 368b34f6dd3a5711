"""Pronoun and noun-phrase tags (`said she`, `he replied`, `cried her mother`) resolved to characters, as stage
functions over the attribution's state (an `attribution.Attributor`): the nearest clause-initial character of the
wanted gender in the narration before the quote (`narr_recent`, a suggestion for the conversation model); centering
(`center`); the cascade of `resolve_pronoun` (a subject in the same paragraph, the previous speaker for `she added`,
the narration just before, the person the previous turn addressed, the speaker two turns back, the only participant
of that gender, the most recent character of that gender); and `leftover_pronouns` for tags the conversation model
did not settle. Gender comes from the character list.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from extractors.text import EN_CLAUSE_END
from ..cast.names import Mention
from .tags_before import PREP

if TYPE_CHECKING:
    from .attributor import Attributor
    from .speaker_guess import Attribution

_GENDER_PRON = {"female": "she", "male": "he"}
_CONTINUE = re.compile(r"\b(?:added|adding|continued|continuing|went\s+on|resumed|pursued|persisted|repeated)\b")


def para_quotes(st: Attributor, p: int) -> list[int]:
    """The quotes that open in paragraph p."""
    return [j for j in st.by_para.get(p, []) if st.quotes[j].para == p]


NARR_RECENT_LOOSE = False
_CLAUSE_START = re.compile(r"(?:^|[.!?;:]\s*|--\s*|\b(?:and|but|when|while|as|where|till|until|before|after|though|although|that|"
                           r"then|so|yet|which|who)\s+|,\s*)(?:(?:however|then|now|at\s+last|at\s+length|immediately|instantly),?\s+)?$")
CARRY_TAIL = True   # the narration after the last quote of the paragraph before counts as narration before


def _narr_segments_before(st: Attributor, i: int, max_paras: int) -> list[tuple[int, int]]:
    """The narration before quote i: its own paragraph's narration before it, then up to
    `max_paras` narration-only paragraphs before that; a paragraph with quotes stops the walk,
    but its narration after its last quote (`"…" said Elizabeth to herself. She then sought
    her sister…`) is taken first (`CARRY_TAIL`)."""
    q = st.quotes[i]
    p = q.para
    segs = [(s, e) for s, e in st._para_gaps(p) if e <= q.outer[0][0]]
    for pp in range(p - 1, max(-1, p - 1 - max_paras), -1):
        if st.by_para.get(pp):
            if CARRY_TAIL:
                last = max(st.quotes[j].outer[-1][1] for j in st.by_para[pp])
                tail = [(s, e) for s, e in st._para_gaps(pp) if s >= last and st.text[s:e].strip()]
                if tail and len(st.text[tail[-1][0]:tail[-1][1]].split()) >= 4:
                    segs = tail[-1:] + segs
            break
        segs.insert(0, st.paras[pp])
    return segs


def narr_recent(st: Attributor, i: int, gender: str, exclude: set, max_paras: int = 2) -> str | None:
    """The nearest character of `gender` named as a possible subject in the narration before
    quote i: its own paragraph first, then up to `max_paras` narration-only paragraphs before it."""
    segs = _narr_segments_before(st, i, max_paras)
    loose = None
    for s, e in reversed(segs):
        ms = [m for m in subject_mentions(st, s, e, gender) if m.cid not in exclude]
        for m in reversed(ms):
            if _CLAUSE_START.search(st.text[max(s, m.start - 30):m.start]) or m.start == s:
                return m.cid
        if ms and loose is None:
            loose = ms[-1].cid
    return loose if NARR_RECENT_LOOSE else None


# ---- centering: the antecedent of a subject pronoun is the subject of an earlier main clause ----
_CLAUSE_SPLIT = re.compile(EN_CLAUSE_END + r"+[\"'”’)]*\s+|\s*--\s*(?=[A-Z])")
_CHUNK_LEAD = re.compile(r"[\s\"'“”‘’(_*—–-]*(?:(?:and|but|then|so|yet|now|thus|here|there|however|at\s+length|at\s+last|"
                         r"immediately|instantly|presently|soon|still|again|nor|or)\b[\s,]*)*")
_PRON_SUBJ = re.compile(r"(he|she|it|they|I|we|you)\b", re.I)
CENTER_MAX_CLAUSES = 6
CENTER_CATAPHORA = True


def _clause_subject(st: Attributor, s: int, e: int, ms: list[Mention]) -> tuple[str | None, str | None] | None:
    """The subject of the main clause in text[s:e]: the first comma chunk that opens (after a
    conjunction or adverb) with a name or a personal pronoun (a chunk opened by `when`, `after`,
    a preposition, a participle… is subordinate and skipped). -> (cid, None) for a character,
    (None, pronoun) for a pronoun, None when no subject is found."""
    r = _clause_subject_at(st, s, e, ms)
    return r[:2] if r else None


def _clause_subject_at(st: Attributor, s: int, e: int, ms: list[Mention]) -> tuple[str | None, str | None, int] | None:
    """`_clause_subject` with the subject's offset."""
    t = st.text
    pos = s
    chunk_starts = [s] + [s + m.end() for m in re.finditer(r",", t[s:e])]
    for cs in chunk_starts:
        lead = _CHUNK_LEAD.match(t, cs, e)
        pos = lead.end()
        for m in ms:
            if m.start == pos:
                if t[m.end:m.end + 2] in ("'s", "’s"):
                    break
                return m.cid, None, pos
            if m.start > pos:
                break
        pm = _PRON_SUBJ.match(t, pos, e)
        if pm:
            return None, pm.group(1).lower(), pos
    return None


def center(st: Attributor, i: int, gender: str, exclude: set, max_paras: int = 2) -> str | None:
    """Centering for a pronoun tag (`she added`): walk back over the main clauses of the narration
    before quote i (its own paragraph, then narration-only paragraphs) and return the subject of
    the nearest clause whose subject is a character of `gender`; clauses whose subject is a
    pronoun, another character or nothing are passed over. None when no such clause is found
    within `CENTER_MAX_CLAUSES`."""
    segs = _narr_segments_before(st, i, max_paras)
    clauses: list[tuple[int, int]] = []
    for s, e in segs:
        a = s
        for m in _CLAUSE_SPLIT.finditer(st.text, s, e):
            clauses.append((a, m.start()))
            a = m.end()
        clauses.append((a, e))
    n = 0
    for s, e in reversed(clauses):
        if e - s < 2:
            continue
        n += 1
        if n > CENTER_MAX_CLAUSES:
            break
        ms = st.mentions(s, e)
        subj = _clause_subject_at(st, s, e, ms)
        if subj and subj[0] and subj[0] not in exclude and st.index.gender.get(subj[0]) == gender:
            return subj[0]
        if CENTER_CATAPHORA and subj and subj[1] == _GENDER_PRON.get(gender):
            # `when at last Kitty did, she said`: the pronoun subject of the main clause is the
            # one character of that gender named as a subject in the subordinate clause before it
            cs = {m.cid for m in subject_mentions(st, s, subj[2], gender) if m.cid not in exclude
                  and st.text[m.end:m.end + 2] not in ("'s", "’s")}
            if len(cs) == 1:
                return cs.pop()
    return None


CENTER_OUTSIDE_RUNS = True
CENTER_OUTSIDE_CONF = 0.8


def leftover_pronouns(st: Attributor, res: list[Attribution]) -> None:
    """Pronoun tags the conversation model did not settle (a second quote of a paragraph, or a
    turn it left open): the paragraph's own speaker when the gender fits, else the resolver."""
    for i, a in enumerate(res):
        if not a.pron_tag or a.speaker or not a.want_gender:
            continue
        q = st.quotes[i]
        mates = [j for j in para_quotes(st, q.para) if j != i and res[j].speaker]
        mates.sort(key=lambda j: (j > i, abs(j - i)))
        for j in mates:
            c = res[j].speaker
            if st.index.gender.get(c) == a.want_gender and c not in a.vocatives:
                a.speaker, a.confidence, a.evidence, a.rule = c, 0.85, "explicit-verb", f"{a.rule}/para-speaker"
                break
        if a.speaker:
            continue
        if CENTER_OUTSIDE_RUNS and i not in st.turn_of:  # a thought, a lone quote: no exchange to decode
            cid = center(st, i, a.want_gender, a.vocatives)
            if cid:
                a.speaker, a.confidence, a.evidence, a.rule = cid, CENTER_OUTSIDE_CONF, "explicit-verb", f"{a.rule}/center"
                continue
        cid, conf, why = resolve_pronoun(st, i, a.want_gender, res, final=True)
        if cid:
            a.speaker, a.confidence, a.evidence, a.rule = cid, conf, "explicit-verb", f"{a.rule}/{why}"


def _participants(st: Attributor, i: int, res: list[Attribution]) -> list[str]:
    """Speakers named by explicit tags in the exchange of quote i, in order of first turn."""
    r = st.run_of.get(i)
    if r is None:
        return []
    out: list[str] = []
    for k in st.runs[r]:
        for j in st.by_para[st.quotes[k].para]:
            a = res[j]
            if a.speaker and a.evidence == "explicit-verb" and a.speaker not in out:
                out.append(a.speaker)
    return out


def recent_candidates(st: Attributor, i: int, res: list[Attribution], gender: str | None, window_paras: int = 8) -> list[str]:
    """Characters by recency before quote i: speakers of earlier quotes and narration mentions."""
    q = st.quotes[i]
    events: list[tuple[int, str]] = []
    lo = max(0, q.para - window_paras)
    while lo < q.para and st.para_ch[lo] != st.para_ch[q.para]:  # not across a chapter heading
        lo += 1
    for p in range(lo, q.para + 1):
        for m in st.narr_mentions.get(p, []):
            if m.start < q.outer[0][0]:
                events.append((m.start, m.cid))
    for j in range(i - 1, -1, -1):
        if st.quotes[j].para < lo:
            break
        if res[j].speaker:
            events.append((st.quotes[j].start, res[j].speaker))
    events.sort(reverse=True)
    out = []
    for _, cid in events:
        if cid not in out and (gender is None or st.index.gender.get(cid) == gender):
            out.append(cid)
    return out


def subject_mentions(st: Attributor, s: int, e: int, gender: str | None) -> list[Mention]:
    """Mentions in text[s:e] that are not objects of a preposition nor possessives."""
    out = []
    for m in st.mentions(s, e):
        if gender and st.index.gender.get(m.cid) != gender:
            continue
        if PREP.search(st.text[max(s, m.start - 16):m.start]) or st.text[m.end:m.end + 2] in ("'s", "’s"):
            continue
        out.append(m)
    return out


def _turn_speaker(st: Attributor, r: int, k: int, res: list[Attribution]) -> str | None:
    """Speaker of turn k of run r (the first attributed quote of that paragraph)."""
    run = st.runs[r]
    if not 0 <= k < len(run):
        return None
    p = st.quotes[run[k]].para
    for j in st.by_para[p]:
        if st.quotes[j].para == p and res[j].speaker:
            return res[j].speaker
    return None


def _turn_vocatives(st: Attributor, r: int, k: int, res: list[Attribution]) -> set:
    run = st.runs[r]
    if not 0 <= k < len(run):
        return set()
    p = st.quotes[run[k]].para
    out = set()
    for j in st.by_para[p]:
        if st.quotes[j].para == p:
            out |= res[j].vocatives
    return out


def _narration_before(st: Attributor, i: int) -> bool:
    """Is quote i the first of its paragraph with narration (not a quote) just before it?"""
    q = st.quotes[i]
    return q.para > 0 and not st.by_para.get(q.para - 1)


def resolve_pronoun(st: Attributor, i: int, gender: str | None, res: list[Attribution],
                     final: bool = False) -> tuple[str | None, float, str | None]:
    if gender is None:
        return None, 0.0, None
    q = st.quotes[i]
    voc = res[i].vocatives
    ps, pe = st.paras[q.para]
    # 1. an antecedent in the same paragraph, before the quote ends
    same = [m for m in subject_mentions(st, ps, q.outer[-1][1], gender) if m.cid not in voc
            and not any(s <= m.start < e for s, e in q.outer)]
    same = [m for m in same if not any(st.quotes[j].outer[0][0] <= m.start < st.quotes[j].outer[-1][1]
                                        for j in st.by_para.get(q.para, []))]
    if same:
        return same[0].cid, 0.85, "same-subj"
    rk = st.turn_of.get(i)
    # `she added`, `he went on`: the speaker of the turn before goes on
    if rk and res[i].verb and _CONTINUE.search(res[i].verb):
        prev = _turn_speaker(st, rk[0], rk[1] - 1, res)
        if prev and st.index.gender.get(prev) == gender and prev not in voc:
            return prev, 0.8, "continue"
    # any mention of that gender in the paragraph (possessives too)
    same = [m for m in st.mentions(ps, q.outer[0][0])
            if st.index.gender.get(m.cid) == gender and m.cid not in voc
            and not PREP.search(st.text[max(ps, m.start - 16):m.start])
            and not any(st.quotes[j].outer[0][0] <= m.start < st.quotes[j].outer[-1][1]
                        for j in st.by_para.get(q.para, []))]
    if same:
        return same[-1].cid, 0.75, "same-any"
    # 2. a new exchange after narration: the character of that gender the narration is about
    if _narration_before(st, i):
        s0, e0 = st.paras[q.para - 1]
        ms = [m for m in subject_mentions(st, s0, e0, gender) if m.cid not in voc]
        if ms:
            cnt: dict[str, int] = {}
            for m in ms:
                cnt[m.cid] = cnt.get(m.cid, 0) + 1
            best = max(cnt, key=lambda c: (cnt[c], -[m.cid for m in ms].index(c)))
            return best, 0.8, "narr-before"
    if rk is None:
        return None, 0.0, None
    r, k = rk
    p1, p2 = _turn_speaker(st, r, k - 1, res), _turn_speaker(st, r, k - 2, res)
    # 4. whoever the previous turn addressed answers
    pv = [c for c in _turn_vocatives(st, r, k - 1, res) if st.index.gender.get(c) == gender and c != p1 and c not in voc]
    if len(pv) == 1:
        return pv[0], 0.8, "prev-addressee"
    # 3. in an exchange: the one who spoke two turns before, when the gender fits
    if p2 and p2 != p1 and p2 not in voc and st.index.gender.get(p2) == gender and (p1 or final):
        return p2, 0.8, "p2"
    parts = [c for c in _participants(st, i, res) if st.index.gender.get(c) == gender and c not in voc]
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
    for cid in recent_candidates(st, i, res, gender):
        if cid != p1 and cid not in voc:
            return cid, 0.6, "recent"
    return None, 0.0, None
