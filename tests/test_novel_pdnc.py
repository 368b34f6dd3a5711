"""Rules alone against PDNC gold, on all twelve dev novels, at the default hold (issue 15).

The default hold keeps precision >= 0.90 on every book (calibration.py, fitted on these books;
benchmarks/novel_calibrate.py reports it leave-one-book-out). Floors sit just under what was
measured (benchmarks/novel_generalisation.py), so any regression fails.
"""

from __future__ import annotations

import pytest

from extractors.novel import evaluate, pdnc as pdnc_mod
from extractors.novel.extract import extract_novel

# measured at hold 0.88: overall accuracy, overall precision, Explicit precision
MEASURED = {
    "ARoomWithAView": (0.442, 0.953, 0.997), "AlicesAdventuresInWonderland": (0.858, 0.985, 0.998),
    "AnneOfGreenGables": (0.844, 0.991, 0.998), "DaisyMiller": (0.787, 0.980, 0.996),
    "HardTimes": (0.744, 0.980, 0.997), "HowardsEnd": (0.505, 0.958, 0.998),
    "OliverTwist": (0.771, 0.980, 0.992), "PrideAndPrejudice": (0.539, 0.976, 0.994),
    "TheAgeOfInnocence": (0.452, 0.962, 0.992), "TheInvisibleMan": (0.729, 0.979, 0.995),
    "TheMysteriousAffairAtStyles": (0.499, 0.960, 1.000), "ThePictureOfDorianGray": (0.744, 0.978, 1.000),
}


@pytest.fixture(scope="module", params=sorted(MEASURED))
def scores(request, pdnc):
    d = pdnc / request.param
    lines = extract_novel(d / "novel_text.txt", request.param, pdnc_mod.load_characters(d), language="en")
    return request.param, evaluate.score(pdnc_mod.load_quotes(d), lines), lines


def test_every_gold_quote_is_found(scores):
    book, res, _ = scores
    assert res["unmatched"] <= 0.015 * res["overall"]["quotes"], (book, res["unmatched"])


def test_precision_on_every_book(scores):
    book, res, _ = scores
    assert res["overall"]["precision"] >= 0.90, (book, res["overall"])
    assert res["overall"]["precision"] >= MEASURED[book][1] - 0.01, (book, res["overall"])


def test_explicit_precision(scores):
    book, res, _ = scores
    assert res["by_type"]["Explicit"]["precision"] >= min(0.97, MEASURED[book][2] - 0.01), (book, res["by_type"]["Explicit"])


def test_explicit_quotes_right_on_every_book(scores):
    """A quotation whose text names its speaker (PDNC `Explicit`) is attributed, kept and right >= 0.95 of the time
    on every book (measured 0.952-0.992)."""
    book, res, _ = scores
    assert res["by_type"]["Explicit"]["accuracy"] >= 0.95, (book, res["by_type"]["Explicit"])


def test_accuracy_floor(scores):
    book, res, _ = scores
    assert res["overall"]["accuracy"] >= MEASURED[book][0] - 0.015, (book, res["overall"])


def test_narrator_lines_go_to_the_narrator(pdnc):
    """Styles is told by Hastings: `said I` / `I asked` lines are his, and they are right."""
    d = pdnc / "TheMysteriousAffairAtStyles"
    gold = pdnc_mod.load_quotes(d)
    lines = extract_novel(d / "novel_text.txt", "styles", pdnc_mod.load_characters(d), language="en")
    mine = [(g, ln) for g, ln in zip(gold, evaluate.match(gold, lines))
            if ln is not None and (ln.extra or {}).get("rule") == "narrator"]
    assert len(mine) >= 100
    assert all(ln.speaker == "mr_hastings" and ln.name == "I" for _, ln in mine)
    assert sum(g.speaker == "mr_hastings" for g, _ in mine) / len(mine) >= 0.95


def test_a_widespread_role_goes_to_the_titled_person_of_the_scene(pdnc):
    """Oliver Twist's `said the doctor` is several people across the book; in a scene where one person listed
    with the title (`Doctor ...`) is named just before, it is that person, and right."""
    d = pdnc / "OliverTwist"
    gold = pdnc_mod.load_quotes(d)
    lines = extract_novel(d / "novel_text.txt", "oliver", pdnc_mod.load_characters(d), language="en")
    mine = [(g, ln) for g, ln in zip(gold, evaluate.match(gold, lines))
            if ln is not None and (ln.extra or {}).get("rule", "").endswith(("/role-title", "/role-scene"))]
    assert len(mine) >= 55  # measured 59, all right
    assert sum(g.speaker == ln.speaker for g, ln in mine) / len(mine) >= 0.97


def test_gold_alias_speakers_resolve(pdnc):
    """A gold speaker written as an alias (`Lucy`) is the character it names."""
    quotes = pdnc_mod.load_quotes(pdnc / "ARoomWithAView")
    assert not any(q.speaker == "lucy" for q in quotes)
    assert sum(q.speaker == "miss_honeychurch" for q in quotes) > 400


def test_gold_characters_read(pdnc):
    chars = pdnc_mod.load_characters(pdnc / "PrideAndPrejudice")
    eliza = next(c for c in chars if c.id == "elizabeth")
    assert eliza.gender == "female" and "Lizzy" in eliza.aliases
    assert chars[0].id in ("elizabeth", "mr_darcy", "mrs_bennet")  # major characters first
    styles = {c.id: c for c in pdnc_mod.load_characters(pdnc / "TheMysteriousAffairAtStyles")}
    assert styles["mr_hastings"].narrator and "Narr" not in styles["mr_hastings"].aliases


def test_line_truth_gives_every_part_of_a_split_quotation_its_speaker(scores, pdnc):
    """Story purity counts a character's line as theirs by `line_truth`: every line overlapping a gold quotation
    gets its speaker (not only the one line `match` pairs with it), and agrees with `match` where both speak."""
    book, _, lines = scores
    gold = pdnc_mod.load_quotes(pdnc / book)
    truth = evaluate.line_truth(gold, lines)
    paired = {ln.index: g.speaker for g, ln in zip(gold, evaluate.match(gold, lines)) if ln is not None}
    assert len(truth) >= len(paired)
    agree = sum(truth[i] == s for i, s in paired.items() if i in truth)
    assert agree >= 0.99 * len(paired), (book, agree, len(paired))


def test_an_epithet_the_book_keeps_for_one_person_is_kept(pdnc):
    """Oliver Twist's narration calls Nancy `the girl`: of the book's `said the girl` guesses nearly all go to her, so
    (calibration.epithet_consistency) they are kept (83 quotations, all right; 18 before the epithet inputs).
    `the man` and `the gentleman` name whoever is at hand: their guesses scatter, and none is kept."""
    d = pdnc / "OliverTwist"
    gold = pdnc_mod.load_quotes(d)
    lines = extract_novel(d / "novel_text.txt", "oliver", pdnc_mod.load_characters(d), language="en")
    kept: dict[str, list[bool]] = {}
    for g, ln in zip(gold, evaluate.match(gold, lines)):
        if ln is not None and ln.speaker and (ln.extra or {}).get("rule", "").startswith("verb-noun/conv"):
            kept.setdefault(" ".join((ln.name or "").lower().split()), []).append(g.speaker == ln.speaker)
    assert len(kept.get("the girl", [])) >= 78 and all(kept["the girl"]), kept.get("the girl")
    assert not kept.get("the man") and not kept.get("the gentleman"), kept
