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


# Issue 3's targets at the default hold (attribution.DEFAULT_MIN_CONFIDENCE = 0.60), all met:
# precision >= 0.90 (measured: P&P 0.913, Alice 0.948) and overall accuracy >= 0.80 (P&P 0.803,
# Alice 0.914). The floors sit just under what was measured, so any regression fails.
UNMET: set = set()
FLOORS = {"PrideAndPrejudice": {"accuracy": 0.80, "precision": 0.91},
          "AlicesAdventuresInWonderland": {"accuracy": 0.905, "precision": 0.935}}


def _target(book: str, value: float, target: float, what: str) -> None:
    assert value >= FLOORS[book][what], f"{book}: {what} {value} fell below the measured floor {FLOORS[book][what]}"
    if (book, what) in UNMET and value < target:
        pytest.xfail(f"{book}: {what} {value} < target {target} (issue 3 target not met yet)")
    assert value >= target, (book, what, value)


def test_overall_accuracy(scores):
    book, res = scores
    _target(book, res["overall"]["accuracy"], 0.80, "accuracy")


def test_precision(scores):
    book, res = scores
    _target(book, res["overall"]["precision"], 0.90, "precision")


def test_gold_characters_read(pdnc):
    chars = pdnc_mod.load_characters(pdnc / "PrideAndPrejudice")
    eliza = next(c for c in chars if c.id == "elizabeth")
    assert eliza.gender == "female" and "Lizzy" in eliza.aliases
    assert chars[0].id in ("elizabeth", "mr_darcy", "mrs_bennet")  # major characters first
