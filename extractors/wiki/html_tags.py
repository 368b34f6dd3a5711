"""What the HTML reader (`html.py`) knows about tags: block, paragraph, heading, list and italic tags, the page
furniture it skips (by tag, class or id), the separator lines it writes, and `looks_like_html`.
"""

from __future__ import annotations

from ..text import clean

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


def skipped(tag: str, attrs: dict, in_blockquote: int) -> bool:
    """Is the element page furniture (navigation, footnote marks, [edit] links, infobox...)?"""
    if tag == "footer" and in_blockquote:  # <blockquote>...<footer>— Name</footer>: the attribution
        return False
    if tag in _SKIP:
        return True
    classes = set(str(attrs.get("class") or "").lower().split())
    if classes & _SKIP_CLASSES:
        return True
    return str(attrs.get("id") or "").lower() in _SKIP_IDS


def clean_lines(txt: str) -> str:
    """Running text -> its lines: whitespace collapsed, one blank line per paragraph break, empty list items dropped."""
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


def looks_like_html(text: str) -> bool:
    """Is the text a saved HTML page (rather than wikitext or copied text)?"""
    head = text[:4000].lower()
    low = text.lower()
    return ("<html" in head or "<!doctype html" in head or "<table" in low or "<body" in head or "<p>" in head
            or "<dl>" in low or "<ul>" in low or "<div" in head)
