"""Novel text -> its structure and rule attributions: chapters, paragraphs, quotations, and each quotation's
speaker guess. Used by `extract.extract_novel` (which makes line records of them) and by `cast.rank` (which counts
each discovered member's lines); kept apart so that cast discovery does not import the extractor that marks the
narrator it discovers."""

from __future__ import annotations

from extractors.characters import Character

from .attribution.attributor import Attribution, Attributor
from .text.chapters import conversation_chapters, split_chapters, split_paragraphs, text_layout
from .cast.names import NameIndex
from .text.quotes import Quote, detect_style, find_quotes
from .text.simplified import simplified_view


def analyse(text: str, characters: list[Character], language: str, min_confidence: float | None = None
            ) -> tuple[list, list[tuple[int, int]], list[int], list[Quote], list[Attribution]]:
    """Chapters, paragraphs, paragraph->chapter, quotes and their rule attributions (guesses below
    `min_confidence` held back; None: the attribution default)."""
    chapters = split_chapters(text)
    paras: list[tuple[int, int]] = []
    para_ch: list[int] = []
    # decided on the whole text (a short chapter has too few lines to tell); in a text with blank lines each chapter
    # still decides for itself, as one may set a paragraph a line
    layout = text_layout(text)
    for ci, ch in enumerate(chapters):
        for s, e in split_paragraphs(text, ch.start, ch.end, None if layout == "blank" else layout):
            if ch.title and s < ch.head_end and not ch.part:  # the heading itself (one line, or `CHAPTER ⏎ 1`)
                rest = text[ch.head_end:e]
                if not rest.strip():
                    continue
                s = ch.head_end + len(rest) - len(rest.lstrip())
            paras.append((s, e))
            para_ch.append(ci)
    view = simplified_view(text) if language == "zh" else None  # traditional: the rules read a simplified copy
    if view:
        text, characters = view.text, [view.character(c) for c in characters]
    index = NameIndex(characters, language)
    quotes = find_quotes(text, paras, detect_style(text), index.gender_of)
    talk = conversation_chapters(chapters)
    attrs = Attributor(text, paras, quotes, index, language, min_confidence, [talk[c] for c in para_ch]).run() \
        if quotes else []
    if view:
        for a in attrs:
            a.surface = view.back(a.surface)
    return chapters, paras, para_ch, quotes, attrs
