"""Speech tags after a quotation (functions over the attribution's state, used by
`explicit_tags.tag`).

`"…," said Alice`, `"…," she replied`, `"…," scoffed Anne`, `"…" came Tibby's voice`, `"…," was Marilla's comment`,
and the voice or hearing forms right before a quote; a lower-case description (`said the beadle`) is sorted by how
surely it names one person (`_descr_rule`). Uses the Attributor's text, name index and mentions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .kinship import KIN_NOUNS
from .speaker_guess import Attribution
from ..text.speech_tags import (_ADV, _AFTER_VERB, _LEAD, _NP_AFTER_VERB, _NP_BEFORE_VERB, _PRON_AFTER_VERB,
                          _PRON_BEFORE_VERB, _SENT_END, _VERB_ONLY, ADJ_BARE, ADJ_THE, HEARD, HEARD_VERB, NAME_PREFIX,
                          NOUN_GENDER, PRON_GENDER, REPLY_NOUN, VERBS_EN, WAS_REPLY)
from .role_descr import lead_role_tag, post_role_tag, scene_role

if TYPE_CHECKING:
    from .attributor import Attributor

# `said the mariner`, `said the old sailor`, `said the Lory`: a definite description ending the tag (the head last)
_OUTSIDER = re.compile(r"the\s+(?:[A-Za-z\-]+\s+){0,2}?([A-Za-z\-]+)(?=\s*(?:[,.;:!?\-\u2014\"\u201d]|$))")
# heads that point back at someone in the scene (`said the other`, `the latter`) or are no person
_NOT_OUTSIDER = {"other", "latter", "former", "first", "second", "third", "last", "same", "one", "two", "voice",
                 "others", "rest", "whole", "next", *KIN_NOUNS}


def post_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """A tag right after a closing quote mark (or between two parts of one utterance)."""
    t = st.text
    m = _AFTER_VERB.match(t, s, e)
    if m:
        pos = m.end()
        nm = st.index.match_at(t, pos, e)
        if nm and (nm.group(1)[:1].isupper() or re.match(r"(?:the|an?)\s", nm.group(0))):
            cid = st.index.lookup(nm.group(1))
            if cid:  # `said the painter` (lower case): a description, weaker than a name
                rule = "verb-name" if nm.group(1)[:1].isupper() else _descr_rule(st, cid, nm.group(0))
                if rule == "verb-descr/role-spread":  # `said the doctor`: the doctor of this scene
                    cid, rule = scene_role(st, _core(nm.group(0)), pos, stub=cid) or (cid, rule)
                return Attribution(cid, 0.95, "explicit-verb", rule, nm.group(0))
        got = post_role_tag(st, pos, e)  # `said the doctor`, no one listed as `the doctor`
        if got:
            return Attribution(got[0], 0.95, "explicit-verb", got[1], got[2])
        am = ADJ_THE.match(t, pos, e)  # `said the unsympathetic Marilla`
        nm = st.index.match_at(t, am.end(), e) if am else None
        if nm and nm.group(0) == nm.group(1) and st.index.lookup(nm.group(1)):
            return Attribution(st.index.lookup(nm.group(1)), 0.95, "explicit-verb", "verb-adj-name", nm.group(0))
        dm = re.match(r"(?:this|that)\s+", t[pos:e])  # `said this emissary`: a description named before
        nm = st.index.match_at(t, pos + dm.end(), e) if dm else None
        if nm and nm.group(0) == nm.group(1) and nm.group(1)[:1].islower() and st.index.lookup(nm.group(1)):
            cid = st.index.lookup(nm.group(1))
            kind = _descr_rule(st, cid, "the " + nm.group(1)).split("/")[1]
            if kind in ("alias", "role"):
                return Attribution(cid, 0.95, "explicit-verb", "verb-this-descr/" + kind, "this " + nm.group(0))
        am = ADJ_BARE.match(t, pos, e)  # `said wise Lucy`, `stammered unhappy Matthew`
        nm = st.index.match_at(t, am.end(), e) if am else None
        if nm and nm.group(0) == nm.group(1) and nm.group(1)[:1].isupper() and st.index.lookup(nm.group(1)):
            return Attribution(st.index.lookup(nm.group(1)), 0.95, "explicit-verb", "verb-adj-name/bare", nm.group(0))
        pm = _PRON_AFTER_VERB.match(t, pos, e)
        if pm:
            return Attribution(want_gender=PRON_GENDER.get(pm.group(1).lower()), pron_tag=True, surface=pm.group(1),
                               rule="verb-pronoun", verb=m.group(0), addressees=addressees(st, pm.end(), e))
        npm = _NP_AFTER_VERB.match(t, pos, e)
        if npm and npm.group(1) in NOUN_GENDER:
            return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                               rule="verb-noun", verb=m.group(0), addressees=addressees(st, npm.end(), e))
        om = _OUTSIDER.match(t, pos, e)
        if om and om.group(1).lower() not in NOUN_GENDER and om.group(1).lower() not in _NOT_OUTSIDER:
            # `said the mariner`: a description that names no cast member; turn-taking keeps cast members off it
            return Attribution(outsider=True, rule="verb-outsider", surface=om.group(0))
    lead = re.match(_LEAD, t[s:e]).end() + s
    pre = NAME_PREFIX.match(t, lead, e)
    nm = st.index.match_at(t, pre.end() if pre else lead, e)
    if nm and nm.group(1)[:1].isupper():
        vm = _VERB_ONLY.match(t, nm.end(), e)
        cid = st.index.lookup(nm.group(1))
        if vm and cid:
            return Attribution(cid, 0.95, "explicit-verb", "name-verb", nm.group(0))
        a = _heard_tag(st, nm.end(), e)
        if a:
            return a
    elif nm and re.match(r"the\s", nm.group(0)) and _VERB_ONLY.match(t, nm.end(), e) and st.index.lookup(nm.group(1)):
        cid = st.index.lookup(nm.group(1))  # `"…," the butler continued`: a description, as `said the butler`
        kind = _descr_rule(st, cid, nm.group(0)).split("/")[1]
        if kind in ("alias", "role"):  # (a generic `the man` or a widespread role: left to the turn model)
            return Attribution(cid, 0.95, "explicit-verb", "descr-verb/" + kind, nm.group(0))
        got = scene_role(st, _core(nm.group(0)), nm.start(), stub=cid) if kind == "role-spread" else None
        if got:  # `"…," the doctor continued`: the doctor of this scene
            return Attribution(got[0], 0.95, "explicit-verb", "descr-verb/" + got[1].split("/")[1], nm.group(0))
    if nm is None and (got := lead_role_tag(st, lead, e)):  # `"…," the doctor continued`, nobody listed so
        return Attribution(got[0], 0.95, "explicit-verb", "descr-verb/" + got[1].split("/")[1], got[2])
    a = _other_verb_tag(st, s, e) or _reply_noun_tag(st, s, e) or _voice_post_tag(st, s, e)
    if a:
        return a
    pm = _PRON_BEFORE_VERB.match(t, s, e) or _pronoun_other_verb(st, s, e)
    if pm:
        return Attribution(want_gender=PRON_GENDER.get(pm.group(1).lower()), pron_tag=True, surface=pm.group(1),
                           rule="pronoun-verb", verb=pm.group(0), addressees=addressees(st, pm.end(), e))
    npm = _NP_BEFORE_VERB.match(t, s, e)
    if npm and npm.group(1) in NOUN_GENDER:
        return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                           rule="noun-verb", verb=npm.group(0), addressees=addressees(st, npm.end(), e))
    return None

_PRON_OTHER_VERB = re.compile(_LEAD + r"(he|she|I)\s+(?:[a-z]+ly\s+)?[a-z]+ed\b")


def _pronoun_other_verb(st: Attributor, s: int, e: int):
    """`"…," she smirked`: after a quotation that ends with a comma, `he`/`she`/`I` and a verb not in the list is
    its tag, as `"…," Anne scoffed` is (`_other_verb_tag`)."""
    return _PRON_OTHER_VERB.match(st.text, s, e) if "," in st.text[max(0, s - 3):s] else None

_OTHER_VERB = re.compile(_LEAD + r"(?:and\s+)?([a-z]+ed)" + _ADV + r"\s+")


def _other_verb_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """An inverted tag with a verb not in the list (`"…," scoffed Anne`: inversion after a quote is
    a speech tag), or, after a comma-ended quote, `"…," Anne scoffed`."""
    t = st.text
    if st.index.regex is None:
        return None
    def named(pos: int):
        nm = st.index.match_at(t, pos, e)
        return (nm, st.index.lookup(nm.group(1))) if nm and nm.group(1)[:1].isupper() else (nm, None)

    m = _OTHER_VERB.match(t, s, e)
    nm, cid = named(m.end()) if m else (None, None)
    if cid:
        return Attribution(cid, 0.95, "explicit-verb", "xverb-name", nm.group(0))
    if nm and re.match(r"the\s", nm.group(0)) and st.index.lookup(nm.group(1)):  # `"…," stipulated the stranger`
        cid = st.index.lookup(nm.group(1))
        kind = _descr_rule(st, cid, nm.group(0)).split("/")[1]
        if kind in ("alias", "role"):
            return Attribution(cid, 0.95, "explicit-verb", "xverb-descr/" + kind, nm.group(0))
        got = scene_role(st, _core(nm.group(0)), nm.start(), stub=cid) if kind == "role-spread" else None
        if got:
            return Attribution(got[0], 0.95, "explicit-verb", "xverb-descr/" + got[1].split("/")[1], nm.group(0))
    end = t[max(0, s - 3):s]
    if "," not in end and "?" not in end and "!" not in end:
        return None
    lead = re.match(_LEAD, t[s:e]).end() + s
    pre = NAME_PREFIX.match(t, lead, e)
    nm, cid = named(pre.end() if pre else lead)
    if cid and re.match(r"\s+(?:had\s+|would\s+have\s+)?(?:\w+ly\s+)?[a-z]+ed\b", t[nm.end():e]):
        return Attribution(cid, 0.95, "explicit-verb", "name-xverb" if "," in end else "name-xverb-q", nm.group(0))
    return None


def named(st: Attributor, pos: int, e: int):
    """(match, character id) of a capitalised name starting at pos, or (match or None, None)."""
    nm = st.index.match_at(st.text, pos, e)
    return (nm, st.index.lookup(nm.group(1))) if nm and nm.group(1)[:1].isupper() else (nm, None)


def _heard_tag(st: Attributor, pos: int, e: int) -> Attribution | None:
    """`"…," Archer heard Lawrence Lefferts say, "…"`: the one heard is the speaker."""
    hm = HEARD.match(st.text, pos, e)
    nm, cid = named(st, hm.end(), e) if hm else (None, None)
    if cid and HEARD_VERB.match(st.text, nm.end(), e):
        return Attribution(cid, 0.95, "explicit-verb", "heard-name-say", nm.group(0))
    return None


def heard_pre_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """`I heard Mrs. Inglethorp call "Cynthia"`, `Archer heard Madame Olenska say, in an Italian …: "…`:
    the one heard, right before the quote, speaks."""
    t = st.text
    hm = None
    for hm in re.finditer(r"\bheard\s+", t[max(s, e - 160):e]):
        pass
    pos = max(s, e - 160) + hm.end() if hm else None
    nm, cid = named(st, pos, e) if hm else (None, None)
    if cid and HEARD_VERB.match(t, nm.end(), e) and not st.mentions(nm.end(), e) \
            and not re.search(r"[.!?;]\s|\b(?:he|she|I)\b", t[nm.end():e]) and e - nm.end() <= 100:
        return Attribution(cid, 0.95, "explicit-verb", "heard-name-say", nm.group(0))
    return None


def _reply_noun_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """`"…," was Marilla's comment.` / `"…," was the firm reply of Mr. Limbkins.` / `"…" It was Poirot who spoke.`"""
    t = st.text
    wm = WAS_REPLY.match(t, s, e)
    if wm:
        pm = re.match(r"((?:[^'’\n]|\n(?!\s*\n)){1,60}?)(?:'s|’s| s)\s+(?:[a-z\-]+\s+){0,3}" + REPLY_NOUN + r"\b", t[wm.end():e])
        nm, cid = named(st, wm.end(), wm.end() + len(pm.group(1))) if pm else (None, None)
        if cid and nm.group(0) == nm.group(1) and nm.end() == wm.end() + len(pm.group(1)):
            return Attribution(cid, 0.95, "explicit-verb", "was-name-reply", nm.group(0))
        om = re.match(r"the\s+(?:[a-z\-]+\s+){0,3}" + REPLY_NOUN + r"\s+of\s+", t[wm.end():e])
        nm, cid = named(st, wm.end() + om.end(), e) if om else (None, None)
        if cid:
            return Attribution(cid, 0.95, "explicit-verb", "was-name-reply", nm.group(0))
    fm = re.match(r"[\s,;:.!?\-—–]*from\s+", t[s:e])  # `"M--m--m!" from Mr. Wilcox, who thought…`
    nm, cid = named(st, s + fm.end(), e) if fm else (None, None)
    if cid and re.match(r"\s*(?:[,.;:!?)]|—|--|$)", t[nm.end():e]):
        return Attribution(cid, 0.95, "explicit-verb", "from-name", nm.group(0))
    im = re.match(_LEAD + r"It\s+was\s+", t[s:e])
    nm, cid = named(st, s + im.end(), e) if im else (None, None)
    if cid and re.match(r"\s+who\s+(?:had\s+)?(?:spoken|" + VERBS_EN + r")\b", t[nm.end():e]):
        return Attribution(cid, 0.95, "explicit-verb", "it-was-name", nm.group(0))
    return None

_VOICE = r"(?:[a-z\-]+\s+){0,2}?(?:voice|tones?|accents)\b"
_POSS = r"(?:'s|’s| s)\s+"

_POSS_NAME = r"((?:[A-Z][\w.-]*\s+|(?:van|de|der|von)\s+){0,3}[A-Z][\w-]*)"


def _poss_lookup(st: Attributor, name: str) -> str | None:
    """The character of the longest listed name ending `name` (`Mrs. Archer`, else `Archer`)."""
    words = name.split()
    return next((c for k in range(len(words)) if (c := st.index.lookup(" ".join(words[k:])))), None)


def _voice_post_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """`"…" came Tibby's voice`, `cried the muffled voice of Kemp`, `"…" at last broke explosively from
    Janey`, `"…" loudly whispered by Aunt Juley`: the voice, or the one it came from, is the speaker."""
    t = st.text
    m = re.match(_LEAD + r"(?:(?:at\s+last|then|again|now|suddenly)\s+)?(?:\w+ly\s+)?(?:" + VERBS_EN + r"|came|rose|sounded|rang\s+out)"
                 r"\s+(?:\w+ly\s+)?(?:in\s+)?the\s+" + _VOICE + r"\s+of\s+(?:(?:old|young|little|poor)\s+)?", t[s:e])
    nm, cid = named(st, s + m.end(), e) if m else (None, None)
    if cid:
        return Attribution(cid, 0.95, "explicit-verb", "voice-name", nm.group(0))
    m = re.match(_LEAD + r"(?:(?:at\s+last|then|again|now|suddenly)\s+)?(?:\w+ly\s+)?(?:(?:" + VERBS_EN + r"|came|rose|sounded)\s+"
                 + _POSS_NAME + _POSS + _VOICE + r"|(?:came|broke|burst|escaped)\s+from\s+" + _POSS_NAME
                 + _POSS + r"(?:[a-z\-]+\s+){0,2}(?:lips|mouth)\b)", t[s:e])  # `came from Sir Thomas s tight lips`
    name = m and (m.group(1) or m.group(2))
    cid = _poss_lookup(st, name) if name else None
    if cid:
        return Attribution(cid, 0.95, "explicit-verb", "voice-name", name)
    m = re.match(_LEAD + r"(?:(?:at\s+last|then|again|now|suddenly)\s+)?(?:(?:broke|burst|came|escaped)\s+(?:\w+ly\s+)?from|"
                 r"(?:\w+ly\s+)?(?:" + VERBS_EN + r")\s+by)\s+", t[s:e])
    nm, cid = named(st, s + m.end(), e) if m else (None, None)
    if cid and re.match(r"\s*(?:[,.;:!?)]|—|--|$)", t[nm.end():e]):
        return Attribution(cid, 0.95, "explicit-verb", "from-name", nm.group(0))
    return None


def voice_pre_tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """`… and May's eager voice broke out, covering the embarrassed silence:` / `after an interval May's voice:` /
    `Mrs. Archer's last word had been:`: the owner of the voice (or word) right before the quote speaks."""
    t = st.text
    seg = t[s:e].rstrip()
    if not seg.endswith((":", ",", "—", ".")):
        return None
    e = s + len(seg)
    lo = max(s, e - 120)
    for m in _SENT_END.finditer(t, lo, e - 1):
        lo = m.end()
    vm = None  # `…, and the voice of Mr. Heelas bellowing like a bull.`
    for vm in re.finditer(r"\bthe\s+" + _VOICE + r"\s+of\s+", t[lo:e]):
        pass
    nm, cid = named(st, lo + vm.end(), e) if vm else (None, None)
    if cid and not st.mentions(nm.end(), e) and not re.search(r"\b(?:he|she|I)\b", t[nm.end():e]) and e - nm.end() <= 60:
        return Attribution(cid, 0.9, "explicit-verb", "voice-name", nm.group(0))
    found = None  # (a possessive is never a mention: matched here)
    for m in re.finditer(r"\b" + _POSS_NAME + _POSS + r"(?:" + _VOICE
                         + r"|(?:[a-z\-]+\s+){0,2}?(?:" + REPLY_NOUN + r"|word)\b)", t[lo:e]):
        cid = _poss_lookup(st, m.group(1))
        if cid:
            found = (cid, lo + m.end(1), m.group(1))
    if found is None or st.mentions(found[1], e) or re.search(r"\b(?:he|she|I)\b", t[found[1]:e]) \
            or len(t[found[1]:e]) > 80:
        return None
    return Attribution(found[0], 0.9, "explicit-verb", "voice-name", found[2])

_ROLE_SPAN = 0.15  # a role name (`the doctor`) used across more of the book than this may be several people


def _descr_rule(st: Attributor, cid: str, surface: str) -> str:
    """The rule of `said the X` (a lower-case description): `verb-descr/generic` for a bare common noun
    (`the man`), `/alias` when it is another name of a character who has a proper name (`the beadle`:
    Mr. Bumble), `/role` for a character known only by a role (or a long description), `/role-spread` when a
    short role is mentioned across much of the book (`the doctor` of a long book is rarely one person)."""
    core = _core(surface)
    words = core.split()
    if core in NOUN_GENDER or (len(words) == 2 and words[0] in ("young", "old", "little") and words[1] in NOUN_GENDER):
        return "verb-descr/generic"
    c = st.index.characters[cid]
    if any(n[:1].isupper() and not re.match(r"(?:the|an?|one)\s", n, re.I) for n in [c.name, *c.aliases]):
        return "verb-descr/alias"
    if len(words) >= 3 or _share_spanned(st, core) <= _ROLE_SPAN:
        return "verb-descr/role"
    return "verb-descr/role-spread"


def _core(surface: str) -> str:
    """`the  Doctor` -> `doctor`: a description without its article, lower case, single-spaced."""
    return re.sub(r"^(?:the|an?)\s+", "", " ".join(surface.split()).lower())


def _share_spanned(st: Attributor, core: str) -> float:
    """The share of the book between the first and the last `the <core>`."""
    memo = st.__dict__.setdefault("_span_memo", {})
    if core not in memo:
        pat = re.compile(r"\bthe\s+" + r"\s+".join(re.escape(w) for w in core.split()) + r"\b", re.I)
        first = pat.search(st.text)
        last = first
        for last in pat.finditer(st.text, first.start() if first else 0):
            pass
        memo[core] = (last.start() - first.start()) / max(1, len(st.text)) if first else 0.0
    return memo[core]


def addressees(st: Attributor, s: int, e: int) -> set:
    """`… to Jane` / `… to Miss Bennet` right after a speech verb: the person spoken to."""
    m = re.match(r"[\w\s]{0,30}?\bto\s+", st.text[s:min(e, s + 60)])
    if not m or st.index.regex is None:
        return set()
    nm = st.index.match_at(st.text, s + m.end(), e)
    cid = st.index.lookup(nm.group(1)) if nm and nm.group(1)[:1].isupper() else None
    return {cid} if cid else set()
