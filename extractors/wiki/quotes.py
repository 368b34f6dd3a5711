"""Quote pages as plain text: attributed quotes, dialogue excerpts, quotes of the page's character.

Understood, line by line (blank lines separate blocks):

- `"quote" — Character` / `“quote” – Character, "Episode"` / `«quote» -- Character (Episode)` on
  one line (dashes: — – ― -- ~);
- a quote block (one or more lines, quoted or not, bullets `*`/`•` allowed) followed on the next
  line by `-- Character, "Episode"` / `— Character`;
- `Name: words` lines (Wikiquote dialogue excerpts; the colon-script rules apply);
- a quoted line with no attribution belongs to the page's character when one is known
  (`--character` or the page title); otherwise it is skipped;
- `== Section ==` / `# Section` headings name the unit.

The episode (or work) after the character's name is kept in `extra.episode`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..script.base import clean, join_lines
from ..script.colon import match_cue, unquote, valid_name, NARRATION_NAMES

_OPEN = "\"“„«「『'‘"
_DASH = r"(?:—|–|―|--|~|－－)"
INLINE_RE = re.compile(rf"^\s*(?:[*•#:]+\s*)?(?P<quote>[{_OPEN}].+[\"”»」』'’])\s*{_DASH}\s*(?P<who>\S.*)$")
ATTRIB_RE = re.compile(rf"^\s*(?:[*•:]+\s*)?{_DASH}\s*(?P<who>\S.*)$")
HEADING_RE = re.compile(r"^\s*(?:=+\s*(?P<a>[^=]+?)\s*=+|#{1,6}\s+(?P<b>.+?))\s*$")
BULLET_RE = re.compile(r"^\s*[*•]+\s*")


@dataclass
class Quote:
    kind: str  # dialogue / narration
    text: str
    unit: str
    name: str | None = None
    extra: dict = field(default_factory=dict)


def split_attribution(who: str) -> tuple[str, str | None]:
    """'Rosalind, "Act IV"' -> ('Rosalind', 'Act IV'); 'Zhongli (Genshin Impact)' -> ('Zhongli', ...)."""
    who = clean(who).rstrip(".")
    m = re.match(r"^(?P<name>[^,(（\[]+?)\s*(?:[,，]\s*(?P<ep1>.+)|[(（\[](?P<ep2>.+?)[)）\]]|\s+in\s+(?P<ep3>[\"“'‘].+))?$", who)
    if not m:
        return who, None
    ep = m.group("ep1") or m.group("ep2") or m.group("ep3")
    if ep:
        ep = ep.strip().strip("\"“”'‘’«»「」").strip() or None
    return m.group("name").strip(), ep


def _looks_like_name(name: str) -> bool:
    return valid_name(name) and len(name) <= 40


def parse_quote_text(text: str, page_character: str | None = None, unit: str = "1") -> list[Quote]:
    """Parse the text of a quote page; `page_character` owns unattributed quoted lines."""
    out: list[Quote] = []
    block: list[str] = []

    def quoted(s: str) -> bool:
        return len(s) >= 2 and s[0] in _OPEN and unquote(s) != s

    def flush_block(who: str | None) -> None:
        nonlocal block
        lines = [BULLET_RE.sub("", b).strip() for b in block]
        block = []
        words = unquote(join_lines(lines))
        if not clean(words):
            return
        if who:
            name, ep = split_attribution(who)
            if _looks_like_name(name):
                out.append(Quote("dialogue", clean(words), unit, name, {"episode": ep} if ep else {}))
                return
        if page_character and all(quoted(ln) for ln in lines):
            out.append(Quote("dialogue", clean(words), unit, page_character))

    for raw in text.split("\n"):
        s = raw.strip()
        if not s:
            flush_block(None)
            continue
        h = HEADING_RE.match(s)
        if h:
            flush_block(None)
            unit = clean(h.group("a") or h.group("b"))
            continue
        m = INLINE_RE.match(s)
        if m:
            name, _ = split_attribution(m.group("who"))
            if _looks_like_name(name):
                flush_block(None)
                block = [m.group("quote")]
                flush_block(m.group("who"))
                continue
        m = ATTRIB_RE.match(s)
        if m and block:
            flush_block(m.group("who"))
            continue
        cue = match_cue(BULLET_RE.sub("", s))
        if cue and not quoted(BULLET_RE.sub("", s)):
            flush_block(None)
            name, words = cue
            words = unquote(re.sub(r"^\[[^\]]*\]\s*", "", words))
            if clean(words):
                if name.lower() in NARRATION_NAMES:
                    out.append(Quote("narration", clean(words), unit))
                else:
                    out.append(Quote("dialogue", clean(words), unit, name))
            continue
        block.append(s)
    flush_block(None)
    return out
