"""`rolecorpus extract script` / `extract wiki` through typer's CliRunner: output, auto format, bad input."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.characters import Character, save_character
from extractors.records import read_lines
from pipeline.cli_app import app

from cli_asserts import one_line_error

PROSE = "It was a bright cold day in April.\n\nThe clocks were striking thirteen: nobody noticed.\n"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    save_character(tmp_path / "configs", Character("rosalind", "Rosalind", "As You Like It", aliases=["ROSALIND", "Ganymede"]))
    save_character(tmp_path / "configs", Character("zhongli", "Zhongli", "Genshin Impact", aliases=["钟离"]))
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_extract_script_auto_writes_lines(project, samples):
    out = project / "data" / "lines" / "asyoulik.jsonl"
    r = invoke("extract", "script", samples / "asyoulik.txt", "--work", "asyoulik", "-o", out)
    assert r.exit_code == 0, r.output
    assert "format: play" in r.stderr
    lines = read_lines(out)  # validates every row
    assert sum(1 for ln in lines if ln.speaker == "rosalind") >= 201
    assert {ln.name for ln in lines if ln.speaker == "rosalind"} == {"ROSALIND"}
    assert lines[0].work == "asyoulik" and lines[0].source == "asyoulik.txt"


def test_extract_script_explicit_format_is_silent_about_detection(project, samples):
    out = project / "l.jsonl"
    r = invoke("extract", "script", samples / "asyoulik.txt", "--work", "w", "-o", out, "--format", "play")
    assert r.exit_code == 0 and "auto-detected" not in r.stderr
    assert out.exists()


@pytest.mark.parametrize(
    "content,needle",
    [
        (b"", "file is empty"),
        (bytes(range(256)) * 40, "binary"),
        (PROSE.encode(), "cannot recognise a script format"),
    ],
    ids=["empty", "binary", "prose"],
)
def test_bad_script_input_is_one_line_error_and_no_output(project, content, needle):
    src = project / "input.txt"
    src.write_bytes(content)
    out = project / "out.jsonl"
    r = invoke("extract", "script", src, "--work", "w", "-o", out)
    one_line_error(r, needle, "input.txt")
    assert not out.exists()
    assert not list(project.glob("*.tmp*")) and not list(project.glob(".out.jsonl*"))


def test_unknown_format_and_missing_file(project, samples):
    out = project / "out.jsonl"
    one_line_error(invoke("extract", "script", samples / "asyoulik.txt", "--work", "w", "-o", out, "--format", "xml"),
                   "--format")
    one_line_error(invoke("extract", "script", project / "nope.txt", "--work", "w", "-o", out), "no such file")
    assert not out.exists()


def test_wrong_encoding_named(project):
    src = project / "gb.txt"
    src.write_bytes("阿虚:「你好。」\n春日:「你好！」\n".encode("gb18030"))
    out = project / "out.jsonl"
    one_line_error(invoke("extract", "script", src, "--work", "w", "-o", out, "--encoding", "utf-8"), "cannot decode as utf-8")
    assert not out.exists()
    r = invoke("extract", "script", src, "--work", "w", "-o", out)
    assert r.exit_code == 0 and "format: colon" in r.stderr
    assert [ln.text for ln in read_lines(out)] == ["你好。", "你好！"]


def test_extract_wiki(project):
    page = ("<html><head><title>Voice-Overs</title></head><body><table>"
            "<tr><td>Hello</td><td>I am Zhongli, a consultant of the Wangsheng Funeral Parlor.</td></tr>"
            "<tr><td>Chat: Contracts</td><td>Contracts are the bedrock of trade.</td></tr></table></body></html>")
    src = project / "vo.html"
    src.write_text(page)
    out = project / "vo.jsonl"
    r = invoke("extract", "wiki", src, "--work", "genshin", "-o", out, "--character", "zhongli")
    assert r.exit_code == 0, r.output
    lines = read_lines(out)
    assert [(ln.kind, ln.speaker) for ln in lines] == [("narration", None), ("dialogue", "zhongli")] * 2
    assert lines[1].name == "Zhongli"
    # unknown character id, and a page without quotes: one-line errors, nothing written
    out2 = project / "vo2.jsonl"
    one_line_error(invoke("extract", "wiki", src, "--work", "g", "-o", out2, "--character", "nobody"),
                   "unknown character id 'nobody'")
    plain = project / "plain.txt"
    plain.write_text("Nothing quotable here.\n")
    one_line_error(invoke("extract", "wiki", plain, "--work", "g", "-o", out2), "no quotes found", "plain.txt")
    assert not out2.exists()
