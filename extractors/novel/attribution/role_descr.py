"""Scene-local resolution of a role description as a tag's subject (`said the doctor`, `the captain replied`)
where the book uses that role for several people (functions over the attribution's
state, used by the tag rules).

A role word names the one person of the scene who carries it: a cast member whose listed name has it as a
title (`Doctor Losberne`, `Dr. Bauerstein`, `Captain Hastings` for `the doctor`, `the captain`) and who is
named in the narration shortly before the tag (same chapter) -- only where exactly one such person is
(`verb-descr/role-title`); or the person the same description was last resolved to in that scene
(`verb-descr/role-scene`). Anything else stays unresolved (the widespread role is held).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from ..text.speech_tags import _VERB_ONLY

if TYPE_CHECKING:
    from .attributor import Attributor

# titles written before a name that are also roles (`the doctor` for `Dr. Losberne`); abbreviations expanded
ROLE_TITLES = {"dr": "doctor", "doctor": "doctor", "capt": "captain", "captain": "captain", "col": "colonel",
               "colonel": "colonel", "major": "major", "general": "general", "prof": "professor",
               "professor": "professor", "inspector": "inspector", "sergeant": "sergeant", "sgt": "sergeant",
               "lieutenant": "lieutenant", "lieut": "lieutenant", "admiral": "admiral", "judge": "judge",
               "superintendent": "superintendent", "constable": "constable", "governor": "governor",
               "bishop": "bishop", "dean": "dean", "archdeacon": "archdeacon", "count": "count", "countess": "countess",
               "duke": "duke", "duchess": "duchess", "marquis": "marquis", "baron": "baron", "baroness": "baroness",
               "earl": "earl", "prince": "prince", "princess": "princess", "king": "king", "queen": "queen"}

ROLE_WINDOW = 6000  # characters before the tag (within its chapter) where the person must be named


def role_of_title(name: str) -> str | None:
    """The role a listed name carries as its title (`Doctor Losberne` -> doctor), or None."""
    toks = " ".join(name.split()).split(" ")
    if len(toks) < 2 or not toks[1][:1].isupper():
        return None
    return ROLE_TITLES.get(toks[0].rstrip(".").lower())


def _titled(st: Attributor) -> dict[str, set[str]]:
    """role -> ids of the cast members whose listed names carry it as a title."""
    got = st.__dict__.get("_titled_memo")
    if got is None:
        got = {}
        for cid, c in st.index.characters.items():
            for n in [c.name, *c.aliases]:
                r = role_of_title(n)
                if r:
                    got.setdefault(r, set()).add(cid)
        st.__dict__["_titled_memo"] = got
    return got


def _para_starts(st: Attributor) -> list[int]:
    starts = st.__dict__.get("_para_starts_memo")
    if starts is None:
        starts = st.__dict__["_para_starts_memo"] = [s for s, _ in st.paras]
    return starts


def _chapter_start(st: Attributor, pos: int) -> int:
    """Start of the chapter holding text position pos (0 when unknown)."""
    p = max(0, bisect_right(_para_starts(st), pos) - 1)
    ch = st.para_ch[p] if p < len(st.para_ch) else 0
    while p > 0 and st.para_ch[p - 1] == ch:
        p -= 1
    return st.paras[p][0] if st.paras else 0


def _named_in_narration(st: Attributor, lo: int, hi: int, ids: set[str]) -> set[str]:
    """Those of ids named in the narration of text[lo:hi] (a name inside a quotation may be someone spoken of)."""
    starts = _para_starts(st)
    out = set()
    for p in range(max(0, bisect_right(starts, lo) - 1), bisect_right(starts, hi)):
        out.update(m.cid for m in st.narr_mentions.get(p, []) if m.cid in ids and lo <= m.start < hi)
    return out


def scene_role(st: Attributor, core: str, pos: int, stub: str | None = None) -> tuple[str, str] | None:
    """(id, rule) of the one person of the scene that `the <core>` at text position pos names, or None."""
    role = core.split()[-1] if core else ""
    lo = max(_chapter_start(st, pos), pos - ROLE_WINDOW)
    memo = st.__dict__.setdefault("_scene_role_memo", {})
    ids = _titled(st).get(role, set()) - {stub}
    if ids:
        named = _named_in_narration(st, lo, pos, ids)
        if len(named) == 1:
            cid = named.pop()
            memo[role] = (pos, cid)
            return cid, "verb-descr/role-title"
        if named:
            return None
    last = memo.get(role)
    if last and lo <= last[0] < pos:
        memo[role] = (pos, last[1])
        return last[1], "verb-descr/role-scene"
    return None

_ROLE_AFTER = re.compile(r"the\s+(?:(?:old|young|little|good|worthy|kind)\s+)?([a-z]+)\b")


def post_role_tag(st: Attributor, pos: int, e: int):
    """`said the doctor` where no cast member is listed as `the doctor`: (id, rule, surface) of the one
    titled person (`Doctor Losberne`) named in the scene, or None."""
    m = _ROLE_AFTER.match(st.text, pos, e)
    if not m or m.group(1) not in _titled(st) or re.match(r"\s*(?:'s|’s|of\b)", st.text[m.end():e]):
        return None
    got = scene_role(st, m.group(1), pos)
    return (got[0], got[1], m.group(0)) if got else None


def lead_role_tag(st: Attributor, pos: int, e: int):
    """`"…," the doctor continued` where no cast member is listed as `the doctor`: as `post_role_tag`."""
    m = _ROLE_AFTER.match(st.text, pos, e)
    if not m or m.group(1) not in _titled(st) or not _VERB_ONLY.match(st.text, m.end(), e):
        return None
    got = scene_role(st, m.group(1), pos)
    return (got[0], got[1], m.group(0)) if got else None
