"""`ask` and `chat` through a real OpenAI-compatible HTTP server on 127.0.0.1.

The server is stdlib `http.server` speaking the chat-completions protocol; the client is the
project's real path (langchain-openai ChatOpenAI over httpx, built from OPENAI_BASE_URL /
OPENAI_API_KEY). The package is Rosalind's, built from the sample play by the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cli_asserts import one_line_error

REPO = Path(__file__).resolve().parent.parent
SECRET = "sk-test-chat-secret-51c2"
QUESTION = "Who are you in love with?"


class ChatServer:
    """Answers every chat completion with `answer` (or fails as `mode` says) and records requests."""

    def __init__(self):
        self.answer = "Rosalind:「Orlando, of course; who else?」"
        self.mode = "ok"  # ok / slow / error500 / garbage
        self.requests: list[dict] = []
        self.auth: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                outer.requests.append(body)
                outer.auth.append(self.headers.get("Authorization", ""))
                if outer.mode == "slow":
                    time.sleep(4)
                if outer.mode == "error500":
                    data, status = b'{"error": {"message": "model crashed"}}', 500
                elif outer.mode == "garbage":
                    data, status = b"<html>not an API</html>", 200
                else:
                    data, status = json.dumps({
                        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
                        "model": body.get("model", "m"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": outer.answer}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }).encode(), 200
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


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
    assert "timeout: 60" in yaml
    (root / "configs" / "pipeline.yaml").write_text(yaml.replace("timeout: 60", "timeout: 2", 1))
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
    s = ChatServer()
    yield s
    s.close()


def llm_env(server):
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": SECRET, "ROLECORPUS_LLM_MODEL": "local-model"}


def test_ask_sends_prompt_stories_and_query_and_prints_the_words(project, server):
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


def test_chat_keeps_history_and_sends_it_next_turn(project, server):
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
def test_llm_failures_are_one_line_errors_without_the_key(project, server, mode, needle):
    server.mode = mode
    p = run(project, "ask", "rosalind", QUESTION, "--as", "Orlando", env_extra=llm_env(server))
    line = one_line_error(p, needle)
    assert SECRET not in p.stdout + p.stderr, line


def test_llm_answer_with_no_words_is_an_error(project, server):
    server.answer = "Rosalind:「」"
    p = run(project, "ask", "rosalind", QUESTION, "--as", "Orlando", env_extra=llm_env(server))
    one_line_error(p, "no words")
