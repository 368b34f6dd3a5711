"""Rules alone against PDNC gold (Pride and Prejudice, Alice): the issue's targets."""

from __future__ import annotations

import pytest

from extractors.novel import evaluate, pdnc
from extractors.novel.extract import extract_novel

BOOKS = ["PrideAndPrejudice", "AlicesAdventuresInWonderland"]


@pytest.fixture(scope="module", params=BOOKS)
def scores(request, pdnc):
    d = pdnc / request.param
    chars = pdnc_chars = pdnc_mod.load_characters(d)
    lines = extract_novel(d / "novel_text.txt", request.param, chars, language="en")
    assert pdnc_chars
    return request.param, evaluate.score(pdnc_mod.load_quotes(d), lines)


pdnc_mod = pdnc


def test_every_gold_quote_is_found(scores):
    book, res = scores
    assert res["unmatched"] <= 0.01 * res["overall"]["quotes"], (book, res["unmatched"])


def test_explicit_accuracy(scores):
    book, res = scores
    assert res["by_type"]["Explicit"]["accuracy"] >= 0.95, (book, res["by_type"]["Explicit"])


def test_overall_accuracy(scores):
    book, res = scores
    assert res["overall"]["accuracy"] >= 0.80, (book, res["overall"])


def test_precision(scores):
    book, res = scores
    assert res["overall"]["precision"] >= 0.90, (book, res["overall"])


def test_gold_characters_read(pdnc):
    chars = pdnc_mod.load_characters(pdnc / "PrideAndPrejudice")
    eliza = next(c for c in chars if c.id == "elizabeth")
    assert eliza.gender == "female" and "Lizzy" in eliza.aliases
    assert chars[0].id in ("elizabeth", "mr_darcy", "mrs_bennet")  # major characters first
