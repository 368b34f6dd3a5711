"""`ask` and `chat` through a fake OpenAI-compatible HTTP server on 127.0.0.1 (plumbing only).

The server is tests/support/fake_llm_server.py (stdlib `http.server` speaking the chat-completions protocol); the client is the
project's real path (langchain-openai ChatOpenAI over httpx, built from OPENAI_BASE_URL /
OPENAI_API_KEY). The package is Rosalind's, built from the sample play by the real CLI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_asserts import one_line_error
from fake_llm_server import FakeLLMServer

REPO = Path(__file__).resolve().parents[2]
SECRET = "sk-test-chat-secret-51c2"
QUESTION = "Who are you in love with?"
ANSWER = "Rosalind:「Orlando, of course; who else?」"
BROKEN = {"slow": {"delay": 4}, "error500": {"fail_always": 500}, "garbage": {"raw": b"<html>not an API</html>"}}


def run(project: Path, *args, env_extra=None, stdin=None):
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"))
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ROLECORPUS_LLM_MODEL", "OPENAI_MODEL"):
        env.pop(k, None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=env, capture_output=True,
                          text=True, input=stdin, timeout=300)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("chatproj")
    (root / "configs").mkdir()
    yaml = (REPO / "configs" / "pipeline.yaml").read_text()
    assert "timeout: 600 " in yaml  # chat: comes before llm:, so the first timeout is the chat's
    (root / "configs" / "pipeline.yaml").write_text(yaml.replace("timeout: 600 ", "timeout: 2 ", 1))
    steps = [
        ("add-character", "rosalind", "--name", "Rosalind", "--series", "As You Like It", "--alias", "ROSALIND"),
        ("extract", "script", str(REPO / "data/samples/asyoulik.txt"), "--work", "asyoulik",
         "-o", str(root / "data/lines/asyoulik.jsonl")),
        ("segment", str(root / "data/lines/asyoulik.jsonl"), "--character", "rosalind"),
        ("embed", "rosalind"),
        ("package", "rosalind"),
    ]
    for step in steps:
        p = run(root, *step)
        assert p.returncode == 0, p.stderr
    return root


@pytest.fixture()
def server():
    s = FakeLLMServer(answer=ANSWER, usage=(10, 5))
    yield s
    s.close()


def llm_env(server):
    return server.env(SECRET, "local-model")


def test_fake_server_ask_sends_prompt_stories_and_query_and_prints_the_words(project, server):
    p = run(project, "ask", "rosalind", QUESTION, "--as", "Orlando", "--show-prompt", env_extra=llm_env(server))
    assert p.returncode == 0, p.stderr
    assert len(server.requests) == 1
    body = server.requests[0]
    assert body["model"] == "local-model"
    msgs = body["messages"]
    system_prompt = (project / "data/characters/rosalind/system_prompt.txt").read_text(encoding="utf-8")
    assert msgs[0] == {"role": "system", "content": system_prompt.strip()} or msgs[0]["content"] == system_prompt
    stories = [m["content"] for m in msgs[1:-1]]
    assert any("Rosalind:「" in s for s in stories)  # retrieved scenes with her own lines
    assert msgs[-1] == {"role": "user", "content": f"Orlando:「{QUESTION}」"}
    # the reply is printed without the Name:「…」 frame the model imitated
    assert "Rosalind: Orlando, of course; who else?" in p.stdout
    assert "「Orlando" not in p.stdout.split("----- end of prompt -----")[-1]
    # --show-prompt printed exactly what was sent
    printed = p.stdout.split("----- end of prompt -----")[0]
    for m in msgs:
        assert m["content"] in printed
    # the key travels only in the Authorization header, never to the terminal
    assert server.auth == [f"Bearer {SECRET}"]
    assert SECRET not in p.stdout + p.stderr


def test_fake_server_chat_keeps_history_and_sends_it_next_turn(project, server):
    stdin = "Who are you in love with?\nAnd where do you live?\n/quit\n"
    p = run(project, "chat", "rosalind", "--as", "Orlando", env_extra=llm_env(server), stdin=stdin)
    assert p.returncode == 0, p.stderr
    assert len(server.requests) == 2
    second = server.requests[1]["messages"]
    contents = [(m["role"], m["content"]) for m in second]
    assert ("user", f"Orlando:「{QUESTION}」") in contents
    assert ("assistant", "Orlando, of course; who else?") in contents  # cleaned reply in the history
    assert contents[-1] == ("user", "Orlando:「And where do you live?」")
    assert p.stdout.count("Rosalind: Orlando, of course; who else?") == 2


@pytest.mark.parametrize("mode,needle", [("slow", "Timeout"), ("error500", "LLM call failed"),
                                         ("garbage", "LLM call failed")])
def test_fake_server_llm_failures_are_one_line_errors_without_the_key(project, server, mode, needle):
    for hook, value in BROKEN[mode].items():
        setattr(server, hook, value)
    p = run(project, "ask", "rosalind", QUESTION, "--as", "Orlando", env_extra=llm_env(server))
    line = one_line_error(p, needle)
    assert SECRET not in p.stdout + p.stderr, line


def test_fake_server_llm_answer_with_no_words_is_an_error(project, server):
    server.answer = "Rosalind:「」"
    p = run(project, "ask", "rosalind", QUESTION, "--as", "Orlando", env_extra=llm_env(server))
    one_line_error(p, "no words")
