"""Scene-local resolution of a role description as a tag's subject (`said the doctor`, `the captain replied`)
where the book uses that role for several people (`RoleMixin`, mixed into the tag rules).

A role word names the one person of the scene who carries it: a cast member whose listed name has it as a
title (`Doctor Losberne`, `Dr. Bauerstein`, `Captain Hastings` for `the doctor`, `the captain`) and who is
named in the narration shortly before the tag (same chapter) -- only where exactly one such person is
(`verb-descr/role-title`); or the person the same description was last resolved to in that scene
(`verb-descr/role-scene`). Anything else stays unresolved (the widespread role is held).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..text.speech_tags import _VERB_ONLY

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


class RoleMixin:
    def _titled(self) -> dict[str, set[str]]:
        """role -> ids of the cast members whose listed names carry it as a title."""
        got = self.__dict__.get("_titled_memo")
        if got is None:
            got = {}
            for cid, c in self.index.characters.items():
                for n in [c.name, *c.aliases]:
                    r = role_of_title(n)
                    if r:
                        got.setdefault(r, set()).add(cid)
            self.__dict__["_titled_memo"] = got
        return got

    def _para_starts(self) -> list[int]:
        starts = self.__dict__.get("_para_starts_memo")
        if starts is None:
            starts = self.__dict__["_para_starts_memo"] = [s for s, _ in self.paras]
        return starts

    def _chapter_start(self, pos: int) -> int:
        """Start of the chapter holding text position pos (0 when unknown)."""
        p = max(0, bisect_right(self._para_starts(), pos) - 1)
        ch = self.para_ch[p] if p < len(self.para_ch) else 0
        while p > 0 and self.para_ch[p - 1] == ch:
            p -= 1
        return self.paras[p][0] if self.paras else 0

    def _named_in_narration(self, lo: int, hi: int, ids: set[str]) -> set[str]:
        """Those of ids named in the narration of text[lo:hi] (a name inside a quotation may be someone spoken of)."""
        starts = self._para_starts()
        out = set()
        for p in range(max(0, bisect_right(starts, lo) - 1), bisect_right(starts, hi)):
            out.update(m.cid for m in self.narr_mentions.get(p, []) if m.cid in ids and lo <= m.start < hi)
        return out

    def _scene_role(self, core: str, pos: int, stub: str | None = None) -> tuple[str, str] | None:
        """(id, rule) of the one person of the scene that `the <core>` at text position pos names, or None."""
        role = core.split()[-1] if core else ""
        lo = max(self._chapter_start(pos), pos - ROLE_WINDOW)
        memo = self.__dict__.setdefault("_scene_role_memo", {})
        ids = self._titled().get(role, set()) - {stub}
        if ids:
            named = self._named_in_narration(lo, pos, ids)
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

    def _post_role_tag(self, pos: int, e: int):
        """`said the doctor` where no cast member is listed as `the doctor`: (id, rule, surface) of the one
        titled person (`Doctor Losberne`) named in the scene, or None."""
        m = self._ROLE_AFTER.match(self.text, pos, e)
        if not m or m.group(1) not in self._titled() or re.match(r"\s*(?:'s|’s|of\b)", self.text[m.end():e]):
            return None
        got = self._scene_role(m.group(1), pos)
        return (got[0], got[1], m.group(0)) if got else None

    def _lead_role_tag(self, pos: int, e: int):
        """`"…," the doctor continued` where no cast member is listed as `the doctor`: as `_post_role_tag`."""
        m = self._ROLE_AFTER.match(self.text, pos, e)
        if not m or m.group(1) not in self._titled() or not _VERB_ONLY.match(self.text, m.end(), e):
            return None
        got = self._scene_role(m.group(1), pos)
        return (got[0], got[1], m.group(0)) if got else None
