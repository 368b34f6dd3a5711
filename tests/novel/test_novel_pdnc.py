"""Rules alone against PDNC gold, on all twelve dev novels, at the default hold (issue 15).

The default hold is the book's own (`calibration.book_hold`: from 0.83 for configured characters such as the gold
cast, 0.88 for a discovered cast, down to where the book's kept guesses' mean calibrated confidence would fall below
0.955, never below 0.7); it keeps precision >= 0.90 on every book (calibration.py, fitted on these books;
benchmarks/novel_calibrate.py reports it leave-one-book-out: 0.957 on average, worst 0.922). Floors sit just under what was measured (benchmarks/novel_generalisation.py), so any regression fails.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from extractors.novel.evaluation import evaluate
from extractors.novel.evaluation import pdnc as pdnc_mod
from extractors.novel.extract import extract_novel

from conftest import load_script

REPO = Path(__file__).resolve().parents[2]

# measured at the default (the book's own) hold: overall accuracy, overall precision, Explicit precision
MEASURED = {
    "ARoomWithAView": (0.556, 0.928, 1.000), "AlicesAdventuresInWonderland": (0.898, 0.980, 0.996),
    "AnneOfGreenGables": (0.897, 0.984, 0.997), "DaisyMiller": (0.878, 0.972, 0.987),
    "HardTimes": (0.834, 0.959, 0.992), "HowardsEnd": (0.670, 0.952, 0.993),
    "OliverTwist": (0.797, 0.971, 0.996), "PrideAndPrejudice": (0.667, 0.969, 0.997),
    "TheAgeOfInnocence": (0.601, 0.958, 0.996), "TheInvisibleMan": (0.820, 0.972, 0.998),
    "TheMysteriousAffairAtStyles": (0.608, 0.929, 1.000), "ThePictureOfDorianGray": (0.880, 0.959, 0.996),
}


@pytest.fixture(scope="module", params=sorted(MEASURED))
def scores(request, pdnc):
    d = pdnc / request.param
    lines = extract_novel(d / "novel_text.txt", request.param, pdnc_mod.load_characters(d), language="en")
    return request.param, evaluate.score(pdnc_mod.load_quotes(d), lines), lines


def test_the_calibration_tables_are_what_the_fitting_script_fits_on_the_twelve_books(pdnc, monkeypatch):
    """`data/calibration.json` holds the rule precisions and turn weights `benchmarks/novel_calibrate.py --write` fits
    (weights to the third decimal: the solver's last digits may differ between machines)."""
    from extractors.novel.attribution import calibration

    fit = load_script(REPO / "benchmarks" / "novel_calibrate.py")
    monkeypatch.setattr(calibration, "ACTIVE", False)  # raw confidences, as the script collects them
    rows = [r for b in sorted(p for p in pdnc.iterdir() if p.is_dir()) for r in fit.collect(b)[0]]
    rules, weights = fit.fit_rules(rows), fit.fit_turns(rows)
    assert rules == calibration.RULE_PRECISION
    assert set(weights) == set(calibration.TURN_WEIGHTS)
    assert all(abs(weights[k] - calibration.TURN_WEIGHTS[k]) <= 1e-3 for k in weights), \
        {k: (weights[k], calibration.TURN_WEIGHTS[k]) for k in weights if abs(weights[k] - calibration.TURN_WEIGHTS[k]) > 1e-3}


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


def test_the_narrator_is_found_when_the_list_does_not_mark_him(pdnc):
    """A character list without the narrator flag (PDNC's `_narr`, or `narrator: true`): Hastings is still the
    one `said I` names, found from the text; without that, 0.435 accuracy at 0.905 precision."""
    d = pdnc / "TheMysteriousAffairAtStyles"
    chars = [replace(c, narrator=False) for c in pdnc_mod.load_characters(d)]
    res = evaluate.score(pdnc_mod.load_quotes(d), extract_novel(d / "novel_text.txt", "styles", chars, language="en"))
    assert res["overall"]["accuracy"] >= MEASURED["TheMysteriousAffairAtStyles"][0] - 0.015, res["overall"]
    assert res["overall"]["precision"] >= MEASURED["TheMysteriousAffairAtStyles"][1] - 0.01, res["overall"]


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
    `the man` and `the gentleman` name whoever is at hand: their guesses scatter, and none is kept. At the fixed hold
    0.88: the calibration is what is tested (the book's own hold, 0.75 in Oliver, keeps five of them, three wrong)."""
    d = pdnc / "OliverTwist"
    gold = pdnc_mod.load_quotes(d)
    lines = extract_novel(d / "novel_text.txt", "oliver", pdnc_mod.load_characters(d), language="en", min_confidence=0.88)
    kept: dict[str, list[bool]] = {}
    for g, ln in zip(gold, evaluate.match(gold, lines)):
        if ln is not None and ln.speaker and (ln.extra or {}).get("rule", "").startswith("verb-noun/conv"):
            kept.setdefault(" ".join((ln.name or "").lower().split()), []).append(g.speaker == ln.speaker)
    assert len(kept.get("the girl", [])) >= 78 and all(kept["the girl"]), kept.get("the girl")
    assert not kept.get("the man") and not kept.get("the gentleman"), kept


def test_a_book_whose_sure_guesses_leave_room_keeps_more_and_stays_precise(pdnc):
    """The book's own hold (`calibration.book_hold`): Anne of Green Gables' kept guesses are right 0.996 of the time
    at the fixed hold 0.88, so it goes down to the floor, 0.7, and keeps more (accuracy 0.834 -> 0.898) while precision
    stays above 0.97; The Age of Innocence has no margin and keeps the configured cast's ceiling, 0.83
    (`calibration.CONFIGURED_CEILING`). A hold given by the user is kept as given."""
    from extractors.novel.attribution.calibration import book_hold

    def run(book, hold=None):
        d = pdnc / book
        lines = extract_novel(d / "novel_text.txt", book, pdnc_mod.load_characters(d), language="en", min_confidence=hold)
        said = [ln.confidence for ln in lines if ln.kind == "dialogue" and ln.speaker]
        return evaluate.score(pdnc_mod.load_quotes(d), lines)["overall"], min(said)
    own, lowest = run("AnneOfGreenGables")
    fixed, lowest_fixed = run("AnneOfGreenGables", 0.88)
    assert lowest < 0.88 <= lowest_fixed
    assert own["accuracy"] >= fixed["accuracy"] + 0.03 and own["precision"] >= 0.97, (own, fixed)
    age, lowest_age = run("TheAgeOfInnocence")
    assert 0.825 <= lowest_age < 0.875 and age["precision"] >= 0.95
    assert book_hold([0.99] * 9 + [0.8, 0.5], 0.88) == 0.8 and book_hold([0.9] * 5, 0.88) == 0.88
    # the kept guesses' mean confidence must stay >= 0.955: 0.958 goes down to 0.8, 0.952 does not
    assert book_hold([0.99] * 5 + [0.8], 0.88) == 0.8 and book_hold([0.99] * 4 + [0.8], 0.88) == 0.88
    # never below the floor, 0.7
    assert book_hold([0.99] * 30 + [0.71], 0.88) == 0.71 and book_hold([0.99] * 30 + [0.69], 0.88) == 0.88
    assert book_hold([0.99] * 3 + [0.7] * 3, 0.88) == 0.88


def test_a_discovered_cast_keeps_the_stricter_ceiling(pdnc):
    """A book's own hold starts at 0.83 for configured characters and at the fixed 0.88 for a discovered cast
    (`calibration.own_hold_ceiling`): a discovered cast misses minor speakers and splits people, so the same hold is
    right less often with it (PDNC dev books: 0.956 against 0.964). The Age of Innocence has no margin: its gold cast
    keeps 0.83, its discovered cast 0.88."""
    from extractors.characters import Character
    from extractors.novel.attribution.calibration import CONFIGURED_CEILING, own_hold_ceiling
    from extractors.novel.cast.discover import discover_cast
    from extractors.novel.extract import read_novel

    found = [Character(id="x", name="X", series="w", mentions=40), Character(id="y", name="Y", series="w", mentions=3)]
    mine = [Character(id="x", name="X", series="w")]
    assert own_hold_ceiling(found, 0.88) == 0.88 and own_hold_ceiling(mine + found[1:], 0.88) == CONFIGURED_CEILING == 0.83
    assert own_hold_ceiling(mine, 0.8) == 0.8  # never above the fixed hold
    d = pdnc / "TheAgeOfInnocence"
    text = read_novel(d / "novel_text.txt")
    cast = [m.to_character("age") for m in discover_cast(text, "en", by_lines=False)]
    lines = extract_novel(d / "novel_text.txt", "age", cast, language="en", text=text)
    said = [ln.confidence for ln in lines if ln.kind == "dialogue" and ln.speaker]
    assert len(said) > 600 and min(said) >= 0.875, (len(said), min(said))


def test_mr_x_said_to_the_son_is_said_to_father_or_son(pdnc):
    """`Mr. Emerson` is the father's listed name in A Room with a View, but Lucy says it to George too: as a form of
    address, `Mr. X` shared by several men of surname X addresses any of them (`Kinship.shared_mr`). Before, the turn
    after it went to old Mr. Emerson, and the exchange's alternation with it: George's lines kept at the default hold
    were 36 his and 8 someone else's (Mr. Emerson 3, Cecil Vyse 3); then 43 and 1; 44 and 3 since session 38's turn
    model and budget (Cecil Vyse 2, Mrs. Honeychurch 1; none to Mr. Emerson); 44 and 4 since the configured cast's
    hold starts at 0.83 (session 39: Cecil Vyse 3)."""
    from collections import Counter

    from extractors.novel.attribution.kinship import Kinship
    from extractors.novel.cast.names import NameIndex

    d = pdnc / "ARoomWithAView"
    chars = pdnc_mod.load_characters(d)
    kin = Kinship(chars, NameIndex(chars, "en").gender, (d / "novel_text.txt").read_text(encoding="utf-8"))
    assert kin.shared_mr("Mr. Emerson") == {"mr_emerson", "george_emerson"} and kin.shared_mr("Mr. Beebe") == set()
    lines = extract_novel(d / "novel_text.txt", d.name, chars, language="en")
    gold = pdnc_mod.load_quotes(d)
    given = Counter(ln.speaker for g, ln in zip(gold, evaluate.match(gold, lines))
                    if ln is not None and ln.speaker and g.speaker == "george_emerson")
    assert given["george_emerson"] >= 42 and sum(given.values()) - given["george_emerson"] <= 4 and not given["mr_emerson"], given
