"""The one LLM client (extractors/llm_client.py) against a fake OpenAI-compatible HTTP server on 127.0.0.1.

The client is the real path: langchain-openai ChatOpenAI over httpx, built from OPENAI_BASE_URL / OPENAI_API_KEY.
The server (tests/fake_llm_server.py) echoes a reply derived from the last message, can fail (429, 500, 401 echoing
the key) or be slow.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer

from extractors.errors import InputError
from extractors.llm_client import LLMClient

REPO = Path(__file__).resolve().parent.parent
SECRET = "sk-fake-client-secret-9f3e77"


@pytest.fixture
def server(monkeypatch):
    s = FakeLLMServer(usage=(7, 3))
    monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    yield s
    s.close()


def msgs(text: str) -> list[dict]:
    return [{"role": "system", "content": "You are Rosalind."}, {"role": "user", "content": text}]


def test_fake_server_answers_are_cached_and_a_rerun_makes_zero_calls(server, tmp_path):
    c = LLMClient(tmp_path, model="m", backoff=0.01)
    answers = c.complete_many([msgs(f"q{i}") for i in range(6)], desc="test")
    assert answers == [f"echo: q{i}" for i in range(6)]
    assert c.stats["calls"] == 6 and c.stats["tokens_in"] == 42 and c.stats["tokens_out"] == 18
    again = LLMClient(tmp_path, model="m")
    assert again.complete_many([msgs(f"q{i}") for i in range(6)]) == answers
    assert again.stats["calls"] == 0 and again.stats["cache_hits"] == 6 and len(server.requests) == 6
    # another model, temperature or variant is another question
    LLMClient(tmp_path, model="m").complete(msgs("q0"), variant=1)
    LLMClient(tmp_path, model="m", temperature=0.7).complete(msgs("q0"))
    assert len(server.requests) == 8
    c.write_metrics(tmp_path / "m.json")
    m = json.loads((tmp_path / "m.json").read_text())
    assert m["calls"] == 6 and m["cache_hit_rate"] == 0.0


def test_fake_server_rate_limits_and_server_errors_are_retried(server, tmp_path):
    server.fail = [429, 500]
    c = LLMClient(tmp_path, model="m", backoff=0.01, max_retries=3)
    assert c.complete(msgs("hello")) == "echo: hello"
    assert c.stats["retries"] >= 1 and len(server.requests) >= 2


def test_fake_server_401_echoing_the_key_is_one_line_without_the_key(server, tmp_path):
    server.fail = [401]
    c = LLMClient(tmp_path, model="m", backoff=0.01)
    with pytest.raises(InputError) as e:
        c.complete(msgs("hello"))
    assert SECRET not in str(e.value) and "HTTP 401" in str(e.value) and "\n" not in str(e.value)
    assert c.stats["failures"] == 1 and not list((tmp_path / "llm").rglob("*.json"))


def test_fake_server_rate_limit_spaces_requests(server, tmp_path):
    c = LLMClient(tmp_path, model="m", requests_per_minute=600, concurrency=4)  # 10 per second
    t0 = time.monotonic()
    c.complete_many([msgs(f"r{i}") for i in range(6)])
    assert time.monotonic() - t0 >= 0.45


def test_no_endpoint_is_a_one_line_error(tmp_path, monkeypatch):
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    from pipeline.llm import client_for
    from pipeline.paths import Project
    from pipeline.settings import Settings

    with pytest.raises(InputError, match="no LLM configured"):
        client_for(Project(tmp_path), Settings())


_RUNNER = textwrap.dedent("""
    import sys
    from extractors.llm_client import LLMClient
    c = LLMClient(sys.argv[1], model="m", concurrency=3)
    qs = [[{"role": "user", "content": f"k{i}"}] for i in range(24)]
    print(c.complete_many(qs, desc="kill"))
""")


def test_fake_server_kill9_mid_run_repays_only_requests_in_flight(tmp_path, monkeypatch):
    s = FakeLLMServer(delay=0.25, usage=(7, 3))
    env = dict(os.environ, OPENAI_BASE_URL=s.base_url, OPENAI_API_KEY=SECRET, PYTHONPATH=str(REPO))
    try:
        p = subprocess.Popen([sys.executable, "-c", _RUNNER, str(tmp_path)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(list((tmp_path / "llm").rglob("*.json"))) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        p.send_signal(signal.SIGKILL)
        p.wait()
        stored = {json.loads(f.read_text())["answer"] for f in (tmp_path / "llm").rglob("*.json")}
        asked_before = [r["messages"][-1]["content"] for r in s.requests]
        assert 6 <= len(stored) < 24
        out = subprocess.run([sys.executable, "-c", _RUNNER, str(tmp_path)], env=env, capture_output=True,
                             text=True, check=True).stdout
        assert out.strip() == str([f"echo: k{i}" for i in range(24)])
        asked_after = [r["messages"][-1]["content"] for r in s.requests[len(asked_before):]]
        repaid = set(asked_after) & set(asked_before)
        assert not repaid & {a.removeprefix("echo: ") for a in stored}   # no stored answer is paid again
        assert len(repaid) <= 3                                             # only those in flight at the kill
    finally:
        s.close()
