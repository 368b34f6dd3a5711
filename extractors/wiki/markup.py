"""Wiki markup off a quote page: `strip_wikitext` (raw wikitext -> plain lines, quote templates become
`"text" — who, source`) and `no_marks` (bold/italic apostrophes, Markdown emphasis, footnote marks).
"""

from __future__ import annotations

import html as _html
import re

import mwparserfromhell
from mwparserfromhell.nodes import Comment, ExternalLink, Heading, Tag, Template, Text, Wikilink
from mwparserfromhell.wikicode import Wikicode

from ..text import OPEN_QUOTES as _OPEN

FOOTNOTE_RE = re.compile(r"\s*\[(?:src|\d{1,3}|[a-z]|note \d+|citation needed|clarification needed|需要来源|来源请求|注 ?\d+)\]",
                         re.IGNORECASE)
_QUOTE_TEMPLATES = {"quote", "cquote", "quotation", "quote box", "quotebox", "q", "rquote", "quotation box", "dialogquote"}
_TPL_TEXT = ("quotetext", "quote", "text", "1")
_TPL_WHO = ("personquoted", "author", "sign", "speaker", "character", "source_person", "2")
_TPL_SRC = ("quotesource", "source", "title", "work", "episode", "3")


_MEDIA_LINK = re.compile(r"^\s*(?:File|Image|Category|Media|文件|檔案|图像|分类|分類|Kategorie|Datei|Bild|Catégorie|Fichier|"
                         r"Categoría|Categoria|Archivo|Kategoria|Plik|Категория|Файл|カテゴリ|ファイル)\s*:", re.I)
_PARAM_KEY = re.compile(r"[\w ]{1,20}")
_MARK_TAGS = {"i", "em", "cite"}  # kept as '' italics marks
# templates, links, external links, tags and comments, entities
_MARKUP = re.compile(r"\{\{|\[\[|\[(?:https?|ftp)://|<|&")
# what may span lines: tags and comments, templates, tables
_MULTILINE = re.compile(r"<|\{\{|\{\|")
_NUL = "\ufdd0"  # a noncharacter standing in for NUL while mwparserfromhell reads the text
_COMMENT_LINE = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n", re.S | re.M)


def _template(tpl: Template) -> str:
    """A quote template -> `“text” — who, source`; any other template -> ""."""
    name = _plain(tpl.name).strip().lower().replace("_", " ")
    if name not in _QUOTE_TEMPLATES:
        return ""
    named: dict[str, str] = {}
    pos = 1
    for p in tpl.params:
        key = _plain(p.name).strip()
        if p.showkey and _PARAM_KEY.fullmatch(key):
            named[key.lower()] = _plain(p.value).strip()
        else:  # positional, or a '=' inside the words ('1+1=2')
            named[str(pos)] = (f"{key}={_plain(p.value)}" if p.showkey else _plain(p.value)).strip()
            pos += 1

    def first(keys):
        return next((named[k] for k in keys if named.get(k)), "")

    text, who, src = first(_TPL_TEXT), first(_TPL_WHO), first(_TPL_SRC)
    if not text:
        return ""
    if text[0] not in _OPEN:
        text = f"“{text}”"
    if not who:
        return text
    return f"{text} — {who}" + (f", {src}" if src else "")


def _tag(tag: Tag) -> str:
    """An HTML tag: <ref> and its note go, <br> is a line break, <i>/<em>/<cite> keep '' marks, others their words."""
    if tag.wiki_markup:  # list marks, `----`, tables: kept as written, their contents read
        if tag.contents is not None:
            plain = _plain(tag.contents)
            if plain != str(tag.contents):
                tag.contents = mwparserfromhell.parse(plain, skip_style_tags=True)
        return str(tag)
    name = _plain(tag.tag).strip().lower()
    if name == "ref":
        return ""
    if name == "br":
        return "\n"
    inner = _plain(tag.contents) if tag.contents is not None and not tag.self_closing else ""
    if name in _MARK_TAGS:
        plain_open = not tag.attributes and not tag.self_closing and str(tag).lower().startswith(f"<{name}>")
        plain_close = tag.closing_tag is not None and str(tag).lower().endswith(f"</{name}>")
        return ("''" if plain_open else "") + inner + ("''" if plain_close else "")
    return inner


def _node(node) -> str:
    if isinstance(node, Text):
        return node.value
    if isinstance(node, Comment):
        return ""
    if isinstance(node, Template):
        return _template(node)
    if isinstance(node, Wikilink):  # [[target|label]] -> label (or target); files and categories go
        if _MEDIA_LINK.match(str(node.title)):
            return ""
        return _plain(node.text) if node.text is not None else _plain(node.title)
    if isinstance(node, ExternalLink) and node.brackets and re.match(r"(?:https?|ftp)://", str(node.url)):
        return _plain(node.title).strip() if node.title is not None else ""
    if isinstance(node, Tag):
        return _tag(node)
    if isinstance(node, Heading):
        return "=" * node.level + _plain(node.title) + "=" * node.level
    return str(node)


def _plain(code: Wikicode) -> str:
    return "".join(_node(n) for n in code.nodes)


def _parse_plain(text: str) -> str:
    # the marker lines (`\x00T0` tables, `\x00DL`) hold NUL, where mwparserfromhell's tokenizer stops reading
    return _plain(mwparserfromhell.parse(text.replace("\x00", _NUL), skip_style_tags=True)).replace(_NUL, "\x00")


def strip_wikitext(text: str) -> str:
    """Raw wikitext -> plain lines (quote templates become `"text" — who, source`), read with mwparserfromhell;
    tags it leaves as text (an unclosed `<span>`) are dropped too."""
    if not _MARKUP.search(text):
        return text  # nothing the steps below would change (they all need one of these marks)
    if _MULTILINE.search(text):
        text = _COMMENT_LINE.sub("", text)  # a line holding only a comment vanishes with its line break
        text = _parse_plain(text)
        text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
        text = re.sub(r"</?(?:i|em|cite)>", "''", text, flags=re.I)
        text = re.sub(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>", "", text)
    else:  # only one-line constructs (links, external links, entities): read just the lines holding them
        text = "\n".join(_parse_plain(ln) if _MARKUP.search(ln) else ln for ln in text.split("\n"))
    return _html.unescape(text)


def _no_marks(s: str) -> str:
    """Drop bold/italic apostrophes (and Markdown **bold**/*italics*) and footnote marks."""
    s = s.replace("'''", "").replace("''", "")
    s = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", s)
    s = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"\1", s)
    return FOOTNOTE_RE.sub("", s).strip()

