"""A character page's own words: who a heading says owns the lines below it, and the directions a line carries.

- `owner_heading(h)`: the owner a heading names, in the forms people save a character's lines under:
  "Example lines said by Kyon", "Quotes by Kyon", "Voice lines of Zhongli", "Kyon's lines", "Kyon/Quotes",
  "阿虚的台词" (a trailing `:` allowed); None for any other heading;
- `split_direction(text)`: a leading direction off a line: `(annoyed) Hey…`, `*Narrating* Okay…`,
  `''Narrating'' …`, `[sighs] …`, `（叹气）…`, and a trailing `(narration)`; returns the direction, the words
  and whether the direction says the line is the speaker's narration (`narrating`), not speech to someone.
"""

from __future__ import annotations

import re

from ..text import clean
from .attribution import _looks_like_name

_LINES = r"(?:voice[\s-]*lines?|voice[\s-]*overs?|lines|quotes?|quotations|sayings|dialogues?|catchphrases)"
_OWNER_RES = (
    re.compile(rf"^(?:(?:example|sample|famous|memorable|notable|selected|some|classic|best|character)\s+)?{_LINES}\s+"
               rf"(?:(?:said|spoken|uttered|voiced)\s+)?(?:by|of|from)\s+(?P<n>.+?)$", re.I),
    re.compile(rf"^(?P<n>.+?)['’]s?\s+(?:(?:famous|memorable|example|best)\s+)?{_LINES}$", re.I),
    re.compile(rf"^(?P<n>[^/]+?)\s*/\s*{_LINES}$", re.I),
    re.compile(r"^(?P<n>[^的/]{1,12})的(?:经典|經典)?(?:台词|台詞|语录|語錄|语音|語音|名言|名台词)$"),
)
# a heading of the page character's lines (no name): 'Quotes', 'Example lines', 'Voice lines', '台词'
QUOTES_SECTION = re.compile(
    rf"^(?:(?:example|sample|famous|memorable|notable|selected|classic|character)\s+)?(?:{_LINES}|sourced|zitate|"
    r"citations|citas|citazioni)$|^(?:经典)?(?:台词|台詞|语录|語錄|名言|名台词|セリフ)$", re.I)

_NARRATING = re.compile(r"^(?:narrat(?:ing|ion|or)|voice[\s-]*over|(?:inner\s+)?monologue|thinking|thoughts?|"
                        r"旁白|独白|內心獨白|内心独白|モノローグ|ナレーション)$", re.I)
_LEADING = re.compile(r"^(?:\*(?!\*)(?P<a>[^*\n]{1,40}?)\*(?!\*)|''(?!')(?P<b>[^'\n]{1,40})''(?!')|\((?P<c>[^()\n]{1,40})\)"
                      r"|\[(?P<d>[^\[\]\n]{1,40})\]|（(?P<e>[^（）\n]{1,20})）|【(?P<f>[^【】\n]{1,20})】)\s*(?=\S)")
_TRAILING = re.compile(r"\s*(?:''|\*)?[(（\[](?P<d>[^()（）\[\]\n]{1,30})[)）\]](?:''|\*)?$")


def owner_heading(heading: str) -> str | None:
    """The owner a heading names ('Example lines said by Kyon:' -> 'Kyon'), else None."""
    h = clean(heading).rstrip(":：").strip()
    for rx in _OWNER_RES:
        m = rx.match(h)
        if m:
            name = m.group("n").strip(" \"'“”")
            if name and _looks_like_name(name) and not QUOTES_SECTION.match(name):
                return name
    return None


def split_direction(text: str) -> tuple[str | None, str, bool]:
    """(direction, words, narrating): '(annoyed) Hey, …' -> ('annoyed', 'Hey, …', False);
    '*Narrating* Okay, …' -> ('Narrating', 'Okay, …', True); 'Words. (narration)' -> ('narration', 'Words.', True)."""
    s = text.strip()
    m = _LEADING.match(s)
    if m:
        d = clean(next(g for g in m.groups() if g)).strip("()（）[]").strip()
        if not re.fullmatch(r"[\d\s.,:-]+", d) and len(d.split()) <= 5:  # '[1]', '(1887)' are not directions
            return d, s[m.end():].strip(), bool(_NARRATING.match(d))
    m = _TRAILING.search(s)
    d = clean(m.group("d")) if m else ""
    # 'Words. (narration)', 'Ah, the great puzzle! (to herself)': after a sentence end, lower case (not '(1887)')
    if m and (_NARRATING.match(d) or re.search(r"[.!?…。！？]$", s[:m.start()]) and d[:1].islower() and len(d.split()) <= 5):
        return d, s[:m.start()].strip(), bool(_NARRATING.match(d))
    return None, s, False
