"""A user's own source to a character, through the real CLI: `works add` -> `characters discover --write` ->
`build` -> `ask`, for a novel, a play and a Chinese novel nobody configured; and the traps on the way (a clash, a
name two characters claim, a character that gets no line) refused or named in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cli_asserts import one_line_error

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
HEADER = "# my project's settings: this comment must survive every edit\nworks: {}\ncharacters: {}\n"


def run(project: Path, *args, ok=True):
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"))
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=env, capture_output=True,
                       text=True, timeout=900)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def new_project(root: Path) -> Path:
    (root / "configs").mkdir(parents=True)
    (root / "configs" / "pipeline.yaml").write_text(HEADER, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def novel(tmp_path_factory):
    """Alice, as a user's own novel: a file outside the project, nothing configured."""
    home = tmp_path_factory.mktemp("home")
    book = home / "wonderland.txt"
    shutil.copyfile(SAMPLES / "alice29.txt", book)
    root = new_project(tmp_path_factory.mktemp("proj"))
    out = run(root, "works", "add", str(book), "--id", "wonder", "--kind", "novel", "--title", "Alice in Wonderland")
    disc = run(root, "characters", "discover", "wonder", "--top", "3", "--write")
    build = run(root, "build", "wonder")
    return root, out, disc, build


def test_works_add_registers_and_copies_keeping_comments(novel):
    root, out, _, _ = novel
    assert "copied" in out.stdout and (root / "data" / "raw" / "wonderland.txt").is_file()
    text = (root / "configs" / "pipeline.yaml").read_text(encoding="utf-8")
    assert text.startswith("# my project's settings: this comment must survive every edit")
    work = yaml.safe_load(text)["works"]["wonder"]
    assert work == {"kind": "novel", "input": "data/raw/wonderland.txt", "title": "Alice in Wonderland",
                    "language": "en"}
    listed = run(root, "works", "list").stdout
    assert "wonder" in listed and "Alice in Wonderland" in listed and "built" in listed


def test_works_add_again_is_a_no_op_and_a_clash_is_one_line(novel, tmp_path):
    root = novel[0]
    before = (root / "configs" / "pipeline.yaml").read_bytes()
    again = run(root, "works", "add", str(root / "data" / "raw" / "wonderland.txt"), "--id", "wonder", "--kind", "novel")
    assert "nothing changed" in again.stdout
    other = tmp_path / "other.txt"
    other.write_text('"Hello," said Tom. "Goodbye," said Ann.\n' * 20, encoding="utf-8")
    clash = run(root, "works", "add", str(other), "--id", "wonder", ok=False)
    one_line_error(clash, "already registered")
    assert (root / "configs" / "pipeline.yaml").read_bytes() == before


def test_discover_write_drafts_and_links_three_characters(novel):
    root, _, disc, _ = novel
    links = yaml.safe_load((root / "configs" / "pipeline.yaml").read_text(encoding="utf-8"))["characters"]
    assert list(links) == ["alice", "the_king", "the_gryphon"], disc.stdout
    assert all(v == {"work": "wonder"} for v in links.values())
    alice = yaml.safe_load((root / "configs" / "characters" / "alice.yaml").read_text(encoding="utf-8"))
    assert alice["series"] == "Alice in Wonderland" and alice["gender"] == "female" and "works" not in alice


def stories_ok(root: Path, cid: str) -> None:
    """The character's stories pass the reader's checks (pipeline/story_checks.py)."""
    from pipeline.stories import read_stories
    from pipeline.story_checks import stories_problems

    stories = read_stories(root / "data" / "stories" / f"{cid}.jsonl")
    assert stories and stories_problems(stories) == {}, (cid, stories_problems(stories))


def test_build_gives_each_character_a_package_whose_prompt_names_the_title(novel):
    root, _, _, build = novel
    for cid in ("alice", "the_king", "the_gryphon"):
        stories_ok(root, cid)
        pkg = root / "data" / "characters" / cid
        assert len(list((pkg / "stories").glob("*.txt"))) >= 10, build.stderr
        prompt = (pkg / "system_prompt.txt").read_text(encoding="utf-8")
        assert "from Alice in Wonderland" in prompt and "from wonder" not in prompt
    alice = [json.loads(x) for x in (root / "data" / "lines" / "wonder.jsonl").read_text().splitlines()]
    assert sum(ln["speaker"] == "alice" for ln in alice) > 200


def test_ask_answers_from_the_characters_stories(novel):
    root = novel[0]
    p = run(root, "ask", "the_king", "What is the verdict?", "--no-llm")
    assert "stories used" in p.stdout and "The King:「" in p.stdout, p.stdout


def test_a_linked_character_with_no_line_is_named_with_who_it_might_be(novel):
    root = novel[0]
    run(root, "add-character", "bill", "--name", "Bill the Lizard", "--work", "wonder")
    p = run(root, "build", "wonder", ok=False)
    warning = [ln for ln in p.stderr.splitlines() if ln.startswith("warning: bill")]
    assert len(warning) == 1 and "has no line in wonder" in warning[0] and "lines)" in warning[0], p.stderr


def test_a_name_another_character_of_the_work_has_is_refused_before_anything_is_written(novel):
    root = novel[0]
    before = (root / "configs" / "pipeline.yaml").read_bytes()
    p = run(root, "add-character", "king2", "--name", "The King", "--work", "wonder", ok=False)
    one_line_error(p, "the king", "the_king")
    p = run(root, "add-character", "big", "--name", "x" * 100_000, "--work", "wonder", ok=False)
    one_line_error(p, "name")
    p = run(root, "add-character", "lost", "--name", "Lost", "--work", "nowhere", ok=False)
    one_line_error(p, "nowhere", "works add")
    assert not (root / "configs" / "characters" / "king2.yaml").exists()
    assert not (root / "configs" / "characters" / "lost.yaml").exists()
    assert (root / "configs" / "pipeline.yaml").read_bytes() == before
    run(root, "works", "list")  # the project still loads


def test_a_play_by_the_same_path(tmp_path):
    root = new_project(tmp_path / "play")
    added = run(root, "works", "add", str(SAMPLES / "asyoulik.txt"), "--id", "ayli", "--title", "As You Like It")
    assert "script" in added.stdout  # auto: a text of speaker cues is a script
    disc = run(root, "characters", "discover", "ayli", "--top", "3", "--write")
    assert "Rosalind" in disc.stdout
    run(root, "build", "ayli")
    made = sorted(p.name for p in (root / "data" / "characters").iterdir())
    assert len(made) == 3 and "rosalind" in made, made
    prompt = (root / "data" / "characters" / "rosalind" / "system_prompt.txt").read_text(encoding="utf-8")
    assert "Rosalind from As You Like It" in prompt
    for cid in made:
        stories_ok(root, cid)


@pytest.mark.slow
def test_a_chinese_novel_by_the_same_path(tmp_path):
    root = new_project(tmp_path / "zh")
    added = run(root, "works", "add", str(SAMPLES / "sanguo_1-15.txt"), "--id", "sgyy", "--title", "三国演义")
    assert "novel, zh" in added.stdout
    run(root, "characters", "discover", "sgyy", "--top", "3", "--write")
    run(root, "build", "sgyy")
    made = sorted(p.name for p in (root / "data" / "characters").iterdir())
    assert len(made) == 3, made
    for cid in made:
        prompt = (root / "data" / "characters" / cid / "system_prompt.txt").read_text(encoding="utf-8")
        assert "三国演义" in prompt
        stories_ok(root, cid)


def test_a_name_two_characters_of_one_work_share_is_refused_not_resolved_by_sort_order(tmp_path):
    """`rosalind` (As You Like It) and another series' `ganymede` who also answers to Rosalind, both linked to the
    play: the link is refused with both named, and the project keeps loading."""
    root = new_project(tmp_path / "p")
    run(root, "works", "add", str(SAMPLES / "asyoulik.txt"), "--id", "ayli", "--title", "As You Like It")
    run(root, "add-character", "rosalind", "--name", "Rosalind", "--work", "ayli")
    p = run(root, "add-character", "ganymede", "--name", "Ganymede", "--alias", "Rosalind", "--series", "Other Play",
            "--work", "ayli", ok=False)
    one_line_error(p, "'rosalind'", "'ganymede'", "ayli")
    assert not (root / "configs" / "characters" / "ganymede.yaml").exists()
    run(root, "works", "list")
