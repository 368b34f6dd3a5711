"""Read a wiki page's HTML with the standard library's `html.parser`: title, headings, tables, text.

`read_html(text)` returns a `Page`: its `<title>` and first `<h1>`, and its body as a list of
blocks in document order:

- ("heading", (level, text)) for `<h2>`..`<h6>`;
- ("text", text): the running text rewritten in the wikitext-like form `quotes.py` reads, so
  the structure a saved Wikiquote/Fandom page carries survives: a list item is a line opened by
  `*` (`#` in an `<ol>`), one more per nesting level (`<ul><li>quote<ul><li>Character, Episode`
  -> `* quote` / `** Character, Episode`); a `<dd>` line opens with `:`; a `<dt>` with `;`;
  italics are kept as `''`; `<hr>` becomes a `----` separator line, the start/end of a top-level `<dl>` (one Wikiquote
  exchange) a soft separator line `\x00DL` (see `quotes.py`); paragraphs end with a blank line;
- ("table", rows), each row a list of `Cell(header, text)`, with `rowspan`/`colspan` expanded
  (a spanned cell is repeated, `Cell.origin` names the cell it copies);
- ("dl", (rows, text)) for a top-level `<dl>` of two or more `<dt>term</dt><dd>text</dd>` pairs: its
  rows as a two-column table and its text as above (a voice-line list or a definition list: the
  caller picks).

Dropped: scripts, styles, audio/button widgets, footnote marks (`<sup>`), ruby readings, and
page furniture found by tag or class/id (navigation, footer, infobox, table of contents,
`[edit]` links, reference lists).
"""

from __future__ import annotations

from html.parser import HTMLParser

from ..text import clean
from .cells import Cell, Page, _span, expand_spans

_BLOCK = {"div", "blockquote", "section", "article", "pre", "center", "tbody", "thead", "figure", "figcaption"}
_PARA = {"p"}
_HEADINGS = {"h2", "h3", "h4", "h5", "h6"}
_SKIP = {"script", "style", "noscript", "audio", "video", "button", "template", "svg", "sup", "rt", "rp",
         "nav", "footer", "aside", "form", "select", "textarea", "head"}
_SKIP_CLASSES = {
    "mw-editsection", "toc", "navbox", "reference", "references", "reflist", "mw-references-wrap", "noprint",
    "catlinks", "printfooter", "mw-jump-link", "portable-infobox", "infobox", "mw-cite-backlink", "page-footer",
    "global-navigation", "wds-global-navigation", "fandom-community-header", "page-header__categories",
    "page-side-tools", "mw-indicators", "vector-header", "vector-column-start", "mw-footer", "sistersitebox",
    "wikipedia-box", "interwiki", "vector-toc", "mw-portlet", "page-header__actions", "audio-button",
}
_SKIP_IDS = {"toc", "mw-navigation", "footer", "catlinks", "mw-panel", "mw-head", "sitesub", "contentsub",
             "jump-to-nav", "p-lang", "mw-page-base", "mw-head-base", "sitenotice", "vector-toc"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "source", "wbr", "col", "area", "base", "embed", "param", "track"}
_ITALIC = {"i", "em"}
_LIST_MARK = {"ul": "*", "ol": "#", "dl": ":"}
SEPARATOR = "----"
SOFT_SEPARATOR = "\x00DL"  # the edge of a top-level <dl>: an exchange boundary unless the page uses <hr> for that

class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
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
        out = self._clean_lines(txt)
        if out:
            self.page.blocks.append(("text", out))

    @staticmethod
    def _clean_lines(txt: str) -> str:
        out: list[str] = []
        for ln in txt.split("\n"):
            s = clean(ln)
            if s == "\x01":  # a paragraph break: one blank line
                if out and out[-1] != "":
                    out.append("")
            elif s.strip("*#:; ") or s == SEPARATOR:
                out.append(s)
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out)

    def _skipped(self, tag: str, attrs: dict) -> bool:
        if tag == "footer" and self.blockquote:  # <blockquote>...<footer>— Name</footer>: the attribution
            return False
        if tag in _SKIP:
            return True
        classes = set(str(attrs.get("class") or "").lower().split())
        if classes & _SKIP_CLASSES:
            return True
        return str(attrs.get("id") or "").lower() in _SKIP_IDS

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.skip:
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
        if self._skipped(tag, a):
            if tag not in _VOID:
                self.skip.append([tag, 1])
            return
        if tag == "h1":
            self.in_h1 = True
        elif tag in _HEADINGS and not self.tables:
            self._flush_text()
            self.heading = []
            self.heading_level = int(tag[1])
        elif tag == "table":
            if not self.tables:
                self._flush_text()
            self.nested_cell_stack.append((self.cell, self.cell_attrs))
            self.cell = None
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._end_cell()
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self._end_cell()
            if not self.tables[-1]:
                self.tables[-1].append([])
            self.cell, self.cell_attrs = [], (tag == "th", _span(a, "rowspan"), _span(a, "colspan"))
        elif tag in _LIST_MARK:
            if tag == "dl" and not self.lists and self.cell is None and not self.tables:
                self._separator(SOFT_SEPARATOR)
                self.dl = (len(self.text), [])
            elif self.lists:
                self.dl_nested = True
            self.lists.append(_LIST_MARK[tag])
            self._newline()
        elif tag in ("li", "dd", "dt"):
            self._newline()
            if self.dl is not None and len(self.lists) == 1 and tag in ("dd", "dt") and self.cell is None:
                self.dl_item = (tag, [])
            if self.cell is None and not self.tables:  # the marker is written with the item's first words
                marks = "".join(self.lists) or ("*" if tag == "li" else ":")
                self.pending_mark = marks[:-1] + ";" if tag == "dt" else marks
                self.items.append(marks)
        elif tag == "hr":
            self._separator()
        elif tag in _PARA:
            self._newline(blank=True)
            if self.paras == 0 and not self.lists and not self.tables and self.cell is None:
                self.in_lead = True
            self.paras += 1
        elif tag in ("b", "strong") and self.in_lead and self.lead is None:
            self.lead = []
            self.lead_italic = self.italic > 0
        elif tag == "br":
            self._br()
        elif tag in _ITALIC and self.cell is None and not self.tables and self.heading is None:
            self.italic += 1
            if self.lead is not None and self.in_lead and not "".join(self.lead).strip():
                self.lead_italic = True
            self._italic()
        elif tag == "q":
            self._write("“")
        elif tag == "cite" and self.blockquote and self.cell is None and not self.tables:
            line = "".join(self.text).rsplit("\n", 1)[-1]
            if not line.strip(" \x01"):  # '<p><cite>Mr. Darcy</cite>, Chapter 34</p>' closing a quote: its attribution
                self.text.append("— ")
        elif tag == "blockquote":
            self.blockquote += 1
            self._newline(blank=True)
        elif tag in _BLOCK:
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

    def handle_startendtag(self, tag, attrs):
        if self.skip:
            return
        if tag == "br":
            self._br()
        elif tag == "hr":
            self._separator()

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
        if self.skip:
            if tag == self.skip[-1][0]:
                self.skip[-1][1] -= 1
                if self.skip[-1][1] == 0:
                    self.skip.pop()
            if tag == "title":
                self.in_title = False
            elif tag == "h1":
                self.in_h1 = False
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
                self.page.blocks.append(("heading", (self.heading_level, h)))
        elif tag in ("td", "th") and self.tables and self.cell is not None:
            self._end_cell()
        elif tag == "tr" and self.tables:
            self._end_cell()
        elif tag == "table" and self.tables:
            self._end_table()
        elif tag in _LIST_MARK and self.lists:
            self.lists.pop()
            self._newline()
            if tag == "dl" and not self.lists and self.cell is None and not self.tables:
                self._end_dl()
                self._separator(SOFT_SEPARATOR)
        elif tag in _ITALIC and self.cell is None and not self.tables and self.heading is None:
            self.italic = max(0, self.italic - 1)
            self.text.append("''")
        elif tag in ("b", "strong") and self.in_lead and self.lead is not None:
            self.in_lead = False  # only the first bold words of the first paragraph
        elif tag == "q":
            self._write("”")
        elif tag == "blockquote":
            self.blockquote = max(0, self.blockquote - 1)
            self._newline(blank=True)
        elif tag in _PARA:
            self.in_lead = False
            self._newline(blank=True)
        elif tag in _BLOCK or tag in ("li", "dd", "dt"):
            if tag in ("dd", "dt") and self.dl_item is not None and self.dl_item[0] == tag and self.dl is not None:
                self.dl[1].append((tag, clean(" ".join("".join(self.dl_item[1]).split()))))
                self.dl_item = None
            if tag in ("li", "dd", "dt"):
                self.pending_mark = None
                if self.items and self.cell is None and not self.tables:
                    self.items.pop()
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
        self.page.blocks.append(("dl", (expand_spans(rows), self._clean_lines(txt))))

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

    def close(self):
        super().close()
        while self.tables:  # an unclosed table (a page cut short, or </table> left out)
            self._end_table()
        self._flush_text()


def read_html(text: str) -> Page:
    r = _Reader()
    r.feed(text)
    r.close()
    r.page.title, r.page.h1 = clean(r.page.title), clean(r.page.h1)
    r.page.lead = "" if r.lead is None or r.lead_italic else clean("".join(r.lead))
    return r.page


def looks_like_html(text: str) -> bool:
    head = text[:4000].lower()
    low = text.lower()
    return ("<html" in head or "<!doctype html" in head or "<table" in low or "<body" in head or "<p>" in head
            or "<dl>" in low or "<ul>" in low or "<div" in head)
