"""Quote pages as text: raw wikitext, text copied from a browser, or HTML rewritten by `html.py`.

Understood, line by line:

- headings: `== Section ==` (wikitext; `html.py` writes `<h2>`..`<h6>` this way), `# Section`
  (Markdown, when the page has no `==` headings), a line ending in `[edit]`/`[编辑]` (copied
  page), `;Term` (a definition term), and short title-like lines right before dialogue or a
  list (copied page);
- list markers: wikitext `*`, `#`, `:` (one per nesting level, `**` nests), copied bullets
  `•` (level 1), `◦` (level 2), `▪` (level 3);
- attributed quotes: `"quote" — Character` / `“quote” ―Character, "Episode"` /
  `「……」——凉宫春日《……》` on one line (dashes: — ― – -- ~ ——); a quote block (one or more
  lines, quoted or not) followed by a `-- Character, "Episode"` / `― Character` line, or by a
  more deeply nested list item (`* quote` / `** Character, ''Episode''`, `• quote` / `◦ Holmes
  to Watson`); `{{Quote|text|Character|Source}}` templates; also `"quote" - Name` (a lone hyphen
  after a whole quoted text), `''quote in italics'' — Name`, `Name — "quote"`, `Unquoted sentence. ―
  Name` (name-like speakers only), numbered lists `1. "quote" — Name`, and a quote over several
  lines or paragraphs (it waits for its closing mark; the last line may carry `— Name`);
- quote marks of every family come off the words (`unquote`): "…", “…”, '…', ‘…’, «…», »…«, „…“,
  ‚…‘, 「…」, 『…』 (apostrophes inside are kept);
- dialogue excerpts: `Name: words` / `'''Name''': words` lines (the colon-script rules),
  `Name: [stage direction]` and `[stage direction]` lines (-> `action`);
- unattributed quotes: under a heading that names a speaker of the page (a Wikiquote film
  page's `== Inigo Montoya ==` section) they are that speaker's; a quoted line with no
  attribution belongs to the page's character when one is known; otherwise it is skipped.
  A nested item that is a source, not a person (`** Chapter 1`, `** ''A Study in Scarlet''
  (1887)`: italics, digits, chapter words) is kept in `extra.source`.

Units. A dialogue exchange is one block: it ends at a heading, a `----` separator (`<hr>`), a
standalone quote, and, on a page with no `----`/`<hr>`, at the edge of a top-level `<dl>` and at
a blank line when the page writes exchanges as runs of consecutive `Name: words` lines. Each standalone quote is a block of its own. The
unit is the heading path (`Season 1 / Pilot [1.01]`), numbered `#1`, `#2`... when a section
holds more than one block, so the segmenter never joins two scenes.

The episode/work after the character's name is kept in `extra.episode`; `Name to Watson` keeps
`extra.context` = "to Watson".
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass, field
from typing import Callable

from ..script.base import clean, join_lines
from ..script.colon import NARRATION_NAMES, match_cue, valid_name

_OPEN = "\"“„«»「『'‘‚‹〝"
_CLOSE = "\"”»«」』'’‘›“〟"
# an opening quote mark -> the marks that may close it: English “…”/"…"/‘…’/'…', German „…“/»…«/‚…‘,
# French « … », Japanese/Chinese 「…」/『…』
QUOTE_PAIRS = {'"': '"', "“": "”“", "”": "”", "„": "“”", "«": "»", "»": "«", "‹": "›", "›": "‹", "「": "」",
               "『": "』", "‘": "’‘", "'": "'", "‚": "‘’", "〝": "〟〞"}
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
FOOTNOTE_RE = re.compile(r"\s*\[(?:src|\d{1,3}|[a-z]|note \d+|citation needed|clarification needed|需要来源|来源请求|注 ?\d+)\]",
                         re.IGNORECASE)
DIRECTION_LINE_RE = re.compile(r"^(?:\[[^\]]+\]|\([^)]+\)|（[^）]+）|【[^】]+】)$")
LEADING_DIRECTION_RE = re.compile(r"^(\[[^\]]*\]|\([^)]*\)|（[^）]*）)\s*")
_SOURCE_WORDS = re.compile(
    r"^(?:chapter|ch\.|chap\.|act|scene|part|book|volume|vol\.|episode|ep\.|season|series|page|p\.|pp\.|letter|"
    r"canto|stanza|verse|section|issue|line|lines|from|in|source|written|said|quoted|attributed|cited|misattributed|"
    r"第|卷|章)\b",
    re.IGNORECASE,
)
_CONTEXT_RE = re.compile(
    r"^(?P<name>.+?)\s*,?\s+(?P<ctx>(?:to|speaking to|talking to|addressing|about|on|when|after|while|before|"
    r"replying to|in reply to|upon|at|during|as|对|向)\s+.+)$"
)
_NARRATING = {"narrating", "narration", "narrator", "voice-over", "voiceover", "voice over", "旁白"}
_QUOTE_TEMPLATES = {"quote", "cquote", "quotation", "quote box", "quotebox", "q", "rquote", "quotation box", "dialogquote"}
_TPL_TEXT = ("quotetext", "quote", "text", "1")
_TPL_WHO = ("personquoted", "author", "sign", "speaker", "character", "source_person", "2")
_TPL_SRC = ("quotesource", "source", "title", "work", "episode", "3")
# sections of quotes by others or of doubtful quotes: never the page character's
_ABOUT_RE = re.compile(r"\babout\b|\büber\b|\bsur\b|à propos|\bon\s+\w+$|misattributed|disputed|attributed|关于|評價|评价|误传|存疑", re.IGNORECASE)
SITE_TITLE_RE = re.compile(r"\A\s*[^\n]{1,80}?\s[-—–|]\s*(?:Wikiquote|Wikipedia|Wikiquote,[^\n]*|Wikipédia[^\n]*|"
                           r"[^\n]{0,40}\bWiki(?:\s*\|\s*Fandom)?|Fandom|维基语录|維基語錄|萌娘百科[^\n]*)\s*$", re.M)
_PARA_BREAK = "\x02"  # a paragraph break inside a pending quote
# a section that holds the page character's quotes: a plain '* words' item in it is theirs
_QUOTES_SECTION = re.compile(r"^(?:quotes?|quotations?|sourced|zitate|citations|citas|citazioni|台词|台詞|语录|語錄|名言|名台词|セリフ)$",
                             re.IGNORECASE)
TABLE_MARK_RE = re.compile(r"^\x00T(?P<n>\d+)$")


def _apostrophe(s: str, i: int) -> bool:
    """Is the mark at s[i] an apostrophe (We're, don't, Holmes' pipe) rather than a quote mark?"""
    if s[i] not in "'’":
        return False
    before = s[i - 1] if i > 0 else " "
    after = s[i + 1] if i + 1 < len(s) else " "
    return before.isalpha() and (after.isalpha() or after == " " and before in "sS")


def unquote(text: str) -> str:
    """'"quote"' / '« citation »' / '„Zitat“' / "'quote'" / '「台词」' -> the words inside; else unchanged.

    A sentence mark after the closing quote ('"Quite so".') stays; the words are not unquoted when
    the same marks also occur inside (two quotes on one line), apostrophes excepted."""
    t = text.strip()
    if len(t) < 2 or t[0] not in QUOTE_PAIRS:
        return t
    closes = QUOTE_PAIRS[t[0]]
    body, tail = t, ""
    if len(body) > 2 and body[-1] in ".!?。！？" and body[-2] in closes:
        body, tail = body[:-1], body[-1]
    if body[-1] not in closes:
        return t
    inner = body[1:-1]
    marks = set(t[0]) | set(closes)
    if any(ch in marks and not _apostrophe(inner, i) for i, ch in enumerate(inner)):
        return t
    inner = inner.strip()
    if tail and inner and inner[-1] not in ".!?。！？…":
        inner += tail
    return inner


def _unquote_paragraphs(paras: list[str]) -> str:
    """A quote over several paragraphs: one pair of marks around all of them, or (the English
    convention) an opening mark on every paragraph and a closing one on the last."""
    whole = unquote(" ".join(paras))
    if whole != " ".join(paras).strip() or len(paras) == 1:
        return whole
    out = []
    for p in paras:
        u = unquote(p)
        if u == p.strip():
            if p[:1] in QUOTE_PAIRS and sum(p.count(c) for c in set(p[0]) | set(QUOTE_PAIRS[p[0]])) == 1:
                u = p[1:].strip()
            elif p[-1:] in _CLOSE and sum(p.count(c) for c in p[-1]) == 1:
                u = p[:-1].strip()
        out.append(u)
    return " ".join(out)


@dataclass
class Quote:
    kind: str  # dialogue / narration / action
    text: str
    unit: str
    name: str | None = None
    extra: dict = field(default_factory=dict)
    own_block: bool = False  # from a table of separate quotes: a unit of its own, not part of one exchange


# -- markup ------------------------------------------------------------------------------------------------------

def _template(m: re.Match) -> str:
    parts = [p.strip() for p in m.group(1).split("|")]
    name = parts[0].lower().replace("_", " ")
    if name not in _QUOTE_TEMPLATES:
        return ""
    named: dict[str, str] = {}
    pos = 1
    for p in parts[1:]:
        k, eq, v = p.partition("=")
        if eq and re.fullmatch(r"[\w ]{1,20}", k.strip()):
            named[k.strip().lower()] = v.strip()
        else:
            named[str(pos)] = p
            pos += 1

    def first(keys):
        return next((named[k] for k in keys if named.get(k)), "")

    text, who, src = first(_TPL_TEXT), first(_TPL_WHO), first(_TPL_SRC)
    if not text:
        return ""
    if text[0] not in _OPEN:
        text = f"“{text}”"
    if not who:
        return text
    return f"{text} — {who}" + (f", {src}" if src else "")


def strip_wikitext(text: str) -> str:
    """Raw wikitext -> plain lines (quote templates become `"text" — who, source`)."""
    text = re.sub(r"^[ \t]*<!--.*?-->[ \t]*\n", "", text, flags=re.S | re.M)  # comment lines vanish
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<ref[^>/]*/>", "", text, flags=re.I)
    text = re.sub(r"<ref[^>]*>.*?</ref>", "", text, flags=re.I | re.S)
    for _ in range(5):
        new = re.sub(r"\{\{([^{}]*)\}\}", _template, text)
        if new == text:
            break
        text = new
    text = re.sub(r"\[\[(?:File|Image|Category|Media|文件|檔案|图像|分类|分類|Kategorie|Datei|Bild|Catégorie|Fichier|"
                  r"Categoría|Categoria|Archivo|Kategoria|Plik|Категория|Файл|カテゴリ|ファイル):[^\]]*\]\]", "", text, flags=re.I)
    text = re.sub(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://\S+\s+([^\]]+)\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://\S+\]", "", text)
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
    text = re.sub(r"</?(?:i|em|cite)>", "''", text, flags=re.I)
    text = re.sub(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>", "", text)
    return _html.unescape(text)


def _no_marks(s: str) -> str:
    """Drop bold/italic apostrophes (and Markdown **bold**/*italics*) and footnote marks."""
    s = s.replace("'''", "").replace("''", "")
    s = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", s)
    s = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"\1", s)
    return FOOTNOTE_RE.sub("", s).strip()


# -- attributions ---------------------------------------------------------------------------------------------------

def split_attribution(who: str) -> tuple[str, str | None]:
    """'Rosalind, "Act IV"' -> ('Rosalind', 'Act IV'); 'Zhongli (Genshin Impact)' -> ('Zhongli', ...);
    '凉宫春日《凉宫春日的忧郁》' -> ('凉宫春日', '凉宫春日的忧郁')."""
    who = clean(_no_marks(who)).rstrip(".").strip()
    m = re.match(
        r"^(?P<name>[^,，(（\[《]+?)\s*(?:[,，]\s*(?P<ep1>.+)|[(（\[](?P<ep2>.+?)[)）\]]|《(?P<ep4>.+?)》.*"
        r"|\s+in\s+(?P<ep3>[\"“'‘].+))?$",
        who,
    )
    if not m:
        return who, None
    ep = m.group("ep1") or m.group("ep2") or m.group("ep3") or m.group("ep4")
    if ep:
        ep = ep.strip()
        if ep[:1] == "《" and ep[-1:] == "》" and ep.count("《") == 1:
            ep = ep[1:-1]
        ep = unquote(ep).strip() or None  # 'Season 1, Episode 1: "A Study in Scarlet"' keeps its marks
    return m.group("name").strip(), ep


def _looks_like_name(name: str) -> bool:
    if re.fullmatch(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff・ー]{1,10}", name):
        return True  # a Japanese name in kana ('キョン') or kanji
    return valid_name(name) and len(name) <= 40 and not _SOURCE_WORDS.match(name) and not re.search(r"\d{3,}", name)


@dataclass
class Attribution:
    name: str | None  # the speaker, or None when the attribution is a source (a chapter, a work)
    extra: dict
    narrating: bool = False


def parse_attribution(who: str, is_character: Callable[[str], bool] | None = None) -> Attribution:
    """Read what follows a dash or sits in a nested list item under a quote."""
    raw = who.strip()
    if raw.startswith("''") and not raw.startswith("'''"):  # an italic title: a work, not a person
        plain = clean(_no_marks(raw))
        if not (is_character and is_character(split_attribution(plain)[0])):
            return Attribution(None, {"source": plain})
    plain = clean(_no_marks(raw))
    name, ep = split_attribution(plain)
    extra: dict = {}
    m = _CONTEXT_RE.match(name)
    if m and not _looks_like_name(name) and _looks_like_name(m.group("name")):
        name, extra["context"] = m.group("name").strip(), m.group("ctx").strip()
    known = bool(is_character and is_character(name))
    if not known and not _looks_like_name(name):
        return Attribution(None, {"source": plain})
    if ep and re.fullmatch(r"(?:c\.\s*)?\d{3,4}(?:\s*[-–]\s*\d{2,4})?", ep) and not known:
        return Attribution(None, {"source": plain})  # 'The Red-Headed League (1891)': a work and its year
    if name.lower() in NARRATION_NAMES:  # '— Narrator, Chapter 1'
        return Attribution(None, {"source": ep} if ep else {}, narrating=True)
    if ep and ep.lower() in _NARRATING:
        return Attribution(name, {"narrator": name}, narrating=True)
    if ep and re.match(r"(?:(?:to|speaking to|talking to|addressing|about|replying to|in reply to)\s|对|向|和)", ep, re.I):
        extra["context"] = ep  # 'Alice, to the Cheshire Cat'
    elif ep:
        extra["episode"] = ep
    return Attribution(name, extra)


# -- lines -----------------------------------------------------------------------------------------------------------

@dataclass
class _Item:
    kind: str  # blank / sep / heading / line / table
    text: str = ""
    depth: int = 0
    level: int | None = None  # heading level (None: a soft heading found later)
    marks: str = ""  # wikitext list marks


def _classify(raw: str, wikitext_headings: bool) -> _Item:
    s = raw.strip()
    if not s:
        return _Item("blank")
    t = TABLE_MARK_RE.match(s)
    if t:
        return _Item("table", t.group("n"))
    if SEP_RE.match(s):
        return _Item("sep")
    if s == "\x00DL":
        return _Item("softsep")
    h = HEADING_RE.match(s)
    if h:
        return _Item("heading", clean(_no_marks(h.group("a"))), level=len(h.group("eq")))
    if not wikitext_headings:
        h = MD_HEADING_RE.match(s)
        if h:
            return _Item("heading", clean(_no_marks(h.group("b"))), level=len(s) - len(s.lstrip("#")))
    if EDIT_MARK_RE.search(s):
        return _Item("heading", clean(_no_marks(EDIT_MARK_RE.sub("", s))), level=2)
    depth = 0
    m = MARK_RE.match(s)
    if m:
        marks = m.group("marks")
        if marks.endswith(";") and not marks.endswith(":;"):
            body = clean(_no_marks(s[m.end():]))
            return _Item("heading", body, level=9) if body else _Item("blank")
        depth, s = len(marks), s[m.end():]
        if not FOOTNOTE_RE.sub("", s).strip():
            return _Item("blank")
        return _Item("line", FOOTNOTE_RE.sub("", s).strip(), depth=depth, marks=marks)
    else:
        c = COPIED_RE.match(s)
        if c:
            depth, s = _COPIED_BULLETS[c.group("b")], s[c.end():]
        elif NUMBERED_RE.match(s):
            depth, s = 1, s[NUMBERED_RE.match(s).end():]
        elif MD_BULLET_RE.match(s) and (s[2:3] in _OPEN or len(s.split()) > 6 or re.search(r"[.!?。！？]", s)):
            # '- "quote" — Name' / '- a sentence.' is a list item; a short '- Name' may be an attribution
            depth, s = 1, s[MD_BULLET_RE.match(s).end():]
    s = FOOTNOTE_RE.sub("", s).strip()
    if not s:
        return _Item("blank")
    return _Item("line", s, depth=depth)


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
    if it.kind != "line" or it.depth:
        return False
    s = _no_marks(it.text)
    return (0 < len(s) <= 80 and s[0] not in _OPEN and not re.search(r"[.!?,;:。！？，；：…\"”」』'’)\]]$", s)
            and not _is_cue(s) and not ATTRIB_RE.match(s) and not inline_quote(s, it.text) and not TAIL_INLINE_RE.match(s) and not DIRECTION_LINE_RE.match(s))


def _mark_soft_headings(items: list[_Item]) -> None:
    """A title-like plain line right before dialogue, a list, a quote or another such line is a heading."""
    nxt: _Item | None = None
    for it in reversed(items):
        if it.kind == "blank":
            continue
        if _soft_heading_candidate(it) and nxt is not None:
            s = _no_marks(nxt.text) if nxt.kind == "line" else ""
            follows = (
                nxt.kind in ("heading", "sep", "table")
                or nxt.kind == "line" and (nxt.depth > 0 or _is_cue(s) is not None or _quoted(s) or bool(inline_quote(s, nxt.text)))
            )
            if follows and not (nxt.kind == "line" and (ATTRIB_RE.match(s) or HYPHEN_ATTRIB_RE.match(s))):
                it.kind, it.text, it.level = "heading", clean(_no_marks(it.text)), 0
        nxt = it


def _norm(name: str) -> str:
    return re.sub(r"[\W_]+", " ", name.lower()).strip()


# -- the parser ----------------------------------------------------------------------------------------------------

@dataclass
class _Out:
    quote: Quote
    block: int
    path: tuple[str, ...]
    owner_headings: tuple[str, ...] = ()  # set for unattributed quotes: who may own them
    quoted: bool = False


def parse_quote_text(
    text: str,
    page_character: str | None = None,
    unit: str = "1",
    tables: dict[str, list[Quote]] | None = None,
    is_character: Callable[[str], bool] | None = None,
    page_heading: str | None = None,
) -> list[Quote]:
    """Parse the text of a quote page; `page_character` owns unattributed quoted lines.

    `page_heading` (the page's `<h1>`) owns them instead when no page character is given and it
    names someone who speaks elsewhere on the page (`Sherlock Holmes` when `Holmes to Watson` is
    an attribution there).

    `tables` maps `\\x00T<n>` marker lines to quotes already read from HTML tables (one block
    each); `is_character(name)` says whether a name is a configured character (accepted as a
    speaker even when it does not look like one, and as the owner of a section named after it).
    """
    text = strip_wikitext(text)
    # a copied page opens with the browser's title: 'Cyrano de Bergerac — Wikiquote, le recueil de citations libre'
    text = SITE_TITLE_RE.sub("", text, count=1)
    wikitext_headings = bool(re.search(r"^\s*==[^=\n]+==\s*$", text, re.M))
    items = [_classify(raw, wikitext_headings) for raw in text.split("\n")]
    # a page that marks exchanges with ----/<hr> keeps an exchange together across blank lines and <dl>
    # edges (MediaWiki renders a `:Name: x` line, a blank line and a `:Name: y` line as two <dl>s)
    ruled = any(it.kind == "sep" for it in items)
    for it in items:
        if it.kind == "softsep":
            it.kind = "blank" if ruled else "sep"
    _mark_soft_headings(items)
    cue_lines = [i for i, it in enumerate(items) if it.kind == "line" and _is_cue(it.text)]
    tight = any(items[i + 1].kind == "line" and _is_cue(items[i + 1].text) for i in cue_lines if i + 1 < len(items))
    if ruled:
        tight = False

    out: list[_Out] = []
    path: list[tuple[int, str]] = []
    soft_run = False
    block = 0
    exchange = False  # is a dialogue block open?
    spoken = False  # has it a `Name: words` line yet?
    pending: list[str] = []
    pending_depth = 0
    pending_marks = ""
    last_dialogue: _Out | None = None

    def cur_path() -> tuple[str, ...]:
        return tuple(t for _, t in path)

    def new_block() -> int:
        nonlocal block
        block += 1
        return block

    def flush(att: Attribution | None = None) -> None:
        nonlocal pending
        lines = pending
        pending = []
        if not lines:
            return
        paras: list[list[str]] = [[]]
        for x in lines:
            if x == _PARA_BREAK:
                paras.append([])
            else:
                paras[-1].append(_no_marks(x))
        texts = [join_lines(p) for p in paras if p]
        words = clean(_unquote_paragraphs(texts)) if texts else ""
        if not words:
            return
        quoted = _quoted(" ".join(texts)) or all(_quoted(_no_marks(x)) for x in lines if x != _PARA_BREAK)
        extra = dict(att.extra) if att else {}
        if att and (att.name or att.narrating):
            kind = "narration" if att.narrating else "dialogue"
            q = Quote(kind, words, unit, None if att.narrating else att.name, extra)
            out.append(_Out(q, new_block(), cur_path()))
            return
        q = Quote("dialogue", words, unit, None, extra)
        out.append(_Out(q, new_block(), cur_path(), owner_headings=cur_path() or ("",), quoted=quoted))

    def end_exchange() -> None:
        nonlocal exchange, last_dialogue, spoken
        exchange, last_dialogue, spoken = False, None, False

    def attribution_next(idx: int) -> bool:
        """Is the next line (past blanks and separators) a dash attribution? Then a pending quote waits for it."""
        for nx in items[idx + 1:]:
            if nx.kind in ("blank", "sep"):
                continue
            return nx.kind == "line" and bool(ATTRIB_RE.match(_no_marks(nx.text)))
        return False

    def quote_open() -> bool:
        """Does the pending text open a quote that has not closed yet?"""
        first = next((_no_marks(x) for x in pending if x != _PARA_BREAK), "")
        last = _no_marks(pending[-1]) if pending[-1] != _PARA_BREAK else ""
        return bool(first) and first[0] in QUOTE_PAIRS and not (last and re.search(rf"[{_CLOSE}][.!?。！？]?$", last)
                                                                  and len(last) > 1)

    def closes_ahead(idx: int) -> bool:
        """Is there, before the next heading, separator or cue (and within 12 lines), a line that closes a quote?"""
        for nx in items[idx + 1: idx + 13]:
            if nx.kind == "blank":
                continue
            if nx.kind != "line" or _is_cue(nx.text) or nx.depth != pending_depth:
                return False
            if ATTRIB_RE.match(_no_marks(nx.text)) or inline_quote(_no_marks(nx.text)):
                return False
            if re.search(rf"[{_CLOSE}][.!?。！？]?$", _no_marks(nx.text)):
                return True
        return False

    def cue_next(idx: int) -> bool:
        for nx in items[idx + 1:]:
            if nx.kind != "blank":
                return nx.kind == "line" and (_is_cue(nx.text) is not None or bool(DIRECTION_LINE_RE.match(_no_marks(nx.text)))
                                              or nx.text.strip().startswith("''"))
        return False

    for idx, it in enumerate(items):
        if it.kind in ("blank", "sep"):
            if it.kind == "blank" and pending and quote_open() and closes_ahead(idx):
                pending.append(_PARA_BREAK)  # a quote over several paragraphs: its closing mark is ahead
                continue
            if not (pending and attribution_next(idx)):
                flush()
            if it.kind == "sep" or tight and spoken:  # (a block of only directions sets the next exchange's scene)
                end_exchange()
            continue
        if it.kind == "heading":
            flush()
            end_exchange()
            if not it.text:
                continue
            if it.level == 0:  # a soft heading (copied page): consecutive ones nest
                lvl = (path[-1][0] + 1) if (soft_run and path) else 2
                soft_run = True
            else:
                lvl = it.level or 2
                soft_run = False
            while path and path[-1][0] >= lvl:
                path.pop()
            path.append((lvl, it.text))
            continue
        soft_run = False
        if it.kind == "table":
            flush()
            end_exchange()
            b = new_block()
            for n, q in enumerate((tables or {}).get(it.text, [])):
                if q.own_block and n:
                    b = new_block()
                out.append(_Out(Quote(q.kind, q.text, unit, q.name, dict(q.extra)), b, cur_path()))
            continue
        s, depth = it.text, it.depth
        plain = _no_marks(s)
        # `*:` continues the `*` item above it (wikitext)
        if pending and it.marks.endswith(":") and len(it.marks) > 1 and it.marks[:-1] == pending_marks:
            pending.append(s)
            continue
        # a nested item under a pending quote: its attribution or source
        if pending and depth > pending_depth and pending_depth > 0:
            flush(parse_attribution(s, is_character))
            continue
        m = TAIL_INLINE_RE.match(plain) if pending and depth == pending_depth and quote_open() else None
        if m:
            att = parse_attribution(m.group("who"), is_character)
            if att.name or att.narrating:
                pending.append(m.group("quote"))
                flush(att)
                end_exchange()
                continue
        iq = inline_quote(plain, s)
        if iq:
            att = parse_attribution(iq["who"], is_character)
            if att.name or att.narrating:
                flush()
                end_exchange()
                pending = [iq["quote"]]
                flush(att)
                continue
        m = ATTRIB_RE.match(plain) or (HYPHEN_ATTRIB_RE.match(plain) if pending else None)
        if m and pending:
            att = parse_attribution(m.group("who"), is_character)
            if att.name or ATTRIB_RE.match(plain):
                flush(att)
                end_exchange()
                continue
        if ATTRIB_RE.match(plain):  # '―Alice and the Cat' under `Name: "words"` lines closes that exchange
            end_exchange()
            continue
        cue = _is_cue(s)
        if cue:
            flush()
            name, words = cue
            if not exchange:
                new_block()
                exchange = True
            spoken = True
            extra: dict = {}
            d = LEADING_DIRECTION_RE.match(words)
            if d:
                extra["direction"] = d.group(1)[1:-1].strip()
                words = words[d.end():]
            words = clean(unquote(words))
            if name.lower() in NARRATION_NAMES:
                if words:
                    out.append(_Out(Quote("narration", words, unit, None, extra), block, cur_path()))
                last_dialogue = None
            elif words:
                last_dialogue = _Out(Quote("dialogue", words, unit, name, extra), block, cur_path())
                out.append(last_dialogue)
            elif extra.get("direction"):
                out.append(_Out(Quote("action", f"{name} [{extra['direction']}]", unit, None, {}), block, cur_path()))
                last_dialogue = None
            continue
        if not depth and re.fullmatch(r"''(?!')[^']+(?:'(?!')[^']*)*''[.!?]?", s.strip()) and not _quoted(plain):
            plain = "[" + plain + "]"  # a whole line in italics: a transcript's stage direction
        if DIRECTION_LINE_RE.match(plain):
            flush()
            if not exchange:  # a direction opens the exchange that follows it, if one does
                if not cue_next(idx):
                    continue
                new_block()
                exchange = True
            out.append(_Out(Quote("action", plain[1:-1].strip(), unit, None, {}), block, cur_path()))
            last_dialogue = None
            continue
        # a wrapped speech: a plain line right after a `Name: words` line of the same level
        continues = not depth or it.marks.endswith(":") and len(it.marks) > 1
        if (last_dialogue is not None and continues and not pending and idx > 0 and items[idx - 1].kind == "line"
                and not _quoted(plain)):
            last_dialogue.quote.text = join_lines([last_dialogue.quote.text, plain])
            continue
        if pending and depth != pending_depth:
            flush()
        if not pending:
            end_exchange()
        pending.append(s)
        pending_depth, pending_marks = depth, it.marks
    flush()
    return _finish(out, unit, page_character, is_character, page_heading)


def _finish(out: list[_Out], base: str, page_character: str | None, is_character, page_heading: str | None = None
            ) -> list[Quote]:
    """Give unattributed quotes an owner (or drop them), then name the units."""
    speakers = {_norm(o.quote.name) for o in out if o.quote.name}
    speakers.discard("")

    def speaker_heading(h: str) -> str | None:
        n = _norm(h)
        if not n or not _looks_like_name(h) and not (is_character and is_character(h)):
            return None
        if n in speakers or (is_character and is_character(h)) or (page_character and n == _norm(page_character)):
            return h
        words = n.split()
        if len(words) > 1 and any(w in speakers for w in (words[0], words[-1]) if len(w) > 2):
            return h
        return None

    page_owner = page_character or (speaker_heading(page_heading) if page_heading else None)
    kept: list[_Out] = []
    for o in out:
        if o.owner_headings:
            owner = next((speaker_heading(h) for h in reversed(o.owner_headings) if speaker_heading(h)), None)
            if owner:
                o.quote.name = owner
            elif page_owner and (o.quoted or "source" in o.quote.extra or _QUOTES_SECTION.match(o.owner_headings[-1])
                                 ) and not any(_ABOUT_RE.search(h) for h in o.owner_headings):
                o.quote.name = page_owner  # a character page: '* words' / '** ''Work'' (1887)' is theirs
            else:
                continue
        kept.append(o)

    # units: the heading path, numbered when a section run holds more than one block
    runs: list[list[_Out]] = []
    for o in kept:
        if runs and runs[-1][-1].path == o.path:
            runs[-1].append(o)
        else:
            runs.append([o])
    result: list[Quote] = []
    for run in runs:
        path = " / ".join(run[0].path)
        blocks: list[int] = []
        for o in run:
            if not blocks or blocks[-1] != o.block:
                blocks.append(o.block)
        for o in run:
            k = blocks.index(o.block) + 1
            if len(blocks) == 1:
                o.quote.unit = path or base
            elif path:
                o.quote.unit = f"{path} #{k}"
            else:
                o.quote.unit = str(k) if base == "1" else f"{base} #{k}"
            result.append(o.quote)
    return result
