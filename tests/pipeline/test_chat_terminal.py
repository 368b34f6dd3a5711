"""What `ask` and `chat` print: the answer, then the top stories one line each (`--show-stories`: all, in full);
the no-LLM notice once per session (CliRunner over Rosalind's package built from the sample play); `--help` lists the
commands in the order of the flow and no help text carries a measured figure."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

import pipeline.commands.chat as chat_cmd
from extractors.characters import save_character
from pipeline.cli_app import app
from pipeline.embedders import UseEmbedder
from pipeline.package import build_package
from pipeline.runtime import CharacterBot
from pipeline.segment import Params, Segmenter

from fake_llm_server import FakeLLMServer
from helpers_play import CHARACTERS, play_lines, resolver

QUESTION = "Who are you in love with?"


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=1)


@pytest.fixture(scope="module")
def project(tmp_path_factory, embedder):
    """A project holding Rosalind's character file and her package (real stories, real USE vectors)."""
    root = tmp_path_factory.mktemp("chat_terminal")
    (root / "configs" / "characters").mkdir(parents=True)
    (root / "configs" / "pipeline.yaml").write_text("embed: {backend: use, threads: 1}\n", encoding="utf-8")
    save_character(root / "configs", CHARACTERS[0])
    stories = Segmenter("rosalind", resolver(), Params()).run(list(play_lines()))
    vecs = embedder.encode([s.text for s in stories])
    build_package(root / "data" / "characters" / "rosalind", CHARACTERS[0], stories, vecs,
                  {"model": embedder.name, "normalized": True}, {}, ["asyoulik"])
    return root


def cli(root, *args, stdin=None, **env):
    env = {"ROLECORPUS_ROOT": str(root), "ROLECORPUS_CACHE": str(root / ".cache"),
           "OPENAI_BASE_URL": None, "OPENAI_API_KEY": None, "ROLECORPUS_LLM_MODEL": None, **env}
    result = CliRunner().invoke(app, list(args), env=env, input=stdin)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


BUDGET = "4000"  # tokens of stories: more stories than the list shows


def retrieved(project, embedder, role="Orlando", text=QUESTION):
    bot = CharacterBot(project / "data" / "characters" / "rosalind", embedder, story_tokens=int(BUDGET))
    return bot.retrieve(f"{role}:「{text}」")


def test_ask_prints_the_answer_and_three_stories_one_line_each(project, embedder):
    stories = retrieved(project, embedder)
    assert len(stories) > chat_cmd.SHOWN  # so the list below is a cut, not everything
    r = cli(project, "ask", "rosalind", QUESTION, "--as", "Orlando", "--story-tokens", BUDGET)
    out = r.stdout.splitlines()
    assert out[0].startswith("best original line (score ")
    assert out[2].startswith("  Rosalind:「")  # the answer: one of her own lines, after the line it answers
    head = f"stories used ({len(stories)}; {len(stories) - chat_cmd.SHOWN} more with --show-stories):"
    listed = out[out.index(head) + 1:]
    assert len(listed) == chat_cmd.SHOWN
    for line, (score, text) in zip(listed, stories):
        assert line == f"  {score:.2f}  {chat_cmd._first_line(text)}"
        assert len(line) <= chat_cmd.WIDTH + 8
    assert len(out) <= 8  # compact: no story is printed in full
    assert r.stderr.count("no LLM configured") == 1


def test_show_stories_prints_every_story_used_in_full(project, embedder):
    stories = retrieved(project, embedder)
    r = cli(project, "ask", "rosalind", QUESTION, "--as", "Orlando", "--show-stories", "--story-tokens", BUDGET)
    for n, (score, text) in enumerate(stories, 1):
        assert f"--- story {n} of {len(stories)} (score {score:.3f}) ---\n{text}" in r.stdout
    assert "stories used" not in r.stdout
    assert len(r.stdout.splitlines()) > sum(len(t.splitlines()) for _, t in stories)


def test_chat_says_there_is_no_llm_once_per_session(project):
    r = cli(project, "chat", "rosalind", "--as", "Orlando", stdin="Who are you in love with?\nWhere do you live?\n"
                                                                  "What is the forest like?\n/quit\n")
    assert r.stdout.count("best original line") == 3  # three turns answered...
    assert r.stdout.count("stories used (") == 3
    assert r.stderr.count("no LLM configured") == 1   # ...one notice


def test_no_llm_flag_prints_no_notice(project):
    r = cli(project, "ask", "rosalind", QUESTION, "--no-llm")
    assert "no LLM configured" not in r.stderr and "best original line" in r.stdout


def test_with_an_llm_the_reply_comes_first_then_the_stories(project, embedder):
    server = FakeLLMServer(answer="Rosalind:「Orlando, of course.」")
    try:
        r = cli(project, "chat", "rosalind", "--as", "Orlando", stdin=f"{QUESTION}\nAnd you?\n/quit\n",
                **server.env())
    finally:
        server.close()
    out = r.stdout.splitlines()
    assert out.count("Rosalind: Orlando, of course.") == 2  # the frame the model imitated is cut
    assert "best original line" not in r.stdout and "no LLM configured" not in r.stderr
    first = out.index("Rosalind: Orlando, of course.")
    assert out[first + 2].startswith("stories used (")
    assert len(server.requests) == 2


def test_a_long_first_line_is_cut_to_the_width():
    story = "Orlando:「" + "very " * 60 + "long」\nRosalind:「Short.」"
    line = chat_cmd._first_line(story)
    assert len(line) == chat_cmd.WIDTH and line.endswith("…") and line.startswith("Orlando:「very")
    assert chat_cmd._first_line("\n  旁白:Enter Rosalind.\n") == "旁白:Enter Rosalind."


def _help_texts(command, path=()):
    """Every help text of the command line: each command's and each of its options'."""
    yield path, command.help or ""
    for p in command.params:
        yield path + (p.name,), getattr(p, "help", None) or ""
    for name, sub in getattr(command, "commands", {}).items():
        yield from _help_texts(sub, path + (name,))


def test_help_lists_the_commands_in_the_order_of_the_flow():
    import pipeline.cli  # noqa: F401  (registers every command)

    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    listed = [m.group(1) for m in re.finditer(r"^│ ([a-z][a-z-]+) ", out, re.M)]
    flow = ["works", "characters", "add-character", "extract", "build", "segment", "embed", "package", "ask", "chat",
            "studio"]
    assert listed[:len(flow)] == flow
    assert {"speakers", "eval", "export", "report"} <= set(listed[len(flow):])


def test_no_help_text_carries_a_measured_figure():
    import typer

    import pipeline.cli  # noqa: F401

    figure = re.compile(r"\d\.\d{3}|~\d|\bsession \d|(accuracy|precision|error rate) [\d~]|\d(\.\d+)?x (faster|slower)")
    found = [f"{' '.join(path)}: {text[:80]}" for path, text in _help_texts(typer.main.get_command(app))
             if figure.search(text)]
    assert found == []
