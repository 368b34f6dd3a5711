"""Voice-line, dialogue and quote tables of a wiki page -> quotes.

`_table_quotes(rows, speaker, path)` reads a table (rows of `Cell`s, spans expanded): it finds the header
row and the name/text columns (`_columns`), tells a dialogue table (a speaker column, or names that come
back after another speaker) from a voice-line table (titles), and returns the quotes: one dialogue line
per row by its speaker, or per voice line a `Voice-over: <title>` narration line and the page character's
line. Data tables (`Gender | Male`) and tables with other headings return nothing.
"""

from __future__ import annotations

import re

from ..errors import InputError
from ..speaker_cues import NARRATION_NAMES, valid_name
from ..text import clean, join_lines, unquote
from .cells import Cell
from .records import Quote

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
