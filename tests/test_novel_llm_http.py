"""Kor LLM attribution end to end through a real OpenAI-compatible HTTP server on 127.0.0.1.

The server (tests/novel_llm_helpers.FakeOpenAIServer, stdlib http.server, threaded) speaks the
chat-completions protocol and answers each chunk in Kor's format with the PDNC gold speakers of
the quotations it finds in the request; the client is the project's real `chat_model_from_env`
(langchain-openai ChatOpenAI over httpx).
"""

from __future__ import annotations

import json

import pytest

from extractors.characters import slug
from extractors.llm import chat_model_from_env
from extractors.novel.kor_llm import llm_attribute

from novel_llm_helpers import FakeOpenAIServer, build_lines, load_characters, load_gold

END = 9000  # chapter I and the start of chapter II
SECRET = "sk-test-not-a-real-key-7d3f"


@pytest.fixture()
def book(pdnc):
    d = pdnc / "PrideAndPrejudice"
    text = (d / "novel_text.txt").read_text(encoding="utf-8")[:END]
    gold = load_gold(d, END)
    return text, gold, load_characters(d)


def test_kor_through_openai_compatible_http_server(book, tmp_path, monkeypatch):
    text, gold, chars = book
    lines = build_lines(text, gold)
    golds = {q["id"]: q for q in gold}
    cache, metrics = tmp_path / "cache", tmp_path / "metrics" / "novel_llm.json"
    with FakeOpenAIServer(gold) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        llm = chat_model_from_env(model="fake-model", timeout=10)
        out = llm_attribute(lines, text, chars, llm, cache, chunk_tokens=500, concurrency=3, metrics_path=metrics)

        m = json.loads(metrics.read_text())
        assert m["chunks_sent"] >= 4
        assert m["calls"] == len(server.requests) == m["chunks_sent"]
        assert {r["model"] for r in server.requests} == {"fake-model"}
        assert all(h == f"Bearer {SECRET}" for h in server.auth_headers)
        # token counts come from the server's usage report, not an estimate
        assert m["tokens_in"] == server.prompt_tokens and m["tokens_out"] == server.completion_tokens
        assert m["tokens_estimated"] == 0
        unresolved = [ln for ln in lines if ln.kind == "dialogue" and ln.speaker is None]
        assert m["quotes_unresolved"] == len(unresolved) >= 30
        assert m["quotes_filled"] == len(unresolved) and m["names_unmatched"] == 0
        for ln in out:
            if ln.kind == "dialogue":
                assert ln.speaker == slug(golds[ln.extra["gold"]]["speaker"]), ln.extra["gold"]
        # each request carried Kor's prompt: instruction with candidates, few-shot pair, marked chunk
        msgs = server.requests[0]["messages"]
        assert msgs[0]["role"] == "system" and "Mrs. Bennet" in msgs[0]["content"] and "<json>" in msgs[0]["content"]
        assert msgs[-1]["role"] == "user" and "[?] " in msgs[-1]["content"]

        # rerun with a fresh client: 100% cache hits, the server sees nothing new
        before = len(server.requests)
        llm2 = chat_model_from_env(model="fake-model", timeout=10)
        out2 = llm_attribute(lines, text, chars, llm2, cache, chunk_tokens=500, concurrency=3, metrics_path=metrics)
        m2 = json.loads(metrics.read_text())
        assert len(server.requests) == before
        assert m2["calls"] == 0 and m2["cache_hits"] == m2["chunks_sent"] == m["chunks_sent"]
        assert m2["cache_hit_rate"] == 1.0
        assert out2 == out

    # the cache holds answers, never the key or the endpoint
    for f in cache.rglob("*"):
        if f.is_file():
            body = f.read_text(encoding="utf-8")
            assert SECRET not in body and "127.0.0.1" not in body


def test_http_rate_limits_back_off_and_retry(book, tmp_path, monkeypatch):
    text, gold, chars = book
    text = text[:3750]
    gold = [q for q in gold if q["end"] <= 3750]
    lines = build_lines(text, gold)
    with FakeOpenAIServer(gold) as server:
        server.fail_next = 2  # two HTTP 429 answers first
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        llm = chat_model_from_env(model="fake-model", timeout=10)
        metrics = tmp_path / "m.json"
        out = llm_attribute(lines, text, chars, llm, tmp_path / "c", metrics_path=metrics, backoff=0.01)
        m = json.loads(metrics.read_text())
        assert server.refused == 2 and m["retries_transient"] == 2 and m["calls"] == 3
        assert m["quotes_filled"] == m["quotes_unresolved"] > 0
        assert all(ln.speaker for ln in out if ln.kind == "dialogue")
