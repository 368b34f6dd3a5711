"""The story segmenter on the real play: every story an exchange, within every limit, no duplicates."""

from __future__ import annotations

from dataclasses import replace

import pytest

from extractors.records import Line
from pipeline.segment import Params, Segmenter, split_long
from pipeline.tokens import count_tokens

from helpers_play import PLAY, play_lines, resolver


@pytest.fixture(scope="module")
def lines():
    return list(play_lines())


@pytest.fixture(scope="module")
def rosalind_stories(lines):
    return Segmenter("rosalind", resolver(), Params()).run(lines)


def _has_exchange(story, who="rosalind"):
    seen_other = False
    for ln in story.lines:
        if ln["kind"] != "dialogue":
            continue
        if ln["speaker"] == who and seen_other:
            return True
        if ln["speaker"] not in (None, who):
            seen_other = True
    return False


def test_rosalind_gets_at_least_40_stories_each_with_an_exchange(rosalind_stories):
    exchange = [s for s in rosalind_stories if not s.solo]  # solo stories: tests/pipeline/test_segment_solo.py
    assert len(exchange) >= 40
    assert all(_has_exchange(s) for s in exchange)
    assert all(s.exchanges >= 1 for s in exchange)
    assert all("Rosalind:「" in s.text for s in rosalind_stories)
    # the solo stories come after every exchange story, each ending with one of Rosalind's lines
    assert [s.solo for s in rosalind_stories] == sorted(s.solo for s in rosalind_stories)
    assert all(s.exchanges == 0 and s.lines[-1]["speaker"] == "rosalind" for s in rosalind_stories if s.solo)


def test_stories_respect_every_limit(rosalind_stories):
    p = Params()
    for s in rosalind_stories:
        assert count_tokens(s.text) <= p.max_tokens
        speakers = {ln["speaker"] or ln["name"] for ln in s.lines if ln["kind"] == "dialogue"}
        assert len(speakers) <= p.max_speakers
        assert sum(ln["kind"] != "dialogue" for ln in s.lines) <= p.max_narration


def test_stories_are_unique_and_stay_inside_a_scene(rosalind_stories, lines):
    texts = [s.text for s in rosalind_stories]
    assert len(set(texts)) == len(texts)
    unit_of = {(ln.source, ln.index): ln.unit for ln in lines}
    for s in rosalind_stories:
        assert unit_of[(s.source, s.first_index)] == unit_of[(s.source, s.last_index)] == s.unit


def test_most_of_rosalinds_answers_are_covered(lines, rosalind_stories):
    """Nearly every reply of Rosalind to another speaker lands in some story."""
    replies = [b.text for a, b in zip(lines, lines[1:])
               if b.speaker == "rosalind" and a.kind == "dialogue" and a.speaker not in (None, "rosalind")]
    covered = {ln["text"] for s in rosalind_stories for ln in s.lines if ln["speaker"] == "rosalind"}
    hit = sum(1 for r in replies if r in covered or any(r.startswith(c) for c in covered))
    assert len(replies) > 150
    assert hit / len(replies) >= 0.9


def test_tighter_budget_gives_more_smaller_stories(lines, rosalind_stories):
    small = Segmenter("rosalind", resolver(), Params(max_tokens=200)).run(lines)
    assert len(small) > len(rosalind_stories)
    assert all(count_tokens(s.text) <= 200 for s in small)
    assert all(_has_exchange(s) for s in small if not s.solo)


def test_an_overlong_line_is_split_at_sentence_ends_not_dropped():
    speech = " ".join(f"This is sentence number {i} of a very long speech about the forest of Arden." for i in range(200))
    assert count_tokens(speech) > 2000
    mk = lambda i, who, text: Line("w", "s", "1", i, "dialogue", text, speaker=who, name=who.upper())
    lines = [mk(0, "orlando", "Tell me everything, Rosalind."), mk(1, "rosalind", speech), mk(2, "orlando", "Is that all?"),
             mk(3, "rosalind", "It is all.")]
    stories = Segmenter("rosalind", resolver(), Params(max_tokens=300)).run(lines)
    assert stories and all(count_tokens(s.text) <= 300 for s in stories)
    first = stories[0].lines
    assert first[0]["speaker"] == "orlando" and first[1]["speaker"] == "rosalind"
    assert first[1]["text"].startswith("This is sentence number 0 ") and first[1]["text"].endswith(".")
    pieces = split_long(speech, 150)
    assert " ".join(pieces) == speech and all(count_tokens(p) <= 150 for p in pieces)


def test_no_story_without_a_prompt_from_someone_else():
    """No *exchange* story without a prompt (with `solo: none`, no story at all; the default makes the
    unanswering lines solo stories: tests/pipeline/test_segment_solo.py)."""
    mk = lambda i, who, kind="dialogue": Line("w", "s", "1", i, kind, f"line {i} words", speaker=who, name=who)
    monologue = [mk(i, "rosalind") for i in range(10)] + [mk(10, None, "narration")]
    assert Segmenter("rosalind", resolver(), Params(solo="none")).run(monologue) == []
    assert all(s.solo for s in Segmenter("rosalind", resolver(), Params()).run(monologue))
    far = [mk(0, "celia")] + [mk(i, None, "narration") for i in range(1, 6)] + [mk(6, "rosalind")]
    assert Segmenter("rosalind", resolver(), Params(max_gap=3, max_narration=10, solo="none")).run(far) == []
    assert [s.exchanges for s in Segmenter("rosalind", resolver(), Params(max_gap=3, max_narration=10)).run(far)] == [0]
    near = [mk(0, "celia")] + [mk(i, None, "narration") for i in range(1, 3)] + [mk(3, "rosalind")]
    assert len(Segmenter("rosalind", resolver(), Params(max_gap=3, max_narration=10)).run(near)) == 1
    assert len(Segmenter("rosalind", resolver(), Params(max_gap=3, max_narration=10, solo="none")).run(near)) == 1


def test_a_turn_taking_guess_below_the_floor_is_nobodys_line_in_a_story():
    """A novel's untagged-turn guess less sure than `turn_floor` shows as nobody's line, whoever it guessed; a tag
    (explicit-verb) of the same confidence stays."""
    def mk(i, who, ev, conf):
        return Line("w", "s", "1", i, "dialogue", f"line {i} words", speaker=who, name=who, confidence=conf, evidence=ev)
    lines = [mk(0, "orlando", "explicit-verb", 0.95), mk(1, "rosalind", "turn-taking", 0.90),
             mk(2, "orlando", "turn-taking", 0.91), mk(3, "rosalind", "turn-taking", 0.97),
             mk(4, "celia", "explicit-verb", 0.90), mk(5, "rosalind", "explicit-verb", 0.90)]
    stories = Segmenter("rosalind", resolver(), Params(solo="none")).run(lines)
    shown = [(d["speaker"], d["text"]) for st in stories for d in st.lines]
    assert ("rosalind", "line 1 words") not in shown and (None, "line 1 words") in shown
    assert ("orlando", "line 2 words") not in shown
    assert ("rosalind", "line 3 words") in shown and ("rosalind", "line 5 words") in shown
    loose = Segmenter("rosalind", resolver(), Params(solo="none", turn_floor=0.0)).run(lines)
    assert ("rosalind", "line 1 words") in [(d["speaker"], d["text"]) for st in loose for d in st.lines]


def test_someone_named_but_not_configured_prompts_a_story():
    """A line with a `name` and no speaker (a novel's side character nobody configured, `cast_others`; a script cue
    of an unconfigured part) is someone speaking: R's answer makes a story, shown under that name. An unnamed
    line is not, and a named turn-taking guess below the floor is nobody's."""
    def mk(i, who, name, ev="explicit-verb", conf=0.95):
        return Line("w", "s", "1", i, "dialogue", f"line {i} words", speaker=who, name=name, confidence=conf, evidence=ev)
    named = [mk(0, None, "Le Beau"), mk(1, "rosalind", "Rosalind")]
    stories = Segmenter("rosalind", resolver(), Params(solo="none")).run(named)
    assert len(stories) == 1 and stories[0].lines[0]["name"] == "Le Beau" and "Le Beau:" in stories[0].text
    unnamed = [mk(0, None, None), mk(1, "rosalind", "Rosalind")]
    assert Segmenter("rosalind", resolver(), Params(solo="none")).run(unnamed) == []
    unsure = [mk(0, None, "Le Beau", "turn-taking", 0.9), mk(1, "rosalind", "Rosalind")]
    assert Segmenter("rosalind", resolver(), Params(solo="none")).run(unsure) == []


def test_the_story_floor_for_tag_guesses_is_the_novel_fixed_hold():
    """`Params.tag_floor` repeats the novel extractor's fixed hold (the segment stage may not import the extractor's
    code): the two must not drift apart, or a book's own lower hold would put less sure tag guesses into stories."""
    from extractors.novel.attribution.attributor import DEFAULT_MIN_CONFIDENCE
    from pipeline.segment import Params

    assert Params().tag_floor == DEFAULT_MIN_CONFIDENCE
