"""The spine through the real CLI: add-character, extract, segment, embed, package, ask — and its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_asserts import one_line_error

REPO = Path(__file__).resolve().parents[2]


def run(project: Path, *args, ok=True, stdin=None):
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"))
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=env, capture_output=True,
                       text=True, input=stdin, timeout=600)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("proj")
    (root / "configs").mkdir()
    (root / "configs" / "pipeline.yaml").write_text((REPO / "configs" / "pipeline.yaml").read_text())
    run(root, "add-character", "rosalind", "--name", "Rosalind", "--series", "As You Like It",
        "--alias", "ROSALIND", "--alias", "Ros.", "--alias", "Ganymede", "--personality", "Quick-witted and warm.")
    run(root, "add-character", "orlando", "--name", "Orlando", "--series", "As You Like It")
    run(root, "extract", "script", str(REPO / "data/samples/asyoulik.txt"), "--work", "asyoulik",
        "-o", str(root / "data/lines/asyoulik.jsonl"))
    return root


@pytest.mark.slow
def test_spine_builds_a_package_and_answers_offline(project):
    p = run(project, "segment", "--character", "rosalind", "data/lines/asyoulik.jsonl")
    assert "stories" in p.stdout
    run(project, "embed", "rosalind")
    again = run(project, "embed", "rosalind")
    assert "new 0" in again.stdout  # every vector came from the cache
    run(project, "package", "rosalind")
    pkg = project / "data/characters/rosalind"
    assert len(list((pkg / "stories").glob("*.txt"))) >= 40
    assert json.loads((pkg / "manifest.json").read_text())["counts"]["stories"] >= 40
    ans = run(project, "ask", "rosalind", "Who are you in love with?", "--as", "Orlando")
    assert "no LLM configured" in ans.stderr
    assert "Rosalind:「" in ans.stdout and "best original line" in ans.stdout
    shown = run(project, "ask", "rosalind", "Who are you in love with?", "--as", "Orlando", "--show-prompt")
    assert "I want you to act like Rosalind" in shown.stdout and "Orlando:「Who are you in love with?」" in shown.stdout
    chat = run(project, "chat", "rosalind", "--as", "Orlando", stdin="Where do you live?\n/quit\n")
    assert "Rosalind:「" in chat.stdout


def test_aliases_resolve_case_and_punctuation_tolerantly(project):
    from extractors.characters import AliasResolver, load_characters

    r = AliasResolver(load_characters(project / "configs"))
    assert r.resolve("ROSALIND") == r.resolve("Rosalind") == r.resolve("ros") == r.resolve("ROS.") == "rosalind"
    assert r.resolve("Celia") is None


def test_unknown_character_is_a_one_line_error(project):
    one_line_error(run(project, "segment", "--character", "jaques", "data/lines/asyoulik.jsonl", ok=False), "unknown character id 'jaques'")
    one_line_error(run(project, "ask", "nobody", "hi", ok=False), "unknown character id 'nobody'")


def test_malformed_lines_row_is_named_and_nothing_is_written(project):
    good = (project / "data/lines/asyoulik.jsonl").read_text().splitlines()
    bad = project / "bad.jsonl"
    bad.write_text("\n".join(good[:5] + ['{"work": "x", "text": 3}'] + good[5:10]) + "\n")
    out = project / "out_stories.jsonl"
    one_line_error(run(project, "segment", "--character", "rosalind", str(bad), "-o", str(out), ok=False), "bad.jsonl, row 6")
    assert not out.exists()
    notjson = project / "notjson.jsonl"
    notjson.write_text(good[0] + "\n{oops\n")
    one_line_error(run(project, "segment", "--character", "rosalind", str(notjson), "-o", str(out), ok=False), "row 2", "not valid JSON")
    assert not out.exists()


@pytest.mark.parametrize("content,needle", [(b"", "empty"), (b"\x00\x01\x02binary\x00" * 100, "binary")])
def test_empty_and_binary_scripts_are_refused(project, tmp_path, content, needle):
    src = tmp_path / "in.txt"
    src.write_bytes(content)
    out = tmp_path / "lines.jsonl"
    one_line_error(run(project, "extract", "script", str(src), "--work", "w", "-o", str(out), ok=False), str(src), needle)
    assert not out.exists()


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16"])
def test_chinese_script_in_other_encodings_is_decoded(project, tmp_path, encoding):
    text = "旁白:春日走进教室。\n阿虚:「你又在想什么？」\n凉宫春日:「我要成立一个新的社团！」\n阿虚:「又来了。」\n"
    src = tmp_path / f"script_{encoding}.txt"
    src.write_bytes(text.encode(encoding))
    out = tmp_path / "lines.jsonl"
    run(project, "extract", "script", str(src), "--work", "haruhi", "-o", str(out))
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in rows if r["kind"] == "dialogue"] == ["你又在想什么？", "我要成立一个新的社团！", "又来了。"]
    assert rows[0]["kind"] == "narration"


def test_help_explains_every_command(project):
    p = run(project, "--help")
    for cmd in ("add-character", "extract", "segment", "embed", "package", "ask", "chat", "speakers", "eval"):
        assert cmd in p.stdout
