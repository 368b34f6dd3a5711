"""Speech tags in the narration before a quotation (functions over the attribution's state,
used by `explicit_tags.tag`).

`Mr. Bennet replied, "…`, `the White Rabbit, who said`, `heard her kiss Lucy and say:` (`pre_tag`), and a
narration sentence whose subject speaks next (`Newland laughed.  "…`, `subject_before`; `Mr. Mace began at once.`
before a quote paragraph, `bare_prev`, only a hint for turn-taking).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .speaker_guess import Attribution
from ..text.speech_tags import _SENT_END, _V, HEARD_VERB, NAME_PREFIX, NOUN_GENDER, NP_SUBJECT, NP_WHO, PRON_GENDER, VERBS_EN
from .tags_after import addressees, named

if TYPE_CHECKING:
    from .attributor import Attributor


PREP = re.compile(r"(?:\b(?:to|at|with|of|for|on|in|by|from|upon|towards?|than|like|about|after|before|behind|beside|near|into|addressing|seeing)\s+(?:the\s+|poor\s+|dear\s+)?)$", re.I)

# `…, for the White Rabbit cried out,`: `for` after a comma opens a clause (a conjunction), its name the subject
_FOR_SUBJECT = re.compile(r",\s+for\s+(?:the\s+)?$")

_SUBORD = re.compile(r"\b(?:what|who|whom|whose|when|whenever|as|that|while|though|although|if|till|until|because|"
                     r"since|which|where|whether|than|before|after)\s+(?:[a-z]+\s+)?$", re.I)

_OBJ_VERB = re.compile(r"(?:^|[\s,;])(?!(?:" + VERBS_EN + r"|indeed|need|seed|proceed)\b)([a-z]+ed|saw|heard|told|kiss|see|hear|"
                       r"tell|meet|met|leave|left|bade|thank|dismiss|join|watch|follow|notice|seized|kissed)\s+"
                       r"(?:both\s+|the\s+)?$")


def _is_object(st: Attributor, before: str) -> bool:
    """`the Rabbit noticed Alice, … and called out`, `heard her kiss Lucy and say:`: a name right after a
    verb that is not a speech verb is its object (`the excited Alice` is not: an article before the -ed word)."""
    m = _OBJ_VERB.search(before)
    return bool(m) and not re.search(r"\b(?:the|a|an|his|her|their|poor|dear|my|our|your|very|so|most|more)\s+$",
                                     before[:m.start(1)])


def _past_verb(st: Attributor, v: int) -> bool:
    """The speech verb at v is a finite past (`said`), not a bare infinitive (`heard Lucy say`, `saw her
    walk up … and hear her say`: there the person seen or heard speaks)."""
    return not re.match(r"(?:say|add|ask|cry|call|exclaim|reply|answer|whisper|shout|murmur|remark|observe|begin|"
                        r"continue|go\s+on|speak|repeat|declare|mutter)\b", st.text[v:v + 12])


def _tag_subjects(st: Attributor, a: int, b: int, subord: bool = False) -> list[tuple[int, str | None, str | None, str]]:
    """Possible subjects of a speech verb in text[a:b]: names and he/she that are neither objects
    of a preposition, possessives, nor inside a subordinate clause (`subord`: names inside one
    too, `…, when Mr. Bumble rushed into the room, and … said,`)."""
    t = st.text
    cands = []
    for nm in st.mentions(a, b):
        if t.count("(", a, nm.start) > t.count(")", a, nm.start):  # `(it was Newland who bought them)`
            continue
        before = t[max(a, nm.start - 16):nm.start]
        if PREP.search(before) or (_SUBORD.search(before) and not subord) or t[nm.end:nm.end + 2] in ("'s", "’s") \
                or (_is_object(st, t[max(a, nm.start - 30):nm.start]) and _past_verb(st, b)
                    and not re.search(r",\s*who\b", t[nm.end:b])):
            continue
        cands.append((nm.start, nm.cid, None, nm.surface))
    if subord:
        return cands
    for pm in re.finditer(r"\b(he|she|I)\b" if st.index.narrator else r"\b(he|she)\b", t[a:b], re.I):
        pos = a + pm.start()
        before = t[max(a, pos - 16):pos]
        if PREP.search(before) or _SUBORD.search(before):
            continue
        if pm.group(1) == "i":
            continue
        cands.append((pos, None, PRON_GENDER[pm.group(1).lower()], pm.group(1)))
    return cands

_APPOS = re.compile(r",\s*(?!and\b|but\b|or\b)[^,;:\"“”()]{2,80},\s*(?:(?:\w+ly|then|now|again|at\s+last|at\s+once)\s+)*$")
# `, who said` / `, who, flying to her, cried`
_WHO = re.compile(r",\s*who(?:\s*,[^,;:\"“”()]{2,60},)?\s+(?:(?:\w+ly|then|now|again|had|at\s+last|at\s+once)\s+)*$")


def _appositive_subject(st: Attributor, a: int, v: int) -> tuple[str, str, str] | None:
    """(id, surface, rule) of the name the speech verb at v is predicated of across a comma clause:
    `Margaret, thoughtful again, said` (`pre-name-appos-verb`) or `… at the White Rabbit, who said`
    (`pre-name-who-verb`). Not `Alice, as she went about, and called out` (a new clause: `and`)."""
    t = st.text
    for nm in reversed(st.mentions(a, v)):
        if t[nm.end:nm.end + 2] in ("'s", "’s"):
            continue
        gap = t[nm.end:v]
        if _WHO.match(gap):
            return nm.cid, nm.surface, "pre-name-who-verb"
        if _APPOS.match(gap) and not PREP.search(t[max(a, nm.start - 16):nm.start]) \
                and not st.mentions(nm.end, v) and not re.search(r"\b(?:he|she|they|I)\b", gap):
            return nm.cid, nm.surface, "pre-name-appos-verb"
        return _name_before_aside(st, a, v)
    return None


def _name_before_aside(st: Attributor, a: int, v: int) -> tuple[str, str, str] | None:
    """`while Miss Bartlett, under the impression that she was snubbing George, added:`: the name right before a
    comma-enclosed aside that ends at the speech verb, whatever the aside names."""
    t = st.text
    m = _APPOS.search(t, a, v)
    if m is None or m.end() != v:
        return None
    before = [nm for nm in st.mentions(a, m.start()) if not t[nm.end:m.start()].strip()]
    if not before or t[before[-1].end:before[-1].end + 2] in ("'s", "’s") \
            or PREP.search(t[max(a, before[-1].start - 16):before[-1].start]):
        return None
    return before[-1].cid, before[-1].surface, "pre-name-appos-verb"

_HEAR_OBJ = re.compile(r"\b(?:hear|hears|heard|hearing)\s+(him|her|it|them|[A-Z])")


def _heard_object(st: Attributor, a: int, v: int) -> Attribution | bool | None:
    """The speaker of a verb heard said (`heard her kiss Lucy and say`): the one heard, not the hearer nor a
    name in between. None when the clause before the verb at v hears nobody; False when the one heard is no
    name or pronoun (`heard them say`: nobody in particular)."""
    t = st.text
    hm = None
    for hm in _HEAR_OBJ.finditer(t, a, v):
        pass
    # the verb heard is a bare infinitive right after the one heard (`hear it say`, `heard her kiss Lucy and say`),
    # not `hearing Prissy Andrews's Latin`, `heard her attentively, and then said` (a new clause: its subject speaks)
    if hm is None or not HEARD_VERB.match(" " + t[v:v + 12]) or re.search(r"[,.!?;:]|\b(?:he|she|I|they)\b", t[hm.end():v]) \
            or v - hm.end() > 40:
        return None
    word = hm.group(1)
    if word[0].isupper():
        nm, cid = named(st, hm.start(1), v)
        if cid and nm.start() == hm.start(1) and t[nm.end():nm.end() + 2] not in ("'s", "’s"):
            return Attribution(cid, 0.95, "explicit-verb", "heard-name-say", nm.group(0))
        return False
    if word in ("him", "her"):
        return Attribution(want_gender=PRON_GENDER[word], pron_tag=True, surface=word, rule="heard-pronoun-say",
                           verb=t[v:v + 12].split()[0])
    return False


def pre_tag(st: Attributor, s: int, e: int, full_stop: bool = False) -> Attribution | None:
    """A tag in the narration just before an opening quote mark: `Mr. Bennet replied, "…`,
    `Lady Catherine approached, and, after listening for a few minutes, said to Darcy,`."""
    t = st.text
    seg = t[s:e].rstrip()
    if full_stop and seg.endswith("."):
        seg = seg[:-1]
    if not seg.strip() or not re.search(r"(?:[,:\-—]|" + _V + r")\s*$", seg):
        return None
    e = s + len(seg)
    # `…, when thus accosted by Miss Bingley,` / `addressed by her mother:`: the agent speaks
    ms = st.mentions(max(s, e - 80), e)
    if ms and re.fullmatch(r"[\s,:\-—]*", t[ms[-1].end:e]) \
            and re.search(r"\b\w+ed\s+by\s+$", t[max(s, ms[-1].start - 40):ms[-1].start]):
        return Attribution(ms[-1].cid, 0.9, "explicit-verb", "pre-by-name", ms[-1].surface)
    # the last speech verb, close to the quote, with nothing after it but a short complement
    vm = None
    for m in re.finditer(r"\b" + _V, t[max(s, e - 140):e]):
        vm = m
    if vm is None:
        return None
    v_start = max(s, e - 140) + vm.start()
    tail = t[v_start + len(vm.group(0)):e]
    if re.search(r"[.!?;]\s", tail) or len(tail) > 70:
        return None
    # the clause holding the verb (cut at ; too), else the whole sentence
    cut = sent = s
    for m in _SENT_END.finditer(t, s, v_start):
        if m.end() <= v_start:
            cut = m.end()
            if m.group(0)[0] in ".!?":
                sent = m.end()
    heard = _heard_object(st, cut, v_start)
    if heard is not None:  # `Mr. Beebe heard her kiss Lucy and say:` / `in time to hear it say,`
        return heard or None
    cands = _tag_subjects(st, cut, v_start)
    appos = _appositive_subject(st, cut, v_start)
    if appos:  # `while Margaret, thoughtful again, said:` / `the White Rabbit, who said in a low voice,`
        return Attribution(appos[0], 0.9, "explicit-verb", appos[2], appos[1])
    wm = NP_WHO.search(t, cut, v_start)
    kin = st.mentions(wm.start(), v_start) if wm else []
    if len(kin) == 1 and kin[0].start == wm.start():  # `his father …, who said`, the father known (`kinship`)
        return Attribution(kin[0].cid, 0.9, "explicit-verb", "pre-name-who-verb", kin[0].surface)
    if wm and not kin:  # `looked at his father for permission, who said`
        return Attribution(want_gender=NOUN_GENDER.get(wm.group(1)), pron_tag=True, surface=wm.group(0).split(",")[0],
                           rule="pre-noun-verb", verb=vm.group(0), addressees=addressees(st, v_start + len(vm.group(0)), e))
    for nm in st.mentions(cut, v_start):  # `…, when Elizabeth called out,`: the name right before the verb
        right_before = re.fullmatch(r"\s+(?:(?:\w+ly|then|now|again|at\s+last|at\s+once|instantly|immediately)\s+)*",
                                    t[nm.end:v_start]) and t[nm.end:nm.end + 2] not in ("'s", "’s")
        after_for = _FOR_SUBJECT.search(t[max(s, nm.start - 24):nm.start])  # `, for X cried`: X is no object
        if right_before and (after_for or not PREP.search(t[max(cut, nm.start - 16):nm.start])):
            cands = [(nm.start, nm.cid, None, nm.surface)]
    sub = not cands
    if sub:  # only a name inside a subordinate clause (`till Archer roused himself to say:`)
        cands = _tag_subjects(st, cut, v_start, subord=True)
    if not cands and sent < cut:
        sub = False
        cands = _tag_subjects(st, sent, v_start)
        if not cands:
            sub, cands = True, _tag_subjects(st, sent, v_start, subord=True)
    if not cands:
        by = re.match(r"\s+by\s+", tail)
        nm = st.index.match_at(t, v_start + len(vm.group(0)) + by.end(), e) if by else None
        if nm and st.index.lookup(nm.group(1)):  # `thus accosted by Miss Bingley,`
            return Attribution(st.index.lookup(nm.group(1)), 0.9, "explicit-verb", "pre-by-name", nm.group(0))
        return None
    pos, cid, gender, surface = (min if sub else max)(cands, key=lambda c: c[0])
    if sub and re.search(r"\b(?:the|his|her)\s+[a-z]+\s+(?:\w+ly\s+)*$", t[pos:v_start]):
        return None  # `as Archer made no effort …, the lawyer continued:`
    npm = NP_SUBJECT.search(t, cut, v_start)
    if npm and npm.start() > pos:  # `…, and his mother added:`: the noun phrase is the subject, not the name
        return Attribution(want_gender=NOUN_GENDER.get(npm.group(1)), pron_tag=True, surface=npm.group(0).strip(" ,"),
                           rule="pre-noun-verb", verb=vm.group(0), addressees=addressees(st, v_start + len(vm.group(0)), e))
    if cid:
        return Attribution(cid, 0.9, "explicit-verb", "pre-name-verb/sub" if sub else "pre-name-verb", surface)
    return Attribution(want_gender=gender, pron_tag=True, surface=surface, rule="pre-pronoun-verb",
                       verb=vm.group(0), addressees=addressees(st, v_start + len(vm.group(0)), e))

_BARE_REST = re.compile(r"\s+(?:(?:\w+ly|then|now|again|at\s+once|at\s+last|at\s+length|was|had)\s+)*(?:" + VERBS_EN
                        + r"|went\s+on|began|continued|proceeded|resumed|was\s+continuing)(?:\s+(?:\w+ly|again|then|now|at\s+once|"
                        r"at\s+last|at\s+length|aloud|on|in|out))*\s*\.")  # with a colon it is a tag (`_tag`), not a hint


def bare_prev(st: Attributor, s: int, e: int) -> Attribution | None:
    """A narration paragraph ending with a bare sentence `Poirot went on.` / `Mr. Mace began at once.` /
    `Lawrence stammered pitiably.` (name, speech verb, adverbs, nothing else) before a quote paragraph:
    that person likely speaks (`prev-name-verb/bare`, kept as a hint for turn-taking)."""
    t = st.text
    seg = t[s:e].rstrip()
    e = s + len(seg)
    if not seg or seg[-1] != ".":  # `X replied:` before the quote paragraph is its tag, not a hint
        return None
    start = s
    for m in _SENT_END.finditer(t, s, e - 1):
        if m.end() < e - 1:
            start = m.end()
    lead = _SUBJ_LEAD.match(t, start, e).end()
    pre = NAME_PREFIX.match(t, lead, e)
    nm, cid = named(st, pre.end() if pre else lead, e)
    if not cid or t[nm.end():nm.end() + 2] in ("'s", "’s") or not _BARE_REST.fullmatch(t, nm.end(), e):
        return None
    return Attribution(cid, 0.9, "explicit-verb", "prev-name-verb/bare", nm.group(0))


def hint(a: Attribution | None) -> Attribution | None:
    """A weak clue kept as a hint: no speaker, so turn-taking decides; calibration scores the agreement."""
    return Attribution(hint=(a.speaker, a.rule)) if a is not None and a.rule.endswith("/one") else None

_SUBJ_LEAD = re.compile(r"(?:(?:then|and|but|so|now|here|there|at\s+last|at\s+length|presently|suddenly|instantly|"
                        r"finally|again|meanwhile|at\s+once|at\s+this|upon\s+this|on\s+this|whereupon)\b[,\s]*)*", re.I)
_SUBJ_VERB = re.compile(r"(?:,[^,\"“”]{1,60},)?\s+(?:\w+ly\s+|then\s+|now\s+|again\s+|had\s+|was\s+|at\s+once\s+)*"
                        r"(?!(?:and|or|who|whom|which|that|of|to|in|on|at|by|with|for|from|is|was|were|had|has)\b)[a-z]{2,}")

_SPEECH_ACT = re.compile(r"\b(?:" + VERBS_EN + r"|greeted|accosted|addressed|began|proceeded|interrupted|ridiculed|"
                         r"stammered|spoke|broke\s+in|burst\s+in|chimed\s+in|put\s+in|went\s+on|took\s+up|"
                         r"hailed|questioned|apologi[sz]ed|objected)\b")


def subject_before(st: Attributor, s: int, e: int, rule: str, act: bool = False) -> Attribution | None:
    """The speaker named as the subject of the narration sentence right before the quote, with no speech
    verb (`Newland laughed.  "…`, `Like a beast of prey, Heavywether fell upon him:`, a paragraph
    `Mr. Mace began at once.` before a quote paragraph): `subj`/`prev-subj`, `/colon` when the sentence
    ends with a colon (it introduces the quote), `/one` when nobody else is named in the sentence."""
    t = st.text
    seg = t[s:e].rstrip()
    end = seg[-1:] if seg else ""
    if end not in ".:!—-," or len(seg) < 3:
        return None
    e = s + len(seg)
    start = s
    for m in _SENT_END.finditer(t, s, e - 1):
        if m.end() < e - 1:
            start = m.end()
    lead = _SUBJ_LEAD.match(t, start, e).end()
    pm = re.match(r"(?:[A-Z][a-z]+\s+(?:[a-z]+\s+){0,5}?[a-z]+,\s+)?", t[lead:e])  # `Like a beast of prey, `
    pos = lead + pm.end()
    pre = NAME_PREFIX.match(t, pos, e)
    nm, cid = named(st, pre.end() if pre else pos, e)
    if not cid and pm.end():
        nm, cid = named(st, lead, e)
    if not cid and end == ":":  # `Symptoms of … became visible in her, and Archer found the strength to break in:`
        cm = None
        for cm in re.finditer(r"[,;]\s+(?:and|but|then|while|whereupon)\s+(?:then\s+)?", t[start:e]):
            pass
        nm, cid = named(st, start + cm.end(), e) if cm else (None, None)
    if not cid or t[nm.end():nm.end() + 2] in ("'s", "’s") or not _SUBJ_VERB.match(t, nm.end(), e):
        return None
    cm = None
    for cm in re.finditer(r"[,;]\s+(?:and|but|then|while|whereupon)\s+(?:then\s+)?", t[nm.end():e]):
        pass
    if cm is not None:  # `Mrs. Inglethorp turned …, and her husband addressed me:`: the last clause's subject
        later = nm.end() + cm.end()
        if re.match(r"(?:he|she|I|they|we|the|his|her|my|their|a|an)\b", t[later:e]):
            return None
        nm2, cid2 = named(st, later, e)
        if cid2 and _SUBJ_VERB.match(t, nm2.end(), e):
            nm, cid = nm2, cid2
    if act:  # a narration paragraph ending with a full stop: its verb must be a speech act
        vm = _SPEECH_ACT.search(t, nm.end(), e)
        # not reported speech (`Lucy said that this was most kind.`: the quote that follows answers it)
        if not vm or re.match(r"\s*,?\s*(?:that|if|whether|who|what|how|why|to|for|with|at|,)\b", t[vm.end():e]) \
                or re.match(r"laughed|smiled|nodded|sighed|yawned|wept|read|thought|wondered|agreed|promised|asked", vm.group(0)):
            return None
        rule += "/act"
    others = {m.cid for m in st.mentions(start, e) if t[m.end:m.end + 2] not in ("'s", "’s")
              and not PREP.search(t[max(start, m.start - 16):m.start])} - {cid}
    kind = ("/colon" if end == ":" else "") + ("/one" if not others else "")
    return Attribution(cid, 0.9, "explicit-verb", rule + kind, nm.group(0))
