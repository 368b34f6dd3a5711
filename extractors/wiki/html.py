"""Read a wiki page's HTML with lxml's HTML parser (libxml2: implied end tags as a browser closes them).

`read_html(text)` returns a `Page`: its `<title>`, first `<h1>` and body blocks in document order (headings,
tables with spans expanded, `<dl>` lists, and running text rewritten in the wikitext-like form `quotes.py`
reads). The reader is the parser's target. Lists deeper than `MAX_LIST_DEPTH` keep time and memory linear.
Blocks and what is dropped: docs/wiki.md, "Saved HTML"."""

from __future__ import annotations

from lxml import etree

from ..text import clean
from .cells import Cell, Page, _span, expand_spans
from .html_tags import (_BLOCK, _HEADINGS, _ITALIC, _LIST_MARK, _PARA, _VOID, SEPARATOR, SOFT_SEPARATOR, clean_lines,
                        looks_like_html, skipped)

MAX_LIST_DEPTH = 16  # list markers written at most (`****...`): deeper items are written at this depth

__all__ = ["read_html", "looks_like_html", "Cell", "Page", "expand_spans", "SEPARATOR", "SOFT_SEPARATOR"]


class _Reader:
    """The target of lxml's HTML parser: gets start/end/data events in document order."""

    def __init__(self) -> None:
        self.page = Page()
        self.skip: list[list] = []  # [tag, depth] of skipped elements
        self.in_title = False
        self.in_h1 = False
        self.heading: list[str] | None = None
        self.heading_level = 2
        self.text: list[str] = []  # running text outside tables
        self.lists: list[str] = []  # open ul/ol/dl markers
        self.tables: list[list[list[Cell]]] = []  # stack of open tables
        self.cell: list[str] | None = None
        self.cell_attrs: tuple[bool, int, int] = (False, 1, 1)
        self.nested_cell_stack: list[tuple[list[str] | None, tuple[bool, int, int]]] = []
        self.pending_mark: str | None = None  # list marker waiting for its item's first words
        self.blockquote = 0  # open <blockquote>s
        self.items: list[str] = []  # marks of the open list items (a <br> inside one continues it: `*:`)
        self.dl: tuple[int, list[tuple[str, str]]] | None = None  # open top-level <dl>: text start, (dt/dd, text)s
        self.dl_item: tuple[str, list[str]] | None = None  # the open <dt>/<dd> of it
        self.dl_nested = False  # a list inside it: not a term/definition table
        self.paras = 0  # <p>s seen
        self.in_lead = False  # inside the first <p>, before the end of its first bold words
        self.lead: list[str] | None = None
        self.lead_italic = False
        self.italic = 0

    # text outside tables
    def _flush_text(self) -> None:
        if self.dl is not None:  # a heading or table inside an open <dl>: not a term/definition table
            self.dl_nested = True
        txt = "".join(self.text)
        self.text = []
        out = clean_lines(txt)
        if out:
            self.page.blocks.append(("text", out))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.skip:  # inside a skipped element: only count its nesting (and note <title>/<h1>)
            if tag == self.skip[-1][0] and tag not in _VOID:
                self.skip[-1][1] += 1
            if tag == "title":
                self.in_title = True
            elif tag == "h1":
                self.in_h1 = True
            return
        if tag == "title":
            self.in_title = True
            return
        if skipped(tag, a, self.blockquote):
            if tag not in _VOID:
                self.skip.append([tag, 1])
            return
        handler = _START.get(tag) or (_Reader._start_block if tag in _BLOCK else None)
        if handler:
            handler(self, tag, a)

    def _start_h1(self, tag: str, a: dict) -> None:
        self.in_h1 = True

    def _start_heading(self, tag: str, a: dict) -> None:
        if not self.tables:
            self._flush_text()
            self.heading = []
            self.heading_level = int(tag[1])

    def _start_table(self, tag: str, a: dict) -> None:
        if not self.tables:
            self._flush_text()
        self.nested_cell_stack.append((self.cell, self.cell_attrs))
        self.cell = None
        self.tables.append([])

    def _start_row(self, tag: str, a: dict) -> None:
        if self.tables:
            self._end_cell()
            self.tables[-1].append([])

    def _start_cell(self, tag: str, a: dict) -> None:
        if self.tables:
            self._end_cell()
            if not self.tables[-1]:
                self.tables[-1].append([])
            self.cell, self.cell_attrs = [], (tag == "th", _span(a, "rowspan"), _span(a, "colspan"))

    def _start_list(self, tag: str, a: dict) -> None:
        if tag == "dl" and not self.lists and self.cell is None and not self.tables:
            self._separator(SOFT_SEPARATOR)
            self.dl = (len(self.text), [])
        elif self.lists:
            self.dl_nested = True
        self.lists.append(_LIST_MARK[tag])
        self._newline()

    def _start_item(self, tag: str, a: dict) -> None:
        self._newline()
        if self.dl is not None and len(self.lists) == 1 and tag in ("dd", "dt") and self.cell is None:
            self.dl_item = (tag, [])
        if self.cell is None and not self.tables:  # the marker is written with the item's first words
            marks = "".join(self.lists[:MAX_LIST_DEPTH]) or ("*" if tag == "li" else ":")
            self.pending_mark = marks[:-1] + ";" if tag == "dt" else marks
            self.items.append(marks)

    def _start_para(self, tag: str, a: dict) -> None:
        self._newline(blank=True)
        if self.paras == 0 and not self.lists and not self.tables and self.cell is None:
            self.in_lead = True
        self.paras += 1

    def _start_bold(self, tag: str, a: dict) -> None:
        if self.in_lead and self.lead is None:
            self.lead = []
            self.lead_italic = self.italic > 0

    def _start_italic(self, tag: str, a: dict) -> None:
        if self.cell is None and not self.tables and self.heading is None:
            self.italic += 1
            if self.lead is not None and self.in_lead and not "".join(self.lead).strip():
                self.lead_italic = True
            self._italic()

    def _start_cite(self, tag: str, a: dict) -> None:
        if self.blockquote and self.cell is None and not self.tables:
            if self._line_is_blank():  # '<p><cite>Mr. Darcy</cite>, Chapter 34</p>' closing a quote: its attribution
                self.text.append("— ")

    def _line_is_blank(self) -> bool:
        """Whether the text since the last line break is blank: read from the end, stopping at the first words or
        line break, so many <cite>s in one long line never rescan it."""
        for chunk in reversed(self.text):
            head, nl, tail = chunk.rpartition("\n")
            if tail.strip(" \x01"):
                return False
            if nl:
                return True
        return True

    def _start_blockquote(self, tag: str, a: dict) -> None:
        self.blockquote += 1
        self._newline(blank=True)

    def _start_block(self, tag: str, a: dict) -> None:
        self._newline()

    def _italic(self) -> None:
        if self.pending_mark is not None:  # an item opening in italics: the marker first
            self.text.append(self.pending_mark + " ")
            self.pending_mark = None
        self.text.append("''")

    def _br(self) -> None:
        if self.items and self.cell is None and not self.tables and self.pending_mark is None:
            self._newline()
            self.pending_mark = self.items[-1] + ":"
        else:
            self._newline()

    def _write(self, s: str) -> None:
        if self.cell is not None:
            self.cell.append(s)
        elif not self.tables:
            self.text.append(s)

    def _newline(self, blank: bool = False) -> None:
        if self.pending_mark is not None and self.cell is None:
            return  # an item has not started its words yet
        self._write("\n\x01\n" if blank and self.cell is None and not self.lists else "\n")

    def _separator(self, mark: str = SEPARATOR) -> None:
        self.pending_mark = None
        if not self.tables and self.cell is None:
            self.text.append(f"\n{mark}\n")

    def handle_endtag(self, tag):
        if self.skip:  # inside a skipped element: count down its nesting (and note </title>, </h1>)
            if tag == self.skip[-1][0]:
                self.skip[-1][1] -= 1
                if self.skip[-1][1] == 0:
                    self.skip.pop()
            if tag == "title":
                self.in_title = False
            elif tag == "h1":
                self.in_h1 = False
            return
        handler = _END.get(tag) or (_Reader._end_block if tag in _BLOCK else None)
        if handler:
            handler(self, tag)

    def _end_h1(self, tag: str) -> None:
        self.in_h1 = False
        self._newline()

    def _end_heading(self, tag: str) -> None:
        if self.heading is not None:
            h = clean("".join(self.heading))
            self.heading = None
            if h:
                self.page.blocks.append(("heading", (self.heading_level, h)))

    def _end_list(self, tag: str) -> None:
        if self.lists:
            self.lists.pop()
            self._newline()
            if tag == "dl" and not self.lists and self.cell is None and not self.tables:
                self._end_dl()
                self._separator(SOFT_SEPARATOR)

    def _end_italic(self, tag: str) -> None:
        if self.cell is None and not self.tables and self.heading is None:
            self.italic = max(0, self.italic - 1)
            self.text.append("''")

    def _end_bold(self, tag: str) -> None:
        if self.in_lead and self.lead is not None:
            self.in_lead = False  # only the first bold words of the first paragraph

    def _end_blockquote(self, tag: str) -> None:
        self.blockquote = max(0, self.blockquote - 1)
        self._newline(blank=True)

    def _end_para(self, tag: str) -> None:
        self.in_lead = False
        self._newline(blank=True)

    def _end_item(self, tag: str) -> None:
        if tag in ("dd", "dt") and self.dl_item is not None and self.dl_item[0] == tag and self.dl is not None:
            self.dl[1].append((tag, clean(" ".join("".join(self.dl_item[1]).split()))))
            self.dl_item = None
        self.pending_mark = None
        if self.items and self.cell is None and not self.tables:
            self.items.pop()
        self._newline()

    def _end_block(self, tag: str) -> None:
        self._newline()

    def _end_cell(self) -> None:
        """Close the open cell (also implied by the next <td>/<th>/<tr> or the table's end: HTML lets a page
        leave </td> and </tr> out)."""
        if self.cell is None or not self.tables:
            return
        text = "\n".join(clean(x) for x in "".join(self.cell).split("\n") if clean(x))
        header, rowspan, colspan = self.cell_attrs
        if not self.tables[-1]:
            self.tables[-1].append([])
        self.tables[-1][-1].append(Cell(header, text, rowspan, colspan))
        self.cell = None

    def _end_table(self) -> None:
        self._end_cell()
        rows = expand_spans([r for r in self.tables.pop() if r])
        self.cell, self.cell_attrs = self.nested_cell_stack.pop() if self.nested_cell_stack else (None, (False, 1, 1))
        if self.tables:  # a nested table: its text goes into the enclosing cell
            if self.cell is not None:
                self.cell.append("\n".join(" ".join(c.text for c in r) for r in rows))
        elif rows:
            self.page.blocks.append(("table", rows))

    def _end_dl(self) -> None:
        """A top-level <dl> of term/definition pairs (`<dt>Title</dt><dd>voice line</dd>`): besides its text,
        offer it as a two-column table; `__init__` decides which reading the page wants."""
        dl, nested = self.dl, self.dl_nested
        self.dl, self.dl_item, self.dl_nested = None, None, False
        if dl is None or nested:
            return
        start, items = dl
        tags = [t for t, _ in items]
        if len(items) < 4 or tags != ["dt", "dd"] * (len(items) // 2) or not all(x for _, x in items):
            return
        rows = [[Cell(True, items[i][1]), Cell(False, items[i + 1][1])] for i in range(0, len(items), 2)]
        txt = "".join(self.text[start:])
        del self.text[start:]
        self._flush_text()
        self.page.blocks.append(("dl", (expand_spans(rows), clean_lines(txt))))

    def handle_data(self, data):
        if self.in_title:
            self.page.title += data
            return
        if self.in_h1:
            self.page.h1 += data
            return
        if self.skip:
            return
        if self.heading is not None:
            self.heading.append(data)
        elif self.cell is not None:
            self.cell.append(data)
        elif not self.tables:
            if self.dl_item is not None:
                self.dl_item[1].append(data)
            if self.in_lead and self.lead is not None:
                self.lead.append(data)
            if self.pending_mark is not None:
                if not data.strip():
                    return
                self.text.append(self.pending_mark + " ")
                self.pending_mark = None
            self.text.append(data)

    # lxml's parser-target interface
    def start(self, tag, attrib) -> None:
        self.handle_starttag(tag, attrib.items())

    def end(self, tag) -> None:
        self.handle_endtag(tag)

    def data(self, text) -> None:
        self.handle_data(text)

    def close(self):
        while self.tables:  # an unclosed table (a page cut short, or </table> left out)
            self._end_table()
        self._flush_text()


_START = {
    "h1": _Reader._start_h1, **{h: _Reader._start_heading for h in _HEADINGS}, "table": _Reader._start_table,
    "tr": _Reader._start_row, "td": _Reader._start_cell, "th": _Reader._start_cell,
    **{t: _Reader._start_list for t in _LIST_MARK}, **{t: _Reader._start_item for t in ("li", "dd", "dt")},
    "hr": lambda r, tag, a: r._separator(), **{t: _Reader._start_para for t in _PARA},
    "b": _Reader._start_bold, "strong": _Reader._start_bold, "br": lambda r, tag, a: r._br(),
    **{t: _Reader._start_italic for t in _ITALIC}, "q": lambda r, tag, a: r._write("“"), "cite": _Reader._start_cite,
    "blockquote": _Reader._start_blockquote,
}

_END = {
    "title": lambda r, tag: setattr(r, "in_title", False), "h1": _Reader._end_h1,
    **{h: _Reader._end_heading for h in _HEADINGS},
    "td": lambda r, tag: r._end_cell() if r.tables and r.cell is not None else None,
    "th": lambda r, tag: r._end_cell() if r.tables and r.cell is not None else None,
    "tr": lambda r, tag: r._end_cell() if r.tables else None,
    "table": lambda r, tag: r._end_table() if r.tables else None,
    **{t: _Reader._end_list for t in _LIST_MARK}, **{t: _Reader._end_italic for t in _ITALIC},
    "b": _Reader._end_bold, "strong": _Reader._end_bold, "q": lambda r, tag: r._write("”"),
    "blockquote": _Reader._end_blockquote, **{t: _Reader._end_para for t in _PARA},
    **{t: _Reader._end_item for t in ("li", "dd", "dt")},
}


def read_html(text: str) -> Page:
    r = _Reader()
    parser = etree.HTMLParser(target=r, remove_comments=True, remove_pis=True)
    parser.feed(text)
    parser.close()
    r.page.title, r.page.h1 = clean(r.page.title), clean(r.page.h1)
    r.page.lead = "" if r.lead is None or r.lead_italic else clean("".join(r.lead))
    return r.page
