"""Tables written in a page's text: raw wikitext tables (`{| ... |}`, read with mwparserfromhell) and TAB-separated rows copied from a
browser. Each table that holds lines is read by `tables._table_quotes` and replaced by a `\x00T<n>` marker
line; `tables` maps the marker's number to its quotes.
"""

from __future__ import annotations

import re

import mwparserfromhell
from mwparserfromhell.nodes import Tag

from ..text import clean
from .cells import Cell, expand_spans
from .markup import _NUL, strip_wikitext
from .records import Quote
from .tables import _table_quotes

def _span(tag: Tag, name: str) -> int:
    """`rowspan="2"` on a wikitext cell -> 2 (1 when absent, at most 50)."""
    for a in tag.attributes:
        if str(a.name).strip().lower() == name:
            m = re.match(r"\s*[\"']?(\d+)", str(a.value))
            return max(1, min(int(m.group(1)), 50)) if m else 1
    return 1


def _wikitext_cell(tag: Tag) -> Cell:
    """A `|` / `!` cell -> Cell; the words lose their wiki markup (bold and italics marks too)."""
    text = re.sub(r"'{2,}", "", strip_wikitext(str(tag.contents)))
    text = "\n".join(clean(x) for x in text.split("\n") if clean(x))
    return Cell(str(tag.tag).lower() == "th", text, _span(tag, "rowspan"), _span(tag, "colspan"))


def _is_cell(node) -> bool:
    # mwparserfromhell reads a `|+ caption` line as a cell: not one
    return isinstance(node, Tag) and str(node.tag).lower() in ("td", "th") and not str(node).startswith("|+")


def _wikitext_table_rows(table: Tag) -> list[list[Cell]]:
    """The rows of a wikitext table (`{|` ... `|}`, read by mwparserfromhell); cells before the first `|-` are a row."""
    rows: list[list[Cell]] = []
    cur: list[Cell] | None = None
    for node in table.contents.nodes:
        if isinstance(node, Tag) and str(node.tag).lower() == "tr":
            cur = [_wikitext_cell(c) for c in node.contents.nodes if _is_cell(c)]
            rows.append(cur)
        elif _is_cell(node):
            if cur is None:
                cur = []
                rows.append(cur)
            cur.append(_wikitext_cell(node))
    return expand_spans([r for r in rows if r])


def _wikitext_tables(text: str, speaker: str | None, path, tables: dict[str, list[Quote]]) -> str:
    """Raw wikitext tables ('{| class="wikitable"' ... '|}'): voice-line or dialogue tables become markers."""
    code = mwparserfromhell.parse(text.replace("\x00", _NUL), skip_style_tags=True)
    for node in list(code.nodes):
        if isinstance(node, Tag) and node.wiki_markup == "{|":
            found = _table_quotes(_wikitext_table_rows(node), speaker, path)
            if found:
                tables[str(len(tables))] = found
                code.replace(node, f"{_NUL}T{len(tables) - 1}")
    return str(code).replace(_NUL, "\x00")


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
