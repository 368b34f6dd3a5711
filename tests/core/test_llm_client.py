"""The one LLM client (extractors/llm_client.py) against a fake OpenAI-compatible HTTP server on 127.0.0.1.

The client is the real path: langchain-openai ChatOpenAI over httpx, built from OPENAI_BASE_URL / OPENAI_API_KEY.
The server (tests/support/fake_llm_server.py) echoes a reply derived from the last message, can fail (429, 500, 401 echoing
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

REPO = Path(__file__).resolve().parents[2]
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


# --- limits: a slow or dead endpoint ends in one line, in bounded time, without a second request ---------------

def test_fake_server_that_accepts_and_never_answers_fails_within_the_first_token_limit(tmp_path, monkeypatch):
    s = FakeLLMServer(hold_after=0)  # accepts every connection, never answers
    monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    try:
        c = LLMClient(tmp_path, model="m", first_token=1.5, silence=1, timeout=30, max_retries=3, backoff=0.01)
        t0 = time.monotonic()
        with pytest.raises(InputError, match="no token within 1.5 s") as e:
            c.complete_many([msgs(f"q{i}") for i in range(4)])
        assert time.monotonic() - t0 < 6
        assert "llm.first_token" in str(e.value) and "\n" not in str(e.value) and SECRET not in str(e.value)
        assert len(s.received) == 1 and s.requests[0]["stream"] is True  # not re-sent; the batch stopped
        assert c.stats["timeouts"] == 1 and c.stats["retries"] == 0
    finally:
        s.close()


def test_fake_server_falling_silent_mid_answer_fails_within_the_silence_limit(server, tmp_path):
    server.answer = "one two three four five six seven eight"
    server.stall_after = 3
    c = LLMClient(tmp_path, model="m", first_token=10, silence=1, timeout=30, backoff=0.01)
    t0 = time.monotonic()
    with pytest.raises(InputError, match=r"fell silent for 1 s .*llm\.silence"):
        c.complete(msgs("talk"))
    assert time.monotonic() - t0 < 5 and len(server.received) == 1
    assert not list((tmp_path / "llm").rglob("*.json"))  # nothing half-said was cached


def test_fake_server_slow_stream_meets_the_total_deadline(server, tmp_path):
    server.answer = " ".join(f"w{i}" for i in range(40))
    server.chunk_delay = 0.1  # never silent, but 4 s in all
    c = LLMClient(tmp_path, model="m", first_token=10, silence=5, timeout=1.5, backoff=0.01)
    t0 = time.monotonic()
    with pytest.raises(InputError, match=r"did not finish within 1.5 s \(llm\.timeout\)"):
        c.complete(msgs("talk"))
    assert time.monotonic() - t0 < 4 and len(server.received) == 1
    server.chunk_delay = 0.0
    fast = LLMClient(tmp_path, model="m", first_token=10, silence=5, timeout=1.5)  # a fast stream gets through
    assert fast.complete(msgs("talk")) == server.answer


def test_fake_server_streamed_answer_shows_progress_lines_off_a_terminal(server, tmp_path, capsys):
    server.answer = "a b c d e f"
    server.chunk_delay = 0.3
    c = LLMClient(tmp_path, model="m", heartbeat=0.5)
    assert c.complete_many([msgs("x")], desc="emotions rosalind") == ["a b c d e f"]
    err = capsys.readouterr().err
    assert "emotions rosalind 1/1: " in err and "answered" in err and "tokens" in err


# --- JSON mode ----------------------------------------------------------------------------------------------------

def test_fake_server_json_stage_asks_json_mode_and_falls_back_where_refused(server, tmp_path):
    server.answer = '{"labels": ["Anger"]}'
    c = LLMClient(tmp_path, model="m", backoff=0.01, max_tokens=64)
    assert c.complete(msgs("label"), json=True) == '{"labels": ["Anger"]}'
    assert server.requests[-1]["response_format"] == {"type": "json_object"}
    assert server.requests[-1]["max_tokens"] == 64  # the field llama.cpp's server reads (not max_completion_tokens)
    c.complete(msgs("plain"))
    assert "response_format" not in server.requests[-1]
    server.fail = [400]  # a server without JSON mode
    old = LLMClient(tmp_path, model="m", backoff=0.01)
    assert old.complete(msgs("label 2"), json=True) == '{"labels": ["Anger"]}'
    assert "response_format" in server.requests[-2] and "response_format" not in server.requests[-1]
    assert old.json_mode is False


@pytest.mark.parametrize("answer,want", [
    ('```json\n{identity: "A duke\'s daughter", speaking_style: "quick",\n relationships: {Celia: "cousin",},}\n```',
     {"identity": "A duke's daughter", "speaking_style": "quick", "relationships": {"Celia": "cousin"}}),
    ("Here is the profile:\n{'identity': 'x', 'never_says': ['a', 'b',],}\nHope it helps.",
     {"identity": "x", "never_says": ["a", "b"]}),
    ('{"labels": ["Anger", "Fear"', {"labels": ["Anger", "Fear"]}),  # cut off by max_tokens
])
def test_near_json_is_repaired(answer, want):
    from extractors.llm import parse_json

    assert parse_json(answer, dict) == want


def test_near_json_labels_and_profiles_parse_and_garbage_does_not():
    from pipeline.emotions import parse_labels
    from pipeline.profile import parse_profile

    assert parse_labels('```json\n{"labels": ["anger", "Happiness", "高兴",]}\n```', 3) == ["Anger", "Happiness",
                                                                                         "Happiness"]
    assert parse_labels('{"1": "Fear", "2": "Sadness"}', 2) == ["Fear", "Sadness"]
    assert parse_labels('{"2": "Sadness", "1": "Fear", "4": "Anger"}', 4) == ["Fear", "Sadness", None, "Anger"]
    assert parse_labels('{"1": "Fear", "7": "Anger"}', 3) is None  # numbers the batch does not have
    assert parse_labels('["Fear", "Sadness"]', 2) == ["Fear", "Sadness"]
    assert parse_labels('{"labels": ["Fear"]}', 2) is None and parse_labels("not json at all", 1) is None
    d = parse_profile('Rosalind: {identity: "Daughter of the banished Duke", speaking_style: "Witty",\n'
                      '  relationships: {Celia: "cousin"}, never_says: ["vulgar oaths"],}')
    assert d == {"identity": "Daughter of the banished Duke", "speaking_style": "Witty",
                 "relationships": {"Celia": "cousin"}, "never_says": ["vulgar oaths"]}
    assert parse_profile('{"identity": "", "speaking_style": "x"}') is None
    # what the 1.5B model answered: the prose fields as objects named after the prompt's hints
    d = parse_profile(json.dumps({"identity": {"role": "a duke's daughter", "drives_her": "love"},
                                  "speaking_style": {"tone": "witty", "figures": ["i pray you", "fare you well"]},
                                  "relationships": {"Celia": {"how Rosalind relates to them": "her cousin"}},
                                  "never_says": ["hither"]}))
    assert d["identity"] == "role: a duke's daughter; drives her: love"
    assert d["speaking_style"] == "tone: witty; figures: i pray you, fare you well"
    assert d["relationships"] == {"Celia": "her cousin"}


# --- secrets ------------------------------------------------------------------------------------------------------

def test_secrets_of_every_scheme_are_scrubbed(monkeypatch):
    import base64

    from extractors.llm import redact_secrets

    monkeypatch.setenv("OPENAI_BASE_URL", "http://admin:Pa%24%24w0rd@llm.example:8080/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    basic = base64.b64encode(b"admin:Pa$$w0rd").decode()
    other_basic = base64.b64encode(b"bob:letmein").decode()
    text = "\n".join([
        f"401 Unauthorized; header Authorization: Basic {basic}",
        f"WWW-Authenticate: Basic {other_basic}",
        f"{{'Authorization': 'Bearer {SECRET}', 'x-api-key': 'k-1234abcd'}}",
        "Authorization: Digest username=\"admin\", response=\"6629fae49393a05397450978507c4ef1\"",
        "POST http://admin:Pa%24%24w0rd@llm.example:8080/v1/chat and https://tok3n@other.example/x",
        "GET https://api.example/v1?key=AIzaSyA-123456&access_token=ya29.abc&api-key=z9z9z9z9&page=2",
        "password was Pa$$w0rd; X-Goog-Api-Key: AIzaSyB-7890",
    ])
    out = redact_secrets(text)
    for secret in (basic, other_basic, SECRET, "k-1234abcd", "6629fae4", "Pa%24%24w0rd", "Pa$$w0rd", "tok3n",
                   "AIzaSyA-123456", "ya29.abc", "z9z9z9z9", "AIzaSyB-7890"):
        assert secret not in out, (secret, out)
    assert "401 Unauthorized" in out and "llm.example:8080/v1/chat" in out and "page=2" in out
    for harmless in ("Basic facts of the story", "max_tokens: 512, tokens_in: 5", "the bearer of bad news",
                     "unknown key llm.timeout", "row 3 of /data/lines/a.jsonl: index 4"):
        assert redact_secrets(harmless) == harmless


def test_fake_server_401_echoing_basic_credentials_of_the_url_is_scrubbed(tmp_path, monkeypatch):
    """The path of `ask`: the chat model's own error text, first line, scrubbed (pipeline/runtime.py)."""
    from extractors.llm import chat_model_from_env, redact_secrets

    s = FakeLLMServer(fail_always=401)
    host = s.base_url.removeprefix("http://")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://admin:S3cretPW@{host}")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    try:
        with pytest.raises(Exception) as e:
            chat_model_from_env("m", timeout=10).invoke("hi")
        raw = f"{type(e.value).__name__}: {e.value}"
        assert s.auth and (SECRET in raw or "Basic" in raw)  # the server did echo a credential
        out = redact_secrets(raw)
        import base64

        for secret in (SECRET, "S3cretPW", base64.b64encode(b"admin:S3cretPW").decode()):
            assert secret not in out, out
    finally:
        s.close()
