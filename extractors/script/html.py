"""Scripts saved as web pages: an IMSDb page (the script inside `<pre>`, cues in `<b>`), or a play
exported to HTML (`<p>`/`<br>` lines). `html_to_text` turns such a page into the plain-text layout the
parsers read: the `<pre>` blocks when they hold most of the page, else the page with block tags turned
into line breaks; tags dropped, entities decoded, `<script>`/`<style>` removed. Plain text passes unchanged.
Pages are read with lxml's HTML parser.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml import html as lxml_html

_LOOKS_HTML = re.compile(r"<(?:html|body|pre|p|div|br|head)\b[^>]*>", re.IGNORECASE)
_BLOCK = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "li", "dd", "dt", "blockquote", "table", "section"}
_DROP = ("script", "style", "head")


def looks_like_html(text: str) -> bool:
    return len(_LOOKS_HTML.findall(text[:20000])) >= 2


def _flow_text(root) -> str:
    """The page's text with block tags as paragraph breaks and `<br>` as line breaks (source line breaks are
    spaces, as a browser shows them)."""
    out: list[str] = []
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if event == "start":
            if tag == "br":
                out.append("\n")
            elif tag in _BLOCK:
                out.append("\n\n")
            if el.text:
                out.append(el.text.replace("\n", " "))
        else:
            if tag in _BLOCK:
                out.append("\n\n")
            if el.tail and el is not root:
                out.append(el.tail.replace("\n", " "))
    body = "\n".join(ln.strip() for ln in "".join(out).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", body)


def html_to_text(text: str) -> str:
    """Plain text of a script web page (see the module docstring); non-HTML text is returned as is."""
    if not looks_like_html(text):
        return text
    root = lxml_html.document_fromstring(text)
    etree.strip_elements(root, *_DROP, etree.Comment, with_tail=False)
    pres = [pre.text_content() for pre in root.iter("pre")]
    if pres and sum(len(p) for p in pres) >= 0.5 * len(root.text_content()):
        body = "\n\n".join(pres)  # IMSDb: layout kept by <pre>, only inline tags inside
    else:
        body = _flow_text(root)
    return body.replace("\xa0", " ")
