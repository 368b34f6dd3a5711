"""Scripts saved as web pages: an IMSDb page (the script inside `<pre>`, cues in `<b>`), or a play
exported to HTML (`<p>`/`<br>` lines). `html_to_text` turns such a page into the plain-text layout the
parsers read: the `<pre>` blocks when they hold most of the page, else the page with block tags turned
into line breaks; tags dropped, entities decoded, `<script>`/`<style>` removed. Plain text passes unchanged.
"""

from __future__ import annotations

import html
import re

_LOOKS_HTML = re.compile(r"<(?:html|body|pre|p|div|br|head)\b[^>]*>", re.IGNORECASE)
_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre\s*>", re.IGNORECASE | re.DOTALL)
_DROP = re.compile(r"<(script|style|head)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_BLOCK = re.compile(r"</?(?:p|div|h[1-6]|tr|li|dd|dt|blockquote|table|section)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")


def looks_like_html(text: str) -> bool:
    return len(_LOOKS_HTML.findall(text[:20000])) >= 2


def html_to_text(text: str) -> str:
    """Plain text of a script web page (see the module docstring); non-HTML text is returned as is."""
    if not looks_like_html(text):
        return text
    text = _DROP.sub("", text)
    pres = _PRE.findall(text)
    visible = len(_TAG.sub("", text))
    if pres and sum(len(_TAG.sub("", p)) for p in pres) >= 0.5 * visible:
        body = "\n\n".join(pres)  # IMSDb: layout kept by <pre>, only inline tags inside
    else:
        body = _BLOCK.sub("\n\n", _LINE_BREAK.sub("\n", text.replace("\n", " ")))
        body = "\n".join(ln.strip() for ln in body.split("\n"))
        body = re.sub(r"\n{3,}", "\n\n", body)
    return html.unescape(_TAG.sub("", body)).replace("\xa0", " ")
