"""Character pages (issue 13): every line of the owner lands in a story whose last line is the owner's,
directions kept out of the spoken words; the Jaques sample page builds solo stories end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from extractors.characters import AliasResolver, Character
from extractors.wiki import extract_wiki
from pipeline.segment import Params, Segmenter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "character_pages"
REPO = Path(__file__).resolve().parents[2]

# file -> (owner id, [(first words, direction, narrating)] in page order); nobody else's lines
EXPECTED = {
    "character_lines_issue13.txt": ("kyon", [
        ("Okay, asking somebody how", "Narrating", True),
        ("Hold on a sec.", None, False),
        ("Hey, do you even", "annoyed", False)]),
    "character_quotes_under_name.txt": ("dr_john_watson", [
        ("To Sherlock Holmes she", "Narrating", True),
        ("How on earth did", "in astonishment", False),
        ("I had no keener", "narration", True)]),
    "character_quotes.wiki": ("rosalind", [
        ("But these are all", "as Ganymede, to Orlando", False),
        ("Do you not know", "to Celia", False),
        ("Alas the day! what", "Narrating", True)]),
    "voice_lines_of_alice.html": ("alice", [
        ("and what is the", "thinking", True),
        ("Curiouser and curiouser!", "cried, surprised", False),
        ("Dear, dear! How queer", None, False),
        ("Who in the world", "to herself", False)]),
}


def first(text: str, n: int = 4) -> str:
    return " ".join(text.split()[:n])


def test_every_fixture_is_listed_with_its_provenance():
    listed = set(re.findall(r"^- `([^`]+)`", (FIXTURES / "README.md").read_text(encoding="utf-8"), re.M))
    assert listed == {p.name for p in FIXTURES.iterdir() if p.name != "README.md"} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_owner_and_the_directions_are_read(name):
    owner, expected = EXPECTED[name]
    lines = [ln for ln in extract_wiki(FIXTURES / name, "w") if ln.speaker == owner]
    got = [(first(ln.text, len(w.split())), ln.extra.get("direction"), bool(ln.extra.get("narrating")))
           for ln, (w, _, _) in zip(lines, expected)]
    assert len(lines) == len(expected) and got == expected
    assert all(ln.kind == "dialogue" for ln in lines)
    for ln in lines:  # directions are out of the spoken text
        assert not re.match(r"^[(\[*'（]", ln.text) and not re.search(r"\((?:narration|to herself)\)$", ln.text)


def test_a_cast_page_gives_each_character_their_own_section():
    lines = extract_wiki(FIXTURES / "character_quotes_under_name.txt", "w")
    assert [ln.speaker for ln in lines] == ["dr_john_watson"] * 3 + ["sherlock_holmes"] * 2
    rosalind = extract_wiki(FIXTURES / "character_quotes.wiki", "w")
    assert not any("no jewel" in ln.text for ln in rosalind)  # 'Quotes about Rosalind' are not hers


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("solo", ["lines", "units"])
def test_every_line_of_the_owner_lands_in_a_story_ending_with_it(name, solo):
    owner, _ = EXPECTED[name]
    resolver = AliasResolver()
    lines = extract_wiki(FIXTURES / name, "w", resolver=resolver)
    stories = Segmenter(owner, resolver, Params(solo=solo)).run(lines)
    display = resolver.display(owner, fallback=next(ln.name for ln in lines if ln.speaker == owner))
    for ln in (x for x in lines if x.speaker == owner):
        home = [s for s in stories if s.lines[-1]["speaker"] == owner and s.lines[-1]["text"] == ln.text]
        assert home, ln.text
        assert home[0].solo and home[0].text.split("\n")[-1] == f"{display}:「{ln.text}」"
        if ln.extra.get("direction"):
            assert f"旁白:{display}, " in home[0].text


def test_named_owner_is_a_configured_character_with_the_character_option():
    kyon = Character("kyon", "Kyon", "The Melancholy of Haruhi Suzumiya", aliases=["キョン", "阿虚"])
    resolver = AliasResolver([kyon])
    lines = extract_wiki(FIXTURES / "character_lines_issue13.txt", "w", resolver=resolver, character="Kyon")
    assert [ln.speaker for ln in lines] == ["kyon"] * 3
    # the same bullets with no heading at all: --character names the owner
    bare = "\n".join(x for x in (FIXTURES / "character_lines_issue13.txt").read_text(encoding="utf-8").split("\n")[1:])
    from extractors.wiki import parse_wiki_text
    assert [q.name for q in parse_wiki_text(bare, "Kyon")] == ["Kyon"] * 3
    assert parse_wiki_text(bare) == []


def test_the_jaques_sample_page_is_quoted_from_the_bundled_play():
    play = " ".join((REPO / "data/samples/asyoulik.txt").read_text(encoding="utf-8").replace("\t", " ").split())
    lines = extract_wiki(REPO / "data/samples/jaques_quotes.txt", "jaques_quotes")
    assert len(lines) == 7 and {ln.speaker for ln in lines} == {"jaques"}
    assert all(ln.text in play for ln in lines)
    stories = Segmenter("jaques", AliasResolver(), Params()).run(lines)
    assert len(stories) == 7 and all(s.solo and s.lines[-1]["speaker"] == "jaques" for s in stories)
    assert json.loads(json.dumps(stories[4].lines))[0]["text"] == "Act II, Scene 7"


def test_the_runtime_finds_the_best_original_line_among_solo_stories():
    from types import SimpleNamespace

    import numpy as np

    from fake_embeddings import bag_of_words
    from pipeline.runtime import CharacterBot

    lines = extract_wiki(REPO / "data/samples/jaques_quotes.txt", "jaques_quotes")
    stories = [(0.0, s.text) for s in Segmenter("jaques", AliasResolver(), Params()).run(lines)]
    bot = SimpleNamespace(name="Jaques", embedder=SimpleNamespace(
        encode=lambda texts: np.array([bag_of_words(t, 256) for t in texts], dtype=np.float32)))
    occasion, line, _ = CharacterBot.best_original_line(bot, "Are men and women merely players on a stage, with exits and entrances?", stories)
    assert occasion == "旁白:Act II, Scene 7" and line.startswith("Jaques:「All the world's a stage,")


@pytest.mark.parametrize("with_character", [False, True])
def test_the_issue_page_through_the_cli_gives_solo_stories(tmp_path, monkeypatch, with_character):
    from typer.testing import CliRunner

    import pipeline.cli  # noqa: F401  (registers the commands)
    from extractors.characters import save_character
    from extractors.records import read_lines
    from pipeline.cli_app import app
    from pipeline.stories import read_stories

    (tmp_path / "configs").mkdir()
    save_character(tmp_path / "configs", Character("kyon", "Kyon", "The Melancholy of Haruhi Suzumiya"))
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    run = lambda *a: CliRunner().invoke(app, [str(x) for x in a])
    lines, stories = tmp_path / "lines.jsonl", tmp_path / "kyon.jsonl"
    more = ["--character", "kyon"] if with_character else []
    r = run("extract", "wiki", FIXTURES / "character_lines_issue13.txt", "--work", "haruhi", "-o", lines, *more)
    assert r.exit_code == 0, r.output
    assert [ln.speaker for ln in read_lines(lines)] == ["kyon"] * 3
    r = run("segment", lines, "--character", "kyon", "-o", stories)
    assert r.exit_code == 0, r.output
    assert "3 stories (0 exchange, 3 solo)" in r.output
    got = read_stories(stories)
    last = [s.text.split("\n")[-1] for s in got]
    assert [x.split()[0] for x in last] == ["Kyon:「Okay,", "Kyon:「Hold", "Kyon:「Hey,"] and all(x.endswith("」") for x in last)
    assert got[0].text.startswith("旁白:Kyon, narrating\n") and got[2].text.startswith("旁白:Kyon, annoyed\n")


# the issue's page in the other ways it gets saved: other bullets, numbers, none, headings, HTML
VARIANTS = {
    "dash bullets": "Example lines said by Kyon:\n- *Narrating* Okay, this is stupid.\n- Hold on a sec.\n- (annoyed) Hey, rules?\n",
    "numbered": "Example lines said by Kyon:\n1. *Narrating* Okay, this is stupid.\n2. Hold on a sec.\n3. (annoyed) Hey, rules?\n",
    "no bullets": "Example lines said by Kyon:\n*Narrating* Okay, this is stupid.\nHold on a sec.\n(annoyed) Hey, rules?\n",
    "blank lines": "Lines of Kyon\n\n''Narrating'' Okay, this is stupid.\n\nHold on a sec.\n\n(annoyed) Hey, rules?\n",
    "markdown headings": "# Kyon\n\n## Quotes\n\n- *Narrating* Okay, this is stupid.\n- Hold on a sec.\n- (annoyed) Hey, rules?\n",
    "title line": "Kyon/Quotes\n  • Okay, this is stupid. (narration)\n  • \"Hold on a sec.\"\n  • (annoyed) Hey, rules?\n",
    "html h1 and Quotes": "<html><head><title>Kyon | Haruhi Wiki | Fandom</title></head><body><h1>Kyon</h1><h2>Quotes</h2>"
                          "<ul><li><i>Narrating</i> Okay, this is stupid.</li><li>Hold on a sec.</li>"
                          "<li>(annoyed) Hey, rules?</li></ul></body></html>",
    "voice lines title": "<html><head><title>Voice lines of Kyon</title></head><body><ul><li><i>(narration)</i> Okay, this is "
                         "stupid.</li><li>Hold on a sec.</li><li>[annoyed] Hey, rules?</li></ul></body></html>",
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_issue_page_in_other_layouts(name):
    from extractors.wiki import parse_wiki_text

    got = [(q.name, q.text, (q.extra.get("direction") or "").lower(), bool(q.extra.get("narrating")))
           for q in parse_wiki_text(VARIANTS[name])]
    assert [g[0] for g in got] == ["Kyon"] * 3 and [g[1] for g in got] == ["Okay, this is stupid.", "Hold on a sec.", "Hey, rules?"]
    assert got[0][3] and got[0][2] in ("narrating", "narration") and got[2][2:] == ("annoyed", False) and not got[1][2]


def test_the_package_counts_solo_stories_and_the_role_file_holds_them(tmp_path):
    import numpy as np

    from pipeline.package import build_package
    from pipeline.rolefile import read_role_file

    jaques = Character("jaques", "Jaques", "As You Like It")
    lines = extract_wiki(REPO / "data/samples/jaques_quotes.txt", "jaques_quotes")
    stories = Segmenter("jaques", AliasResolver(), Params()).run(lines)
    vecs = np.eye(len(stories), 8, dtype=np.float32)
    out = build_package(tmp_path / "jaques", jaques, stories, vecs, {"model": "test"}, {}, ["jaques_quotes.txt"])
    counts = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["counts"]
    assert counts["story_kinds"] == {"exchange": 0, "solo": 7} and counts["stories"] == 7 and counts["exchanges"] == 0
    _, _, _, texts, _ = read_role_file(out / "jaques.jsonl")
    assert texts == [s.text for s in stories]
