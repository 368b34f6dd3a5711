"""Wiki extractor: character quote pages (wikitext, copied text or saved HTML) -> line records.

`extract_wiki(path, work, encoding=None, resolver=None, character=None)` reads a page and
returns its lines:

- text (raw wikitext, text copied from a browser, Markdown) and the running text of HTML pages
  (rewritten to wikitext-like lines by `html.py`): attributed quotes, dialogue exchanges and
  stage directions, see `quotes.py` (which also names the units: one per exchange/quote);
- voice-line tables (Fandom/Genshin-style "Voice-Overs", BWIKI `语音标题 | 语音内容`; HTML, or
  TAB-separated rows copied from a browser): every row becomes two lines. Decision: the title is
  emitted first as a `narration` line `Voice-over: <title>` so the segmenter sees what the line
  answers, then the text as a `dialogue` line by the page's character, with `extra.title`.
  Header rows, in-table section rows (one cell spanning the table), unlock notes and empty rows
  are skipped; a title spanning several rows (rowspan) joins their lines in the script of the
  first one (an English line and its Japanese translation give the English one). A header row
  must name the columns (Title/Details/Text/语音…): a "Voice actors | Language" table is not lines;
  the text column is the one the header names, else the one with the longest text;
- the same tables written as raw wikitext (`{| ... |}`), and voice lines kept as a definition list
  (`<dl><dt>title</dt><dd>line</dd>`) on a voice/quote page;
- dialogue tables whose first column holds a dialogue's speakers (`Name | Line`, or no header: a
  speaker comes back after another); quote tables `Quote | Character | Episode` (each row its own
  unit, the episode in `extra.episode`);
- dialogue tables whose header names a speaker column (`Character | Line`, `角色 | 台词`): one
  dialogue line per row by that speaker (`旁白` rows are narration), one exchange per table;
- the page's character (owner of voice tables) is `character` (an id or name; the CLI passes
  `--character`), else the page's `<h1>`, else its `<title>` ("Zhongli/Voice-Overs | Genshin
  Impact Wiki | Fandom" -> "Zhongli"). Unattributed quotes need more: `--character`, a configured
  character, an `X/Quotes`-style title, an `<h1>` that speaks elsewhere on the page (a title may
  name a work), or a title/`<h1>` that the first paragraph names in bold, not in italics
  (`<b>Rosalind</b> is the heroine…`; a work is `<b><i>As You Like It</i></b> is a comedy…`). Tables with no known character are an error asking for `--character`.

A saved page that is not UTF-8 is decoded with the charset its `<meta>` declares (`textio.read_text`).

Speakers are resolved through the `AliasResolver` (configured id, else a slug); `name` keeps the
name as the page writes it; `evidence` is "script" (the page names the speaker explicitly).
A page with no quotes at all is an `InputError`, never an empty output.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line
from ..script.base import clean, join_lines
from ..script.colon import NARRATION_NAMES, valid_name
from ..textio import read_text
from .html import Cell, expand_spans, looks_like_html, read_html
from .quotes import Quote, parse_quote_text, strip_wikitext, unquote

__all__ = ["extract_wiki", "parse_wiki_text", "page_character_from_title"]

_TITLE_NOISE = re.compile(
    r"\s*(?:voice[\s-]*overs?|voice lines?|quotes?|dialogues?|语音|台词|语录|名言)\s*$", re.IGNORECASE
)
# requirement notes printed under a voice line ("Friendship Lv. 4", "好感度达到4级后解锁")
_UNLOCK_NOTE = re.compile(r"^\s*(?:friendship\s+lv\.?\s*\d+|unlocks?\b.*|after\s+friendship.*|好感度.*|解锁.*|需要.*)\s*$", re.IGNORECASE)
_HEADER_WORDS = {"title", "details", "name", "voice line", "voice lines", "line", "lines", "text", "标题", "详情", "语音",
                 "台词", "内容", "quote", "voice-over", "voice over", "description", "english", "en", "transcript",
                 "语音标题", "语音名称", "语音内容", "台词内容", "中文", "文本", "原文", "条件", "condition", "requirement",
                 "audio", "voice", "play", "notes", "note", "unlock", "解锁条件", "日文", "japanese", "chinese",
                 "名称", "标题名", "描述", "场合", "触发条件", "event", "trigger", "situation", "context"}
_SPEAKER_HEADERS = {"character", "speaker", "role", "who", "角色", "人物", "说话人", "说话者", "角色名", "发言人", "登场人物"}
_TEXT_HEADERS = {"details", "voice line", "voice lines", "line", "lines", "text", "quote", "quotes", "quotation", "transcript", "dialogue",
                 "english", "en", "台词", "语音内容", "台词内容", "内容", "文本", "详情", "中文", "原文", "对白"}
# columns of a quote table that say where a line comes from: kept in extra.episode
_QUOTE_HEADERS = {"quote", "quotes", "quotation", "名言", "语录", "語錄", "名台词", "名台詞", "名セリフ"}
_EPISODE_HEADERS = {"episode", "episodes", "source", "sources", "chapter", "scene", "work", "season", "act", "book",
                    "film", "game", "appearance", "集数", "出处", "出處", "章节", "来源", "話数", "话数", "作品", "出典"}
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff]")


def page_character_from_title(title: str) -> str | None:
    """'Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom' -> 'Zhongli'."""
    t = clean(title)
    if not t:
        return None
    t = re.split(r"\s+[|｜–—-]\s+|_", t)[0]
    t = t.split("/")[0]
    t = _TITLE_NOISE.sub("", t).strip(" :：-")
    return t or None


def _header_key(text: str) -> str:
    return re.sub(r"[\s:：]+", " ", text.lower()).strip()


def _is_header_row(row: list[Cell], first: bool) -> bool:
    if all(c.header for c in row) and len({c.origin for c in row}) > 1:
        return True
    words = _HEADER_WORDS | _SPEAKER_HEADERS | _TEXT_HEADERS | _QUOTE_HEADERS | _EPISODE_HEADERS
    return first and any(_header_key(c.text) in _HEADER_WORDS | _SPEAKER_HEADERS for c in row) and all(
        _header_key(c.text) in words or not c.text for c in row)


def _script(text: str) -> str:
    return "cjk" if len(_CJK.findall(text)) * 3 >= len(text.replace(" ", "")) else "latin"


def _text_of(cell: Cell) -> str:
    return clean(" ".join(ln for ln in cell.text.split("\n") if not _UNLOCK_NOTE.match(ln)))


def _speakers_column(body: list[list[Cell]], col: int) -> bool:
    """Does the column hold speakers' names ('March Hare', 'Alice', 'March Hare'...) rather than voice-line
    titles? Names are short, and a dialogue comes back to an earlier speaker after another one spoke."""
    names: list[str] = []
    last = None
    for r in body:
        if len(r) <= col or r[col].origin == last:  # a rowspan: one speaker cell over several rows
            continue
        last = r[col].origin
        names.append(clean(r[col].text))
    if len(names) < 3 or not all(valid_name(n) and len(n) <= 30 and not re.search(r"[.!?:：]$", n) for n in names):
        return False
    seen: set[str] = set()
    for prev, n in zip(names, names[1:]):
        seen.add(prev)
        if n != prev and n in seen:
            return True
    return False


def _columns(header: list[Cell] | None, body: list[list[Cell]]) -> tuple[int, int, bool] | None:
    """(name column, text column, is the name column a speaker?) of a two-or-more-column table."""
    width = max(len(r) for r in body)
    if width < 2:
        return None
    keys = [_header_key(c.text) for c in header] if header else []
    speaker_col = next((i for i, k in enumerate(keys) if k in _SPEAKER_HEADERS), None)
    if speaker_col is None and (not keys or keys[0] in ("name", "名字", "名前", "姓名")) and _speakers_column(body, 0):
        speaker_col = 0  # 'Name | Line', or no header: a dialogue (A, B, A...), not voice-line titles
    text_col = next((i for i, k in enumerate(keys) if k in _TEXT_HEADERS and i != speaker_col), None)
    name_col = speaker_col if speaker_col is not None else 0
    if text_col is None or text_col == name_col:
        # the column with the longest text (ties: the leftmost), never the name column
        def mean(i: int) -> float:
            vals = [len(_text_of(r[i])) for r in body if len(r) > i and r[i].origin != r[name_col].origin]
            return sum(vals) / len(vals) if vals else 0.0
        cands = [i for i in range(width) if i != name_col]
        text_col = max(cands, key=lambda i: (mean(i), -i))
    return name_col, text_col, speaker_col is not None


def _table_lines(rows: list[list[Cell]]) -> tuple[list[tuple[str, str, dict]], bool, bool]:
    """((name, text, extra) rows, speaker table?, separate quotes?) of a voice-line or dialogue table, or ([], False, False).

    In a speaker table an Episode/Source/Chapter column goes to extra.episode; a text column headed
    Quote (`Quote | Character | Episode`) makes every row a quote of its own rather than one exchange."""
    if not rows:
        return [], False, False
    header = rows[0] if _is_header_row(rows[0], True) else None
    body = [r for i, r in enumerate(rows) if not (i == 0 and header) and not _is_header_row(r, False)]
    body = [r for r in body if len({c.origin for c in r}) >= 2]  # section rows span the table
    if not body or len(body) * 2 < len([r for r in rows if r is not header]):
        return [], False, False
    if header and not any(_header_key(c.text) in _HEADER_WORDS | _SPEAKER_HEADERS | _TEXT_HEADERS for c in header):
        return [], False, False  # a table with other headings (Voice actors | Language): not lines
    cols = _columns(header, body)
    if cols is None:
        return [], False, False
    name_col, text_col, speaker = cols
    keys = [_header_key(c.text) for c in header] if header else []
    separate = speaker and len(keys) > text_col and keys[text_col] in _QUOTE_HEADERS
    ep_col = next((i for i, k in enumerate(keys) if k in _EPISODE_HEADERS and i not in (name_col, text_col)), None)
    groups: list[tuple[int, str, list[str], dict]] = []  # one per name cell (a rowspan groups rows)
    for r in body:
        if len(r) <= max(name_col, text_col):
            continue
        nc, tc = r[name_col], r[text_col]
        title = next((clean(x) for x in nc.text.split("\n") if clean(x)), "")  # its first line: notes go below
        text = _text_of(tc)
        if groups and groups[-1][0] == nc.origin:
            if text and text not in groups[-1][2]:
                groups[-1][2].append(text)
            continue
        extra = {}
        if speaker and ep_col is not None and len(r) > ep_col and clean(r[ep_col].text):
            extra["episode"] = clean(r[ep_col].text.replace("\n", " "))
        groups.append((nc.origin, title, [text] if text else [], extra))
    pairs: list[tuple[str, str, dict]] = []
    for _, title, texts, extra in groups:
        if not title or not texts or len(title) > 80 or not any(ch.isalnum() for ch in title):
            continue
        lang = _script(texts[0])  # rows a title spans: keep the lines in the first line's script
        pairs.append((title, unquote(join_lines([t for t in texts if _script(t) == lang])), extra))
    if not pairs:
        return [], False, False
    long_enough = [p for p in pairs if len(p[1]) >= (6 if _script(p[1]) == "cjk" else 15)]
    if len(long_enough) * 2 < len(pairs):  # a data table (Gender | Male), not lines
        return [], False, False
    return pairs, speaker, bool(separate)


def _table_quotes(rows: list[list[Cell]], speaker: str | None, path) -> list[Quote]:
    pairs, speaker_table, separate = _table_lines(rows)
    if not pairs:
        return []
    out: list[Quote] = []
    if speaker_table:  # a dialogue table: Character | Line
        for name, text, extra in pairs:
            if name.lower() in NARRATION_NAMES:
                out.append(Quote("narration", text, "", None, extra, own_block=separate))
            else:
                out.append(Quote("dialogue", text, "", name, extra, own_block=separate))
        return out
    if not speaker:
        raise InputError("voice-line table found but whose lines they are is unknown (no <h1>, <title>, 'X/Voice-Overs' "
                         "title line or file name); pass --character ID", path)
    for title, text, _ in pairs:
        out.append(Quote("narration", f"Voice-over: {title}", "", None, {"title": title}))
        out.append(Quote("dialogue", text, "", speaker, {"title": title}))
    return out


def _wikitext_cell(raw: str, header: bool) -> Cell:
    """'style="x" rowspan="2" | words' -> Cell; the words lose their wiki markup."""
    attrs, text = "", raw
    m = re.match(r"^([^|\[\]{}]*=[^|\[\]{}]*)\|(?!\|)(.*)$", raw)  # attributes before a single '|'
    if m:
        attrs, text = m.group(1), m.group(2)
    text = re.sub(r"'{2,}", "", strip_wikitext(text))  # bold and italics marks
    text = "\n".join(clean(x) for x in text.split("\n") if clean(x))

    def span(name: str) -> int:
        a = re.search(rf"{name}\s*=\s*[\"']?(\d+)", attrs, re.I)
        return max(1, min(int(a.group(1)), 50)) if a else 1

    return Cell(header, text, span("rowspan"), span("colspan"))


def _wikitext_table_rows(block: list[str]) -> list[list[Cell]]:
    """The rows of a wikitext table (the lines between '{|' and '|}')."""
    rows: list[list[Cell]] = []
    cur: list[Cell] | None = None
    for line in block:
        t = line.strip()
        if not t or t.startswith("|+"):
            continue
        if t.startswith("|-"):
            cur = []
            rows.append(cur)
        elif t[0] in "!|":
            header = t[0] == "!"
            parts = re.split(r"\s*(?:!!|\|\|)\s*" if header else r"\s*\|\|\s*", t[1:])
            if cur is None:
                cur = []
                rows.append(cur)
            cur.extend(_wikitext_cell(x.strip(), header) for x in parts)
        elif cur:  # a cell's text goes on over several lines
            last = cur[-1]
            last.text = "\n".join(x for x in (last.text, clean(re.sub(r"'{2,}", "", strip_wikitext(t)))) if x)
    return expand_spans([r for r in rows if r])


def _wikitext_tables(text: str, speaker: str | None, path, tables: dict[str, list[Quote]]) -> str:
    """Raw wikitext tables ('{| class="wikitable"' ... '|}'): voice-line or dialogue tables become markers."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("{|"):
            j = next((k for k in range(i + 1, len(lines)) if lines[k].strip().startswith("|}")), len(lines))
            found = _table_quotes(_wikitext_table_rows(lines[i + 1:j]), speaker, path)
            if found:
                tables[str(len(tables))] = found
                out.append(f"\x00T{len(tables) - 1}")
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _text_tables(text: str, speaker: str | None, path, tables: dict[str, list[Quote]] | None = None
                 ) -> tuple[str, dict[str, list[Quote]]]:
    """A table copied from a browser arrives as TAB-separated lines: read runs of them as tables."""
    lines = text.split("\n")
    out: list[str] = []
    tables = {} if tables is None else tables
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].count("\t") >= 1 and len([c for c in lines[j].split("\t") if c.strip()]) >= 2:
            j += 1
        if j - i >= 2:
            rows = [[Cell(False, clean(c), origin=k * 100 + n) for n, c in enumerate(ln.split("\t"))] for k, ln in
                    enumerate(lines[i:j])]
            found = _table_quotes(rows, speaker, path)
            if found:
                tables[str(len(tables))] = found
                out.append(f"\x00T{len(tables) - 1}")
                i = j
                continue
        out.extend(lines[i:max(j, i + 1)])
        i = max(j, i + 1)
    return "\n".join(out), tables


def parse_wiki_text(text: str, character: str | None = None, path=None, resolver: AliasResolver | None = None) -> list[Quote]:
    """Parse page text (HTML, wikitext or plain) into quotes in page order."""
    is_character = (lambda name: resolver.resolve(name) is not None) if resolver and resolver.characters else None
    if not looks_like_html(text):
        if not character:  # a copied page opens with its title: 'Cheshire Cat/Quotes'
            first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
            if re.fullmatch(r"[^/|]{1,60}/\S.{0,30}", first) and _TITLE_NOISE.search(first.split("/", 1)[1]):
                character = page_character_from_title(first)
        # a voice table's owner may be named only by the saved file ('Alice_Voice-Overs.wiki')
        stem = Path(path).stem if path else ""
        owner = character or (page_character_from_title(stem) if _TITLE_NOISE.search(stem.replace("_", " ")) else None)
        tables: dict[str, list[Quote]] = {}
        if re.search(r"^\s*\{\|", text, re.M):
            text = _wikitext_tables(text, owner, path, tables)
        text, tables = _text_tables(text, owner, path, tables)
        return parse_quote_text(text, character, tables=tables, is_character=is_character)
    page = read_html(text)
    speaker = character or page_character_from_title(page.h1) or page_character_from_title(page.title)
    # unattributed quotes need more than a page title (it may name a work): --character, a configured
    # character, or a 'X/Quotes'-style title
    owner = character
    for t in (page.h1, page.title):
        name = page_character_from_title(t)
        first = re.split(r"\s+[|｜–—-]\s+|_", clean(t))[0]
        # 'Cheshire Cat/Quotes' (a character's subpage) owns; 'Pride and Prejudice quotes' may name a work
        if not owner and name and (is_character and is_character(name) or clean(t.split("|")[0]) != name
                                   and _TITLE_NOISE.search(first) and ("/" in first or _CJK.search(first))):
            owner = name
        # 'Rosalind - Wikiquote' whose first paragraph opens '<b>Rosalind</b> is...' (not '<b><i>Work</i></b> is')
        if not owner and name and page.lead and name.lower() == page.lead.lower():
            owner = name
    parts: list[str] = []
    tables: dict[str, list[Quote]] = {}
    # 'Cheshire Cat/Voice Lines', 'Zhongli/Voice-Overs | ... | Fandom', '凉宫春日/语音'
    voice_page = any(_TITLE_NOISE.search(re.split(r"\s+[|｜–—-]\s+", clean(t))[0]) for t in (page.h1, page.title) if t)
    for kind, block in page.blocks:
        if kind == "heading":
            level, h = block  # type: ignore[misc]
            parts.append(f"{'=' * level} {h} {'=' * level}")
        elif kind == "text":
            parts.append(str(block))
        elif kind == "dl":  # <dt>title</dt><dd>line</dd> pairs: voice lines on a voice/quote page, or a dialogue
            rows, txt = block  # type: ignore[misc]
            found = []
            if voice_page or _speakers_column(rows, 0):
                found = _table_quotes(rows, speaker, path)
            if found:
                tables[str(len(tables))] = found
                parts.append(f"\x00T{len(tables) - 1}")
            else:
                parts.append(txt)
        elif kind == "table":
            found = _table_quotes(block, speaker, path)  # type: ignore[arg-type]
            if found:
                tables[str(len(tables))] = found
                parts.append(f"\x00T{len(tables) - 1}")
            else:  # some other table (e.g. a quote box): read its rows as text
                parts.append("----")
                for r in block:  # type: ignore[union-attr]
                    cells = [c for i, c in enumerate(r) if c.text and (i == 0 or r[i - 1].origin != c.origin)]
                    parts.append(" ".join(c.text.replace("\n", " ") for c in cells))
                parts.append("----")
    return parse_quote_text("\n".join(parts), owner, tables=tables, is_character=is_character,
                            page_heading=page_character_from_title(page.h1 or page.title))


def extract_wiki(
    path: str | Path,
    work: str,
    encoding: str | None = None,
    resolver: AliasResolver | None = None,
    character: str | None = None,
) -> list[Line]:
    """Read a quote page (text or HTML) and return its line records."""
    path = Path(path)
    resolver = resolver or AliasResolver()
    text = read_text(path, encoding)
    quotes = parse_wiki_text(text, character, path, resolver)
    if not any(q.kind == "dialogue" for q in quotes):
        if looks_like_html(text) and re.search(r"<script\b", text, re.I):
            page = read_html(text)
            shown = " ".join(str(b) for k, b in page.blocks if k == "text") + " ".join(page.h1.split())
            if len(shown.strip()) < 80:  # decision: quotes inside <script> data are not read (any shape, not the page)
                raise InputError(
                    "no quotes found: the page has almost no text outside <script> (a page filled in by JavaScript); "
                    "save it from the browser after it has loaded, or copy its text", path)
        raise InputError(
            "no quotes found: expected '\"quote\" — Character', a quote followed by '-- Character, \"Episode\"' "
            "or by a nested '** Character' item, 'Name: words' lines, or a voice-line table (title cell + text cell)",
            path,
        )
    lines: list[Line] = []
    for q in quotes:
        dialogue = q.kind == "dialogue"
        name = q.name if dialogue else None
        speaker = resolver.speaker_id(name) if name else None
        if dialogue and character and name == character and resolver.resolve(character):
            name = resolver.characters[resolver.resolve(character)].name  # show the configured name
        lines.append(
            Line(
                work=work,
                source=path.name,
                unit=q.unit,
                index=len(lines),
                kind=q.kind,
                text=q.text,
                speaker=speaker,
                name=name,
                confidence=1.0 if dialogue else None,
                evidence="script" if dialogue else None,
                extra=dict(q.extra),
            )
        )
    return lines
