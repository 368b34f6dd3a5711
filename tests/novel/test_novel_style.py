"""The book's own style model (`speaker_style`): learnt from name-tagged quotations, it tells two speakers apart
by their words, and feeds the turn-taking calibration."""

from __future__ import annotations

from extractors.characters import Character
from extractors.novel.extract import analyse
from extractors.novel.attribution.speaker_style import MIN_LINES, StyleModel


def test_style_model_prefers_the_speaker_whose_words_these_are():
    dodger = [("dodger", f"Wot's the go, my covey? I ain't a-going, {i} times") for i in range(MIN_LINES)]
    lady = [("lady", f"My dear, I should be delighted to receive you, {i} times") for i in range(MIN_LINES)]
    few = [("stranger", "Wot a night") for _ in range(MIN_LINES - 1)]
    m = StyleModel.fit(dodger + lady + few)
    assert "dodger" in m and "lady" in m and "stranger" not in m
    assert m.llr("I ain't a-going, my covey", "dodger", "lady") > 3
    assert m.llr("I should be delighted, my dear", "dodger", "lady") < -3
    assert m.llr("Wot a night", "dodger", "stranger") is None and m.llr("…", "dodger", "lady") is None


def test_untagged_turns_carry_the_style_verdict():
    """An exchange between two people with many name tags: each untagged turn's guess carries the style model's
    verdict on it against the other person (`style_llr`), which the calibration reads."""
    paras = []
    for i in range(MIN_LINES + 2):
        paras += [f'"Wot\'s the go, my covey, number {i}?" said Jack.', f'"My dear, I should be delighted {i}," said Rose.']
    paras += ['"Wot\'s the go now, my covey."', '"My dear, how delighted I should be."', '"Wot\'s the go?"']
    text = "\n\n".join(paras) + "\n"
    chars = [Character(id=c, name=c.title(), series="t", gender=g) for c, g in (("jack", "male"), ("rose", "female"))]
    *_, quotes, attrs = analyse(text, chars, "en", 0.0)
    untagged = attrs[-3:]
    assert [a.speaker for a in untagged] == ["jack", "rose", "jack"]
    assert all(a.turn_features["style_llr"] > 3 for a in untagged)
    assert all("style_llr" not in (a.turn_features or {}) for a in attrs[:-3])


def test_style_is_an_emission_of_the_turn_model():
    """After a tagged turn of A, an untagged turn could be B's or C's alike; the style model's verdict on its words
    decides between them (and never outweighs alternation: A stays unlikely)."""
    from extractors.novel.attribution.conversation import Turn, decode

    def post(style):
        return decode([Turn(fixed="a"), Turn(style=style)], ["a", "b", "c"], {"a": "male", "b": "female", "c": "female"})[1]
    even = post(None)
    assert abs(even["b"] - even["c"]) < 0.01
    leans = post({"a": 0.0, "b": 6.0, "c": -6.0})
    assert leans["b"] > 0.75 and leans["c"] < 0.25 and leans["a"] < 0.01
    assert post({"a": 10.0, "b": -5.0, "c": -5.0})["a"] < 0.01
