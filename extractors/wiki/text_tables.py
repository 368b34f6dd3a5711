"""Tables written in a page's text: raw wikitext tables (`{| ... |}`) and TAB-separated rows copied from a
browser. Each table that holds lines is read by `tables._table_quotes` and replaced by a `\x00T<n>` marker
line; `tables` maps the marker's number to its quotes.
"""

from __future__ import annotations

import re

from ..text import clean
from .cells import Cell, expand_spans
from .markup import strip_wikitext
from .records import Quote
from .tables import _table_quotes

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
