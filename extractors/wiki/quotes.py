"""Quote pages as text: raw wikitext, text copied from a browser, or HTML rewritten by `html.py`.

Understood, line by line:

- headings: `== Section ==` (wikitext; `html.py` writes `<h2>`..`<h6>` this way), `# Section`
  (Markdown, when the page has no `==` headings), a line ending in `[edit]`/`[编辑]` (copied
  page), `;Term` (a definition term), and short title-like lines right before dialogue or a
  list (copied page);
- list markers: wikitext `*`, `#`, `:` (one per nesting level, `**` nests), copied bullets
  `•` (level 1), `◦` (level 2), `▪` (level 3);
- attributed quotes: `"quote" — Character` / `“quote” ―Character, "Episode"` /
  `「……」——凉宫春日《……》` on one line (dashes: — ― – -- ~ ——); a quote block (one or more
  lines, quoted or not) followed by a `-- Character, "Episode"` / `― Character` line, or by a
  more deeply nested list item (`* quote` / `** Character, ''Episode''`, `• quote` / `◦ Holmes
  to Watson`); `{{Quote|text|Character|Source}}` templates; also `"quote" - Name` (a lone hyphen
  after a whole quoted text), `''quote in italics'' — Name`, `Name — "quote"`, `Unquoted sentence. ―
  Name` (name-like speakers only), numbered lists `1. "quote" — Name`, and a quote over several
  lines or paragraphs (it waits for its closing mark; the last line may carry `— Name`);
- quote marks of every family come off the words (`unquote`): "…", “…”, '…', ‘…’, «…», »…«, „…“,
  ‚…‘, 「…」, 『…』 (apostrophes inside are kept);
- dialogue excerpts: `Name: words` / `'''Name''': words` lines (the colon-script rules),
  `Name: [stage direction]` and `[stage direction]` lines (-> `action`);
- unattributed quotes: under a heading that names a speaker of the page (a Wikiquote film
  page's `== Inigo Montoya ==` section) they are that speaker's; a quoted line with no
  attribution belongs to the page's character when one is known; otherwise it is skipped.
  A nested item that is a source, not a person (`** Chapter 1`, `** ''A Study in Scarlet''
  (1887)`: italics, digits, chapter words) is kept in `extra.source`.

Units. A dialogue exchange is one block: it ends at a heading, a `----` separator (`<hr>`), a
standalone quote, and, on a page with no `----`/`<hr>`, at the edge of a top-level `<dl>` and at
a blank line when the page writes exchanges as runs of consecutive `Name: words` lines. Each standalone quote is a block of its own. The
unit is the heading path (`Season 1 / Pilot [1.01]`), numbered `#1`, `#2`... when a section
holds more than one block, so the segmenter never joins two scenes.

The episode/work after the character's name is kept in `extra.episode`; `Name to Watson` keeps
`extra.context` = "to Watson".
"""

from __future__ import annotations

import re
from typing import Callable

from ..speaker_cues import NARRATION_NAMES
from ..text import CLOSE_QUOTES as _CLOSE
from ..text import QUOTE_PAIRS, clean, join_lines, unquote
from .attribution import Attribution, parse_attribution, split_attribution
from .markup import _no_marks, strip_wikitext
from .owners import _finish
from .page_lines import (ATTRIB_RE, DIRECTION_LINE_RE, HYPHEN_ATTRIB_RE, LEADING_DIRECTION_RE, TAIL_INLINE_RE, _classify,
                         _is_cue, _mark_soft_headings, _quoted, inline_quote)
from .records import Placed as _Out
from .records import Quote

__all__ = ["parse_quote_text", "Quote", "strip_wikitext", "unquote", "split_attribution", "parse_attribution"]

SITE_TITLE_RE = re.compile(r"\A\s*[^\n]{1,80}?\s[-—–|]\s*(?:Wikiquote|Wikipedia|Wikiquote,[^\n]*|Wikipédia[^\n]*|"
                           r"[^\n]{0,40}\bWiki(?:\s*\|\s*Fandom)?|Fandom|维基语录|維基語錄|萌娘百科[^\n]*)\s*$", re.M)
_PARA_BREAK = "\x02"  # a paragraph break inside a pending quote


def _unquote_paragraphs(paras: list[str]) -> str:
    """A quote over several paragraphs: one pair of marks around all of them, or (the English
    convention) an opening mark on every paragraph and a closing one on the last."""
    whole = unquote(" ".join(paras))
    if whole != " ".join(paras).strip() or len(paras) == 1:
        return whole
    out = []
    for p in paras:
        u = unquote(p)
        if u == p.strip():
            if p[:1] in QUOTE_PAIRS and sum(p.count(c) for c in set(p[0]) | set(QUOTE_PAIRS[p[0]])) == 1:
                u = p[1:].strip()
            elif p[-1:] in _CLOSE and sum(p.count(c) for c in p[-1]) == 1:
                u = p[:-1].strip()
        out.append(u)
    return " ".join(out)




def parse_quote_text(
    text: str,
    page_character: str | None = None,
    unit: str = "1",
    tables: dict[str, list[Quote]] | None = None,
    is_character: Callable[[str], bool] | None = None,
    page_heading: str | None = None,
) -> list[Quote]:
    """Parse the text of a quote page; `page_character` owns unattributed quoted lines.

    `page_heading` (the page's `<h1>`) owns them instead when no page character is given and it
    names someone who speaks elsewhere on the page (`Sherlock Holmes` when `Holmes to Watson` is
    an attribution there).

    `tables` maps `\\x00T<n>` marker lines to quotes already read from HTML tables (one block
    each); `is_character(name)` says whether a name is a configured character (accepted as a
    speaker even when it does not look like one, and as the owner of a section named after it).
    """
    text = strip_wikitext(text)
    # a copied page opens with the browser's title: 'Cyrano de Bergerac — Wikiquote, le recueil de citations libre'
    text = SITE_TITLE_RE.sub("", text, count=1)
    wikitext_headings = bool(re.search(r"^\s*==[^=\n]+==\s*$", text, re.M))
    items = [_classify(raw, wikitext_headings) for raw in text.split("\n")]
    # a page that marks exchanges with ----/<hr> keeps an exchange together across blank lines and <dl>
    # edges (MediaWiki renders a `:Name: x` line, a blank line and a `:Name: y` line as two <dl>s)
    ruled = any(it.kind == "sep" for it in items)
    for it in items:
        if it.kind == "softsep":
            it.kind = "blank" if ruled else "sep"
    _mark_soft_headings(items)
    cue_lines = [i for i, it in enumerate(items) if it.kind == "line" and _is_cue(it.text)]
    tight = any(items[i + 1].kind == "line" and _is_cue(items[i + 1].text) for i in cue_lines if i + 1 < len(items))
    if ruled:
        tight = False

    out: list[_Out] = []
    path: list[tuple[int, str]] = []
    soft_run = False
    block = 0
    exchange = False  # is a dialogue block open?
    spoken = False  # has it a `Name: words` line yet?
    pending: list[str] = []
    pending_depth = 0
    pending_marks = ""
    last_dialogue: _Out | None = None

    def cur_path() -> tuple[str, ...]:
        return tuple(t for _, t in path)

    def new_block() -> int:
        nonlocal block
        block += 1
        return block

    def flush(att: Attribution | None = None) -> None:
        nonlocal pending
        lines = pending
        pending = []
        if not lines:
            return
        paras: list[list[str]] = [[]]
        for x in lines:
            if x == _PARA_BREAK:
                paras.append([])
            else:
                paras[-1].append(_no_marks(x))
        texts = [join_lines(p) for p in paras if p]
        words = clean(_unquote_paragraphs(texts)) if texts else ""
        if not words:
            return
        quoted = _quoted(" ".join(texts)) or all(_quoted(_no_marks(x)) for x in lines if x != _PARA_BREAK)
        extra = dict(att.extra) if att else {}
        if att and (att.name or att.narrating):
            kind = "narration" if att.narrating else "dialogue"
            q = Quote(kind, words, unit, None if att.narrating else att.name, extra)
            out.append(_Out(q, new_block(), cur_path()))
            return
        q = Quote("dialogue", words, unit, None, extra)
        out.append(_Out(q, new_block(), cur_path(), owner_headings=cur_path() or ("",), quoted=quoted))

    def end_exchange() -> None:
        nonlocal exchange, last_dialogue, spoken
        exchange, last_dialogue, spoken = False, None, False

    def attribution_next(idx: int) -> bool:
        """Is the next line (past blanks and separators) a dash attribution? Then a pending quote waits for it."""
        for nx in items[idx + 1:]:
            if nx.kind in ("blank", "sep"):
                continue
            return nx.kind == "line" and bool(ATTRIB_RE.match(_no_marks(nx.text)))
        return False

    def quote_open() -> bool:
        """Does the pending text open a quote that has not closed yet?"""
        first = next((_no_marks(x) for x in pending if x != _PARA_BREAK), "")
        last = _no_marks(pending[-1]) if pending[-1] != _PARA_BREAK else ""
        return bool(first) and first[0] in QUOTE_PAIRS and not (last and re.search(rf"[{_CLOSE}][.!?。！？]?$", last)
                                                                  and len(last) > 1)

    def closes_ahead(idx: int) -> bool:
        """Is there, before the next heading, separator or cue (and within 12 lines), a line that closes a quote?"""
        for nx in items[idx + 1: idx + 13]:
            if nx.kind == "blank":
                continue
            if nx.kind != "line" or _is_cue(nx.text) or nx.depth != pending_depth:
                return False
            if ATTRIB_RE.match(_no_marks(nx.text)) or inline_quote(_no_marks(nx.text)):
                return False
            if re.search(rf"[{_CLOSE}][.!?。！？]?$", _no_marks(nx.text)):
                return True
        return False

    def cue_next(idx: int) -> bool:
        for nx in items[idx + 1:]:
            if nx.kind != "blank":
                return nx.kind == "line" and (_is_cue(nx.text) is not None or bool(DIRECTION_LINE_RE.match(_no_marks(nx.text)))
                                              or nx.text.strip().startswith("''"))
        return False

    for idx, it in enumerate(items):
        if it.kind in ("blank", "sep"):
            if it.kind == "blank" and pending and quote_open() and closes_ahead(idx):
                pending.append(_PARA_BREAK)  # a quote over several paragraphs: its closing mark is ahead
                continue
            if not (pending and attribution_next(idx)):
                flush()
            if it.kind == "sep" or tight and spoken:  # (a block of only directions sets the next exchange's scene)
                end_exchange()
            continue
        if it.kind == "heading":
            flush()
            end_exchange()
            if not it.text:
                continue
            if it.level == 0:  # a soft heading (copied page): consecutive ones nest
                lvl = (path[-1][0] + 1) if (soft_run and path) else 2
                soft_run = True
            else:
                lvl = it.level or 2
                soft_run = False
            while path and path[-1][0] >= lvl:
                path.pop()
            path.append((lvl, it.text))
            continue
        soft_run = False
        if it.kind == "table":
            flush()
            end_exchange()
            b = new_block()
            for n, q in enumerate((tables or {}).get(it.text, [])):
                if q.own_block and n:
                    b = new_block()
                out.append(_Out(Quote(q.kind, q.text, unit, q.name, dict(q.extra)), b, cur_path()))
            continue
        s, depth = it.text, it.depth
        plain = _no_marks(s)
        # `*:` continues the `*` item above it (wikitext)
        if pending and it.marks.endswith(":") and len(it.marks) > 1 and it.marks[:-1] == pending_marks:
            pending.append(s)
            continue
        # a nested item under a pending quote: its attribution or source
        if pending and depth > pending_depth and pending_depth > 0:
            flush(parse_attribution(s, is_character))
            continue
        m = TAIL_INLINE_RE.match(plain) if pending and depth == pending_depth and quote_open() else None
        if m:
            att = parse_attribution(m.group("who"), is_character)
            if att.name or att.narrating:
                pending.append(m.group("quote"))
                flush(att)
                end_exchange()
                continue
        iq = inline_quote(plain, s)
        if iq:
            att = parse_attribution(iq["who"], is_character)
            if att.name or att.narrating:
                flush()
                end_exchange()
                pending = [iq["quote"]]
                flush(att)
                continue
        m = ATTRIB_RE.match(plain) or (HYPHEN_ATTRIB_RE.match(plain) if pending else None)
        if m and pending:
            att = parse_attribution(m.group("who"), is_character)
            if att.name or ATTRIB_RE.match(plain):
                flush(att)
                end_exchange()
                continue
        if ATTRIB_RE.match(plain):  # '―Alice and the Cat' under `Name: "words"` lines closes that exchange
            end_exchange()
            continue
        cue = _is_cue(s)
        if cue:
            flush()
            name, words = cue
            if not exchange:
                new_block()
                exchange = True
            spoken = True
            extra: dict = {}
            d = LEADING_DIRECTION_RE.match(words)
            if d:
                extra["direction"] = d.group(1)[1:-1].strip()
                words = words[d.end():]
            words = clean(unquote(words))
            if name.lower() in NARRATION_NAMES:
                if words:
                    out.append(_Out(Quote("narration", words, unit, None, extra), block, cur_path()))
                last_dialogue = None
            elif words:
                last_dialogue = _Out(Quote("dialogue", words, unit, name, extra), block, cur_path())
                out.append(last_dialogue)
            elif extra.get("direction"):
                out.append(_Out(Quote("action", f"{name} [{extra['direction']}]", unit, None, {}), block, cur_path()))
                last_dialogue = None
            continue
        if not depth and re.fullmatch(r"''(?!')[^']+(?:'(?!')[^']*)*''[.!?]?", s.strip()) and not _quoted(plain):
            plain = "[" + plain + "]"  # a whole line in italics: a transcript's stage direction
        if DIRECTION_LINE_RE.match(plain):
            flush()
            if not exchange:  # a direction opens the exchange that follows it, if one does
                if not cue_next(idx):
                    continue
                new_block()
                exchange = True
            out.append(_Out(Quote("action", plain[1:-1].strip(), unit, None, {}), block, cur_path()))
            last_dialogue = None
            continue
        # a wrapped speech: a plain line right after a `Name: words` line of the same level
        continues = not depth or it.marks.endswith(":") and len(it.marks) > 1
        if (last_dialogue is not None and continues and not pending and idx > 0 and items[idx - 1].kind == "line"
                and not _quoted(plain)):
            last_dialogue.quote.text = join_lines([last_dialogue.quote.text, plain])
            continue
        if pending and depth != pending_depth:
            flush()
        if not pending:
            end_exchange()
        pending.append(s)
        pending_depth, pending_marks = depth, it.marks
    flush()
    return _finish(out, unit, page_character, is_character, page_heading)

