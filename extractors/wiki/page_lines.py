"""The lines of a quote page, classified: blank, separator, heading, table marker or a (list) line, and the
shapes a line can take: an inline quote with its speaker, a `Name: words` cue, a stage direction, a soft
heading (a title-like line of a copied page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..speaker_cues import match_cue
from ..text import CLOSE_QUOTES as _CLOSE
from ..text import OPEN_QUOTES as _OPEN
from ..text import clean, unquote
from .attribution import _looks_like_name, split_attribution
from .directions import owner_heading
from .markup import FOOTNOTE_RE, _no_marks


_DASH = r"(?:—+|―+|–|--+|~|－－|\u2e3a|\u2e3b)"
INLINE_RE = re.compile(rf"^(?P<quote>[{_OPEN}].+[{_CLOSE}][.!?。！？]?)\s*{_DASH}\s*(?P<who>\S.*)$")
# '"quote" - Name': a lone hyphen between spaces, only after a whole quoted text
HYPHEN_INLINE_RE = re.compile(rf"^(?P<quote>[{_OPEN}].+[{_CLOSE}][.!?。！？]?)\s+-\s+(?P<who>\S.*)$")
# "''Curiouser and curiouser!'' — Alice": a quote in italics (wikitext, or <i> in HTML)
ITALIC_INLINE_RE = re.compile(rf"^''(?!')(?P<quote>[^']+(?:'(?!')[^']*)*)''\s*{_DASH}\s*(?P<who>\S.*)$")
# 'Alice — "Curiouser and curiouser!"': the speaker first
NAME_FIRST_RE = re.compile(rf"^(?P<who>[^{_OPEN}:：]{{1,40}}?)\s*(?:{_DASH}|-)\s*(?P<quote>[{_OPEN}].+[{_CLOSE}][.!?。！？]?)$")
# 'I am lost without my Boswell. ― Sherlock Holmes': no quote marks, a dash after the sentence's end
BARE_INLINE_RE = re.compile(r"^(?P<quote>[^\s―—].*?[.!?…])\s*(?:―+|—)\s*(?P<who>[^\s―—.,;:][^.!?]{0,60})$")
# the last line of a quote over several lines, with its attribution: 'And all ... players." — Jaques'
TAIL_INLINE_RE = re.compile(rf"^(?P<quote>.*[{_CLOSE}][.!?。！？]?)\s*{_DASH}\s*(?P<who>\S.*)$")
# a numbered list of quotes: '1. "quote" — Name', '2) “quote” – Name'
NUMBERED_RE = re.compile(rf"^\d{{1,3}}[.)]\s+(?=[{_OPEN}])")
# a numbered line that opens with a direction: '1. (narration) Okay…', '2) *sigh* Hey…'
NUMBERED_DIRECTION_RE = re.compile(r"^\d{1,3}[.)]\s+(?=[(\[（*]|''|[A-Z][a-z]*[ ,.!?][^\n]*[.!?…]$)")
# a line opening with an emphasised word, not a list mark: '*Narrating* Okay, …'
EMPHASIS_START_RE = re.compile(r"^\*[^*\s][^*\n]{0,40}\*\s+\S")
ATTRIB_RE = re.compile(rf"^{_DASH}\s*(?P<who>\S.*)$")
HYPHEN_ATTRIB_RE = re.compile(r"^-\s+(?P<who>\S.*)$")
HEADING_RE = re.compile(r"^(?P<eq>=+)\s*(?P<a>[^=].*?)\s*(?P=eq)$")
MD_HEADING_RE = re.compile(r"^#{1,6}\s+(?P<b>.+?)\s*#*$")
EDIT_MARK_RE = re.compile(r"\s*\[\s*(?:edit|edit source|编辑|編輯|编辑源代码|modifier|bearbeiten)\s*\]\s*$", re.IGNORECASE)
SEP_RE = re.compile(r"^(?:-{4,}|_{4,}|—{3,}|―{3,}|\*\s*\*\s*\*|={4,}|<hr[^>]*>)$", re.IGNORECASE)
MARK_RE = re.compile(r"^(?P<marks>[*#:;>]+)\s*")
MD_BULLET_RE = re.compile(r"^[-+]\s+(?=\S)(?!-)")  # Markdown '- item' (not a '-- Name' attribution)
_COPIED_BULLETS = {"•": 1, "●": 1, "◦": 2, "○": 2, "‣": 2, "▪": 3, "▫": 3, "■": 3, "□": 3}
COPIED_RE = re.compile(r"^(?P<b>[•●◦○‣▪▫■□])\s*")
DIRECTION_LINE_RE = re.compile(r"^(?:\[[^\]]+\]|\([^)]+\)|（[^）]+）|【[^】]+】)$")
LEADING_DIRECTION_RE = re.compile(r"^(\[[^\]]*\]|\([^)]*\)|（[^）]*）)\s*")
TABLE_MARK_RE = re.compile(r"^\x00T(?P<n>\d+)$")


class ItemKind(Enum):
    BLANK = "blank"
    SEP = "sep"  # `----`, `<hr>`: an exchange boundary
    SOFTSEP = "softsep"  # the edge of a top-level <dl>: a boundary only on a page without `----`
    HEADING = "heading"
    TABLE = "table"  # a marker line standing for a table read elsewhere
    LINE = "line"  # a line of text (a list item when `depth` > 0)


@dataclass
class _Item:
    kind: ItemKind
    text: str = ""
    depth: int = 0
    level: int | None = None  # heading level (None: a soft heading found later)
    marks: str = ""  # wikitext list marks


def _classify(raw: str, wikitext_headings: bool) -> _Item:
    s = raw.strip()
    if not s:
        return _Item(ItemKind.BLANK)
    t = TABLE_MARK_RE.match(s)
    if t:
        return _Item(ItemKind.TABLE, t.group("n"))
    if SEP_RE.match(s):
        return _Item(ItemKind.SEP)
    if s == "\x00DL":
        return _Item(ItemKind.SOFTSEP)
    h = HEADING_RE.match(s)
    if h:
        return _Item(ItemKind.HEADING, clean(_no_marks(h.group("a"))), level=len(h.group("eq")))
    if not wikitext_headings:
        h = MD_HEADING_RE.match(s)
        if h:
            return _Item(ItemKind.HEADING, clean(_no_marks(h.group("b"))), level=len(s) - len(s.lstrip("#")))
    if EDIT_MARK_RE.search(s):
        return _Item(ItemKind.HEADING, clean(_no_marks(EDIT_MARK_RE.sub("", s))), level=2)
    # 'Example lines said by Kyon:' heads the owner's lines ('Kyon/Quotes' is a page title: parse_wiki_text)
    if len(s) <= 80 and "/" not in s and owner_heading(_no_marks(s)):
        return _Item(ItemKind.HEADING, clean(_no_marks(s)).rstrip(":：").strip(), level=9)
    depth = 0
    m = MARK_RE.match(s) if not EMPHASIS_START_RE.match(s) else None
    if m:
        marks = m.group("marks")
        if marks.endswith(";") and not marks.endswith(":;"):
            body = clean(_no_marks(s[m.end():]))
            return _Item(ItemKind.HEADING, body, level=9) if body else _Item(ItemKind.BLANK)
        depth, s = len(marks), s[m.end():]
        if not FOOTNOTE_RE.sub("", s).strip():
            return _Item(ItemKind.BLANK)
        return _Item(ItemKind.LINE, FOOTNOTE_RE.sub("", s).strip(), depth=depth, marks=marks)
    else:
        c = COPIED_RE.match(s)
        if c:
            depth, s = _COPIED_BULLETS[c.group("b")], s[c.end():]
        elif NUMBERED_RE.match(s) or NUMBERED_DIRECTION_RE.match(s):
            depth, s = 1, s[(NUMBERED_RE.match(s) or NUMBERED_DIRECTION_RE.match(s)).end():]
        elif MD_BULLET_RE.match(s) and (s[2:3] in _OPEN or len(s.split()) > 6 or re.search(r"[.!?。！？]", s)):
            # '- "quote" — Name' / '- a sentence.' is a list item; a short '- Name' may be an attribution
            depth, s = 1, s[MD_BULLET_RE.match(s).end():]
    s = FOOTNOTE_RE.sub("", s).strip()
    if not s:
        return _Item(ItemKind.BLANK)
    return _Item(ItemKind.LINE, s, depth=depth)


def _quoted(s: str) -> bool:
    return len(s) >= 2 and s[0] in _OPEN and unquote(s) != s


def inline_quote(s: str, raw: str | None = None) -> dict | None:
    """{'quote', 'who'} of a quote and its speaker on one line: '"quote" — Name' (any dash; a lone hyphen
    only after a whole quoted text), "''quote in italics'' — Name" (`raw`: the line with its '' marks),
    'Name — "quote"', and 'Unquoted words. ― Name' (a Fandom quote bar or em dash after a sentence end,
    a name-like speaker only)."""
    for rx in (INLINE_RE, HYPHEN_INLINE_RE):
        m = rx.match(s)
        if m and (rx is INLINE_RE or _quoted(m.group("quote"))):
            return m.groupdict()
    if raw is not None:
        m = ITALIC_INLINE_RE.match(raw.strip())
        if m:
            return {"quote": _no_marks(m.group("quote")), "who": m.group("who")}
    m = NAME_FIRST_RE.match(s)
    if m and _quoted(m.group("quote")) and _looks_like_name(m.group("who").strip()):
        return m.groupdict()
    m = BARE_INLINE_RE.match(s)
    if m and _looks_like_name(split_attribution(m.group("who"))[0]):
        return m.groupdict()
    return None


# page furniture that looks like a `Name: words` line
_NOT_SPEAKERS = {"categories", "category", "hidden categories", "see also", "external links", "retrieved from",
                 "references", "notes", "note", "sources", "navigation", "tools", "languages", "links", "contents",
                 "分类", "页面分类", "隐藏分类", "参考资料", "外部链接", "注释", "导航", "目录",
                 "kategorie", "kategorien", "versteckte kategorie", "weblinks", "siehe auch", "einzelnachweise", "quellen",
                 "catégorie", "catégories", "catégories cachées", "voir aussi", "liens externes", "références",
                 "categoría", "categorías", "categoria", "categorie", "カテゴリ"}


def _is_cue(s: str) -> tuple[str, str] | None:
    s = _no_marks(s)
    if _quoted(s):
        return None
    cue = match_cue(s)
    if cue and cue[0].lower() in _NOT_SPEAKERS:
        return None
    return cue


def _soft_heading_candidate(it: _Item) -> bool:
    if it.kind is not ItemKind.LINE or it.depth:
        return False
    s = _no_marks(it.text)
    return (0 < len(s) <= 80 and s[0] not in _OPEN and not re.search(r"[.!?,;:。！？，；：…\"”」』'’)\]]$", s)
            and not _is_cue(s) and not ATTRIB_RE.match(s) and not inline_quote(s, it.text) and not TAIL_INLINE_RE.match(s) and not DIRECTION_LINE_RE.match(s))


def _mark_soft_headings(items: list[_Item]) -> None:
    """A title-like plain line right before dialogue, a list, a quote or another such line is a heading."""
    nxt: _Item | None = None
    for it in reversed(items):
        if it.kind is ItemKind.BLANK:
            continue
        if _soft_heading_candidate(it) and nxt is not None:
            s = _no_marks(nxt.text) if nxt.kind is ItemKind.LINE else ""
            follows = (
                nxt.kind in (ItemKind.HEADING, ItemKind.SEP, ItemKind.TABLE)
                or nxt.kind is ItemKind.LINE and (nxt.depth > 0 or _is_cue(s) is not None or _quoted(s) or bool(inline_quote(s, nxt.text)))
            )
            if follows and not (nxt.kind is ItemKind.LINE and (ATTRIB_RE.match(s) or HYPHEN_ATTRIB_RE.match(s))):
                it.kind, it.text, it.level = ItemKind.HEADING, clean(_no_marks(it.text)), 0
        nxt = it
