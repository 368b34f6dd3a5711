"""Wiki extractor: character quote pages (text or HTML) -> line records.

`extract_wiki(path, work, encoding=None, resolver=None, character=None)` reads a page and
returns its lines:

- text pages (and the non-table text of HTML pages): attributed quotes, see `quotes.py`;
- HTML voice-line tables (Genshin-style "Voice-Overs": each row a title cell and a text cell,
  e.g. "About Zhongli" | "..."): every row becomes two lines. Decision: the title is emitted
  first as a `narration` line `Voice-over: <title>` so the segmenter sees what the line answers
  (it plays the part of the other speaker's prompt), then the text as a `dialogue` line by the
  page's character, with `extra.title` = the title. Header rows (all `<th>`, first row) and
  rows without text are skipped. The unit is the section heading above the table.
- the page's character is `character` (an id or name; the CLI passes `--character`), else the
  page's `<h1>`, else its `<title>` ("Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom" ->
  "Zhongli"). Tables with no known character are an error asking for `--character`.

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
from ..script.base import clean
from ..textio import read_text
from .html import Cell, looks_like_html, read_html
from .quotes import Quote, parse_quote_text

__all__ = ["extract_wiki", "parse_wiki_text", "page_character_from_title"]

_TITLE_NOISE = re.compile(
    r"\s*(?:voice[\s-]*overs?|voice lines?|quotes?|dialogues?|语音|台词|语录|名言)\s*$", re.IGNORECASE
)
# requirement notes printed under a voice line ("Friendship Lv. 4", "好感度达到4级后解锁")
_UNLOCK_NOTE = re.compile(r"^\s*(?:friendship\s+lv\.?\s*\d+|unlocks?\b.*|after\s+friendship.*|好感度.*|解锁.*|需要.*)\s*$", re.IGNORECASE)
_HEADER_WORDS = {"title", "details", "name", "voice line", "line", "text", "标题", "详情", "语音", "台词", "内容", "quote"}


def page_character_from_title(title: str) -> str | None:
    """'Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom' -> 'Zhongli'."""
    t = clean(title)
    if not t:
        return None
    t = re.split(r"\s+[|｜–—-]\s+|_", t)[0]
    t = t.split("/")[0]
    t = _TITLE_NOISE.sub("", t).strip(" :：-")
    return t or None


def _voice_rows(rows: list[list[Cell]]) -> list[tuple[str, str]]:
    """(title, text) pairs of a two-column voice table, or [] when the table is something else."""
    pairs: list[tuple[str, str]] = []
    two = [r for r in rows if len(r) == 2]
    if len(two) < max(1, len(rows) // 2):
        return []
    for i, r in enumerate(rows):
        if len(r) != 2:
            continue
        title, text = r[0].text, r[1].text
        if i == 0 and (all(c.header for c in r) or title.lower() in _HEADER_WORDS):
            continue
        if not title or not text or len(title) > 80:
            continue
        text = " ".join(ln for ln in text.split("\n") if not _UNLOCK_NOTE.match(ln))
        if clean(text):
            pairs.append((clean(title), clean(text)))
    return pairs


def _table_quotes(rows: list[list[Cell]], unit: str, speaker: str | None, path) -> list[Quote]:
    pairs = _voice_rows(rows)
    if not pairs:
        return []
    if not speaker:
        raise InputError("voice-line table found but whose lines they are is unknown (no <h1> or <title>); pass --character ID", path)
    out: list[Quote] = []
    for title, text in pairs:
        out.append(Quote("narration", f"Voice-over: {title}", unit, None, {"title": title}))
        out.append(Quote("dialogue", text, unit, speaker, {"title": title}))
    return out


def parse_wiki_text(text: str, character: str | None = None, path=None) -> list[Quote]:
    """Parse page text (HTML or plain) into quotes in page order."""
    if not looks_like_html(text):
        return parse_quote_text(text, character)
    page = read_html(text)
    speaker = character or page_character_from_title(page.h1) or page_character_from_title(page.title)
    out: list[Quote] = []
    unit = "1"
    for kind, block in page.blocks:
        if kind == "heading":
            unit = str(block)
        elif kind == "text":
            out.extend(parse_quote_text(str(block), speaker, unit))
        elif kind == "table":
            found = _table_quotes(block, unit, speaker, path)  # type: ignore[arg-type]
            if not found:  # some other table: read its cells as text
                out.extend(parse_quote_text("\n".join(c.text for r in block for c in r), speaker, unit))  # type: ignore[union-attr]
            out.extend(found)
    return out


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
    quotes = parse_wiki_text(text, character, path)
    if not any(q.kind == "dialogue" for q in quotes):
        raise InputError(
            "no quotes found: expected '\"quote\" — Character', a quote followed by '-- Character, \"Episode\"', "
            "'Name: words' lines or an HTML voice-line table (title cell + text cell)",
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
