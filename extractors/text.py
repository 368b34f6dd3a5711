"""Shared text helpers: sentence ends, quote marks, cleaning and joining (scripts, wiki pages, novels).

One place for the character sets the parsers read text with. Project Gutenberg's header and footer are found
here in place (offsets kept): `gutenbergpy` and `gutenberg-cleaner` rebuild the text line by line, losing the
offsets, pull in pymongo/lxml or nltk, and cut at a `Produced by` line."""

from __future__ import annotations

import re

# -- sentence ends ---------------------------------------------------------------------------------------------
SENTENCE_END_MARKS = ".!?。！？"
SENTENCE_END_RE = re.compile(f"[{re.escape(SENTENCE_END_MARKS)}]")
# a speech line that ends with one of these did not wrap (colon scripts): closing quotes, ellipsis, tilde
SPEECH_END = tuple(SENTENCE_END_MARKS + "」』\"”…~～")
# a parenthesis after one of these opens a new sentence (plays): clause ends and dashes too
CLAUSE_END = tuple(SENTENCE_END_MARKS + ";:—-…")
# English prose (novels): a sentence or clause ends at `.!?;`, but not the full stop of a title (`Mr. Darcy`)
EN_CLAUSE_END_MARKS = ".!?;"
NOT_AFTER_TITLE = r"(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)"
EN_CLAUSE_END = f"{NOT_AFTER_TITLE}[{EN_CLAUSE_END_MARKS}]"
# Chinese full stops (the ideographic full stop, its full-width variant, ！ and ？)
ZH_FULL_STOPS = "．。！？"

# -- quote marks -----------------------------------------------------------------------------------------------
OPEN_QUOTES = "\"“„«»「『'‘‚‹〝"
CLOSE_QUOTES = "\"”»«」』'’‘›“〟"
# an opening quote mark -> the marks that may close it: English “…”/"…"/‘…’/'…', German „…“/»…«/‚…‘,
# French « … », Japanese/Chinese 「…」/『…』
QUOTE_PAIRS = {'"': '"', "“": "”“", "”": "”", "„": "“”", "«": "»", "»": "«", "‹": "›", "›": "‹", "「": "」",
               "『": "』", "‘": "’‘", "'": "'", "‚": "‘’", "〝": "〟〞"}
# the pairs a script line is quoted with (`Name:「words」`, `Name: "words"`)
SCRIPT_QUOTE_PAIRS = {"「": "」", "『": "』", "“": "”", '"': '"', "‘": "’"}
# a line that ends with a closing quote (and maybe a sentence mark after it)
CLOSED_QUOTE_END_RE = re.compile(rf"[{CLOSE_QUOTES}][{SENTENCE_END_MARKS}]?$")


def _apostrophe(s: str, i: int) -> bool:
    """Is the mark at s[i] an apostrophe (We're, don't, Holmes' pipe) rather than a quote mark?"""
    if s[i] not in "'’":
        return False
    before = s[i - 1] if i > 0 else " "
    after = s[i + 1] if i + 1 < len(s) else " "
    return before.isalpha() and (after.isalpha() or after == " " and before in "sS")


def unquote(text: str) -> str:
    """'"quote"' / '« citation »' / '„Zitat“' / "'quote'" / '「台词」' -> the words inside; else unchanged.

    A sentence mark after the closing quote ('"Quite so".') stays; the words are not unquoted when
    the same marks also occur inside (two quotes on one line), apostrophes excepted."""
    t = text.strip()
    if len(t) < 2 or t[0] not in QUOTE_PAIRS:
        return t
    closes = QUOTE_PAIRS[t[0]]
    body, tail = t, ""
    if len(body) > 2 and body[-1] in SENTENCE_END_MARKS and body[-2] in closes:
        body, tail = body[:-1], body[-1]
    if body[-1] not in closes:
        return t
    inner = body[1:-1]
    marks = set(t[0]) | set(closes)
    if any(ch in marks and not _apostrophe(inner, i) for i, ch in enumerate(inner)):
        return t
    inner = inner.strip()
    if tail and inner and inner[-1] not in SENTENCE_END_MARKS + "…":
        inner += tail
    return inner


def unquote_pair(text: str) -> str:
    """`「words」` / `"words"` -> the words, when one script quote pair encloses the whole text."""
    text = text.strip()
    if len(text) >= 2 and text[0] in SCRIPT_QUOTE_PAIRS and text.endswith(SCRIPT_QUOTE_PAIRS[text[0]]):
        inner = text[1:-1]
        if text[0] not in inner and SCRIPT_QUOTE_PAIRS[text[0]] not in inner:
            return inner.strip()
    return text


# -- cleaning and joining --------------------------------------------------------------------------------------
_SPACES = re.compile(r"\s+")
CJK_EDGE = re.compile(r"[\u3000-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def clean(text: str) -> str:
    """Collapse runs of whitespace (joins continuation lines with single spaces)."""
    return _SPACES.sub(" ", text).strip()


def join_lines(parts: list[str]) -> str:
    """Join wrapped lines: with a space, except between two CJK characters."""
    out = ""
    for p in (p.strip() for p in parts):
        if not p:
            continue
        if out and not (CJK_EDGE.match(out[-1]) and CJK_EDGE.match(p[0])):
            out += " "
        out += p
    return out


def strip_italics(text: str) -> str:
    """Gutenberg marks stage directions as `_Exit._`: drop the underscores."""
    return clean(text.replace("_", " "))


_PG_START = re.compile(r"^\*\*\*\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE | re.IGNORECASE)
_PG_END = re.compile(r"^\*\*\*\s*END OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE | re.IGNORECASE)


def gutenberg_body(text: str) -> tuple[int, int]:
    """(start, end) of the work inside a Project Gutenberg file: between its `*** START OF THE PROJECT
    GUTENBERG EBOOK … ***` and `*** END OF …` lines (the whole text when they are absent)."""
    m = _PG_START.search(text)
    start = m.end() if m else 0
    m = _PG_END.search(text, start)
    return start, m.start() if m else len(text)


def strip_gutenberg(text: str) -> str:
    start, end = gutenberg_body(text)
    return text[start:end]


def mask_gutenberg(text: str) -> str:
    """The text with the licence header and footer blanked (line breaks kept), so offsets stay the file's."""
    start, end = gutenberg_body(text)
    if (start, end) == (0, len(text)):
        return text
    blank = lambda s: re.sub(r"[^\n]", " ", s)  # noqa: E731
    return blank(text[:start]) + text[start:end] + blank(text[end:])
