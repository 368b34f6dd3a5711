"""A user who configures only the characters they want: the others who speak are found and attributed too, so
the lines given to the configured ones are theirs (`extractors/novel/cast_others.py`, gold PDNC speakers)."""

from __future__ import annotations

import collections

import pytest

from extractors.novel import evaluate, pdnc as gold_io
from extractors.novel.cast_others import others_for
from extractors.novel.extract import extract_novel, read_novel

# measured with the three most quoted gold characters configured (benchmarks/novel_others.py): precision of their
# lines without the others / with them
MEASURED = {"ARoomWithAView": (0.700, 0.940), "OliverTwist": (0.771, 0.982), "PrideAndPrejudice": (0.717, 0.974)}


@pytest.mark.parametrize("book", sorted(MEASURED))
def test_top_three_configured_get_only_their_own_lines(pdnc, book):
    d = pdnc / book
    chars, gold = gold_io.load_characters(d), gold_io.load_quotes(d)
    top = {c for c, _ in collections.Counter(g.speaker for g in gold).most_common(3)}
    mine = [c for c in chars if c.id in top]
    text = read_novel(d / "novel_text.txt")
    others = others_for(mine, text, "en", book)
    assert others and not {c.id for c in others} & top

    def precision(cast, ids):
        lines = extract_novel(d / "novel_text.txt", book, cast, language="en", text=text, others=ids)
        assert not any(ln.speaker in ids for ln in lines)
        given = [(g.speaker, ln.speaker) for g, ln in zip(gold, evaluate.match(gold, lines))
                 if ln is not None and ln.speaker in top]
        return sum(g == s for g, s in given) / len(given)

    alone, with_others = precision(mine, set()), precision(mine + others, {c.id for c in others})
    assert alone < 0.8 and with_others >= MEASURED[book][1] - 0.02, (alone, with_others)
