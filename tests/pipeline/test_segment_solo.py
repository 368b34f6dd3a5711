"""Solo stories: the character's lines that answer no one (monologues, asides, lines the exchange stories left
out) become stories of their own, occasion first, last line the character's; exchange stories do not change."""

from __future__ import annotations

import json

import pytest
import yaml

from extractors.errors import InputError
from extractors.records import Line
from pipeline.segment import Params, Segmenter
from pipeline.settings import load_settings
from pipeline.stories import count_kinds, read_stories, write_stories
from pipeline.tokens import count_tokens

from helpers_play import play_lines, resolver


@pytest.fixture(scope="module")
def lines():
    return list(play_lines())


@pytest.fixture(scope="module")
def stories(lines):  # every unanswering line (`lines`); the default `source` keeps none in a play
    return Segmenter("rosalind", resolver(), Params(solo="lines")).run(lines)


def mk(i, who, text, kind="dialogue", unit="1", **extra):
    return Line("w", "s", unit, i, kind, text, speaker=who, name=who.title() if who else None, extra=extra)


def test_every_line_of_rosalind_lands_in_a_story(lines, stories):
    said = {ln.text for ln in lines if ln.speaker == "rosalind" and ln.kind == "dialogue" and len(ln.text) >= 2}
    held = " ".join(ln["text"] for s in stories for ln in s.lines if ln["speaker"] == "rosalind")
    assert said and all(t in held for t in said)
    kinds = count_kinds(stories)
    assert kinds["solo"] >= 2 and kinds["exchange"] >= 40


def test_solo_stories_end_with_the_character_and_keep_every_limit(stories):
    p = Params(solo="lines")
    solo = [s for s in stories if s.solo]
    for s in solo:
        assert s.exchanges == 0 and s.speakers == ["rosalind"]
        assert s.lines[-1]["speaker"] == "rosalind" and s.text.split("\n")[-1].startswith("Rosalind:「")
        assert all(ln["speaker"] in (None, "rosalind") for ln in s.lines)
        assert count_tokens(s.text) <= p.max_tokens
        assert sum(ln["kind"] != "dialogue" for ln in s.lines) <= p.max_narration
    epilogue = next(s for s in solo if s.unit == "EPILOGUE")
    assert epilogue.text.startswith("旁白:EPILOGUE\nRosalind:「It is not the fashion to see the lady the epilogue;")


def test_exchange_stories_are_the_same_with_or_without_solo_stories(lines, stories):
    none = Segmenter("rosalind", resolver(), Params(solo="none")).run(lines)
    assert not any(s.solo for s in none)
    assert [s.__dict__ for s in none] == [s.__dict__ for s in stories if not s.solo]
    units = Segmenter("rosalind", resolver(), Params(solo="units")).run(lines)
    assert [s.text for s in units if not s.solo] == [s.text for s in none]
    assert {s.text for s in units if s.solo} <= {s.text for s in stories if s.solo}


def test_the_solo_mark_is_written_only_on_solo_stories(tmp_path, stories):
    path = tmp_path / "r.jsonl"
    write_stories(path, stories)
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert all("solo" not in r for r in rows if r["exchanges"])
    assert all(r["solo"] is True and list(r)[-1] == "solo" for r in rows if not r["exchanges"])
    assert read_stories(path) == stories


def test_narration_of_the_character_is_never_an_answer_and_directions_are_occasions():
    lines = [mk(0, "celia", "Where are you going?"),
             mk(1, "rosalind", "The forest was quiet that morning.", narrating=True, direction="Narrating"),
             mk(2, "rosalind", "Hey, do you know the rules?", direction="annoyed", episode="Act I, Scene 3", unit="2"),
             mk(3, "rosalind", "I do not.", unit="2")]
    out = Segmenter("rosalind", resolver(), Params()).run(lines)
    assert [s.solo for s in out] == [True, True]  # Celia's question is not answered by narration
    assert out[0].text == "旁白:Rosalind, narrating\nRosalind:「The forest was quiet that morning.」"
    assert out[1].text == ("旁白:Act I, Scene 3\n旁白:Rosalind, annoyed\nRosalind:「Hey, do you know the rules?」\n"
                           "Rosalind:「I do not.」")
    answered = [mk(0, "celia", "Where are you going?"), mk(1, "rosalind", "To the forest.", direction="annoyed")]
    assert [s.solo for s in Segmenter("rosalind", resolver(), Params()).run(answered)] == [False]
    quote = [mk(0, "rosalind", "All the world's a stage.", unit="Quotes #2", episode="Act II, Scene 7")]
    assert Segmenter("rosalind", resolver(), Params()).run(quote)[0].text == "旁白:Act II, Scene 7\nRosalind:「All the world's a stage.」"
    in_scene = [mk(0, None, "Enter ROSALIND", kind="action", unit="ACT I SCENE II"), mk(1, "rosalind", "Alas!", unit="ACT I SCENE II")]
    assert Segmenter("rosalind", resolver(), Params()).run(in_scene)[0].text == "旁白:Enter ROSALIND\nRosalind:「Alas!」"
    bare = [mk(0, "rosalind", "Alas!", unit="3")]  # a block number is no occasion
    assert Segmenter("rosalind", resolver(), Params()).run(bare)[0].text == "Rosalind:「Alas!」"


def test_a_long_monologue_is_cut_into_solo_stories_within_the_budget():
    words = "These are the forests of Arden, and I walk in them alone today."
    lines = [mk(i, "rosalind", f"{words} ({i})") for i in range(40)]
    out = Segmenter("rosalind", resolver(), Params(max_tokens=120)).run(lines)
    assert len(out) > 3 and all(s.solo and count_tokens(s.text) <= 120 for s in out)
    assert sum(len(s.lines) for s in out) == 40


def test_a_bad_solo_mode_is_an_error_naming_the_key(tmp_path):
    cfg = tmp_path / "pipeline.yaml"
    cfg.write_text(yaml.safe_dump({"segment": {"solo": "sometimes"}}), encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_settings(cfg)
    assert "segment.solo" in str(e.value) and "pipeline.yaml" in str(e.value)
    with pytest.raises(ValueError):
        Params(solo="sometimes")
