"""Read a wiki page's HTML with the standard library's `html.parser`: title, headings, tables, text.

`read_html(text)` returns a `Page`: its `<title>` and first `<h1>`, and its body as a list of
blocks in document order: ("heading", text), ("text", text with one line per paragraph / list
item / line break) and ("table", rows), each row a list of `Cell(header, text)`. Scripts,
styles and audio/button widgets are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from ..script.base import clean

_BLOCK = {"p", "div", "li", "ul", "ol", "dl", "dd", "dt", "blockquote", "section", "article", "pre", "center", "tbody", "thead"}
_HEADINGS = {"h2", "h3", "h4", "h5", "h6"}
_SKIP = {"script", "style", "noscript", "audio", "video", "button", "template", "svg", "sup"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "source", "wbr", "col", "area", "base", "embed", "param", "track"}


@dataclass
class Cell:
    header: bool
    text: str


@dataclass
class Page:
    title: str = ""
    h1: str = ""
    blocks: list[tuple[str, object]] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.skip = 0
        self.in_title = False
        self.in_h1 = False
        self.heading: list[str] | None = None
        self.text: list[str] = []  # running text outside tables
        self.tables: list[list[list[Cell]]] = []  # stack of open tables
        self.cell: list[str] | None = None
        self.cell_header = False
        self.nested_cell_stack: list[tuple[list[str] | None, bool]] = []

    # text outside tables
    def _flush_text(self) -> None:
        txt = "".join(self.text)
        self.text = []
        lines = [clean(ln) for ln in txt.split("\n")]
        lines = [ln for ln in lines if ln]
        if lines:
            self.page.blocks.append(("text", "\n".join(lines)))

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self.skip += 1
            return
        if self.skip:
            return
        if tag == "title":
            self.in_title = True
        elif tag == "h1":
            self.in_h1 = True
        elif tag in _HEADINGS and not self.tables:
            self._flush_text()
            self.heading = []
        elif tag == "table":
            if not self.tables:
                self._flush_text()
            self.nested_cell_stack.append((self.cell, self.cell_header))
            self.cell = None
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            if not self.tables[-1]:
                self.tables[-1].append([])
            self.cell, self.cell_header = [], tag == "th"
        elif tag in _BLOCK or tag == "br":
            self._newline()

    def handle_startendtag(self, tag, attrs):
        if tag == "br" and not self.skip:
            self._newline()

    def _newline(self) -> None:
        if self.cell is not None:
            self.cell.append("\n")
        elif not self.tables:
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag == "title":
            self.in_title = False
        elif tag == "h1":
            self.in_h1 = False
            self._newline()
        elif tag in _HEADINGS and self.heading is not None:
            h = clean("".join(self.heading))
            self.heading = None
            if h:
                self.page.blocks.append(("heading", h))
        elif tag in ("td", "th") and self.tables and self.cell is not None:
            text = "\n".join(clean(x) for x in "".join(self.cell).split("\n") if clean(x))
            self.tables[-1][-1].append(Cell(self.cell_header, text))
            self.cell = None
        elif tag == "table" and self.tables:
            rows = [r for r in self.tables.pop() if r]
            self.cell, self.cell_header = self.nested_cell_stack.pop() if self.nested_cell_stack else (None, False)
            if self.tables:  # a nested table: its text goes into the enclosing cell
                if self.cell is not None:
                    self.cell.append("\n".join(" ".join(c.text for c in r) for r in rows))
            elif rows:
                self.page.blocks.append(("table", rows))
        elif tag in _BLOCK:
            self._newline()

    def handle_data(self, data):
        if self.skip:
            return
        if self.in_title:
            self.page.title += data
        if self.in_h1:
            self.page.h1 += data
        if self.heading is not None:
            self.heading.append(data)
        elif self.cell is not None:
            self.cell.append(data)
        elif not self.tables and not self.in_title:
            self.text.append(data)

    def close(self):
        super().close()
        self._flush_text()


def read_html(text: str) -> Page:
    r = _Reader()
    r.feed(text)
    r.close()
    r.page.title, r.page.h1 = clean(r.page.title), clean(r.page.h1)
    return r.page


def looks_like_html(text: str) -> bool:
    head = text[:4000].lower()
    return "<html" in head or "<!doctype html" in head or "<table" in text.lower() or "<body" in head or "<p>" in head
