"""Wiki extractor: character quote pages (wikitext, copied text or saved HTML) -> line records.

`extract_wiki(path, work, encoding=None, resolver=None, character=None)` reads quotes, dialogue and directions
(`quotes.py`), voice-line and dialogue tables, and character pages (`directions.py`); HTML goes through
`html.py`. A page with no quotes at all is an `InputError`, never an empty output. What it reads: docs/wiki.md."""

from __future__ import annotations

import re
from pathlib import Path

from ..characters import AliasResolver
from ..errors import InputError
from ..records import Line
from ..text import clean
from ..textio import read_text
from .directions import owner_heading
from .html import looks_like_html, read_html
from .quotes import Quote, parse_quote_text
from .tables import _CJK, _speakers_column, _table_quotes
from .text_tables import _text_tables, _wikitext_tables

__all__ = ["extract_wiki", "parse_wiki_text", "page_character_from_title"]

_TITLE_NOISE = re.compile(
    r"\s*(?:voice[\s-]*overs?|voice lines?|quotes?|dialogues?|语音|台词|语录|名言)\s*$", re.IGNORECASE
)


def page_character_from_title(title: str) -> str | None:
    """'Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom' -> 'Zhongli'."""
    t = clean(title)
    if not t:
        return None
    t = re.split(r"\s+[|｜–—-]\s+|_", t)[0]
    named = owner_heading(t)  # 'Voice lines of Alice', 'Example lines said by Kyon'
    if named:
        return named
    t = t.split("/")[0]
    t = _TITLE_NOISE.sub("", t).strip(" :：-")
    return t or None


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
                                   and _TITLE_NOISE.search(first) and ("/" in first or _CJK.search(first))
                                   or owner_heading(first)):
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
            "or by a nested '** Character' item, 'Name: words' lines, a voice-line table (title cell + text cell), "
            "or a list of one character's lines under a heading naming them ('Example lines said by X:'; else --character)",
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
