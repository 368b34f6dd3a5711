"""Wiki markup off a quote page: `strip_wikitext` (raw wikitext -> plain lines, quote templates become
`"text" — who, source`) and `no_marks` (bold/italic apostrophes, Markdown emphasis, footnote marks).
"""

from __future__ import annotations

import html as _html
import re

from ..text import OPEN_QUOTES as _OPEN


FOOTNOTE_RE = re.compile(r"\s*\[(?:src|\d{1,3}|[a-z]|note \d+|citation needed|clarification needed|需要来源|来源请求|注 ?\d+)\]",
                         re.IGNORECASE)
_QUOTE_TEMPLATES = {"quote", "cquote", "quotation", "quote box", "quotebox", "q", "rquote", "quotation box", "dialogquote"}
_TPL_TEXT = ("quotetext", "quote", "text", "1")
_TPL_WHO = ("personquoted", "author", "sign", "speaker", "character", "source_person", "2")
_TPL_SRC = ("quotesource", "source", "title", "work", "episode", "3")


def _template(m: re.Match) -> str:
    parts = [p.strip() for p in m.group(1).split("|")]
    name = parts[0].lower().replace("_", " ")
    if name not in _QUOTE_TEMPLATES:
        return ""
    named: dict[str, str] = {}
    pos = 1
    for p in parts[1:]:
        k, eq, v = p.partition("=")
        if eq and re.fullmatch(r"[\w ]{1,20}", k.strip()):
            named[k.strip().lower()] = v.strip()
        else:
            named[str(pos)] = p
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


def strip_wikitext(text: str) -> str:
    """Raw wikitext -> plain lines (quote templates become `"text" — who, source`)."""
    text = re.sub(r"^[ \t]*<!--.*?-->[ \t]*\n", "", text, flags=re.S | re.M)  # comment lines vanish
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<ref[^>/]*/>", "", text, flags=re.I)
    text = re.sub(r"<ref[^>]*>.*?</ref>", "", text, flags=re.I | re.S)
    for _ in range(5):
        new = re.sub(r"\{\{([^{}]*)\}\}", _template, text)
        if new == text:
            break
        text = new
    text = re.sub(r"\[\[(?:File|Image|Category|Media|文件|檔案|图像|分类|分類|Kategorie|Datei|Bild|Catégorie|Fichier|"
                  r"Categoría|Categoria|Archivo|Kategoria|Plik|Категория|Файл|カテゴリ|ファイル):[^\]]*\]\]", "", text, flags=re.I)
    text = re.sub(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://\S+\s+([^\]]+)\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://\S+\]", "", text)
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
    text = re.sub(r"</?(?:i|em|cite)>", "''", text, flags=re.I)
    text = re.sub(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>", "", text)
    return _html.unescape(text)


def _no_marks(s: str) -> str:
    """Drop bold/italic apostrophes (and Markdown **bold**/*italics*) and footnote marks."""
    s = s.replace("'''", "").replace("''", "")
    s = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", s)
    s = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"\1", s)
    return FOOTNOTE_RE.sub("", s).strip()

