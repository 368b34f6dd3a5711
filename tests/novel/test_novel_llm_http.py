"""Kor LLM attribution end to end through a real OpenAI-compatible HTTP server on 127.0.0.1.

The fake server (tests/fake_llm_server.py via novel_llm_helpers.gold_llm_server) speaks the
chat-completions protocol and answers each chunk in Kor's format with the PDNC gold speakers of
the quotations it finds in the request; the client is the project's real `chat_model_from_env`
(langchain-openai ChatOpenAI over httpx).
"""

from __future__ import annotations

import json

import pytest

from extractors.characters import slug
from extractors.llm import chat_model_from_env
from extractors.novel.llm.kor import llm_attribute

from cli_asserts import interruptible
from novel_llm_helpers import build_lines, gold_llm_server, load_characters, load_gold

END = 9000  # chapter I and the start of chapter II
SECRET = "sk-test-not-a-real-key-7d3f"


@pytest.fixture()
def book(pdnc):
    d = pdnc / "PrideAndPrejudice"
    text = (d / "novel_text.txt").read_text(encoding="utf-8")[:END]
    gold = load_gold(d, END)
    return text, gold, load_characters(d)


def test_kor_through_fake_openai_compatible_http_server(book, tmp_path, monkeypatch):
    text, gold, chars = book
    lines = build_lines(text, gold)
    golds = {q["id"]: q for q in gold}
    cache, metrics = tmp_path / "cache", tmp_path / "metrics" / "novel_llm.json"
    with gold_llm_server(gold) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        llm = chat_model_from_env(model="fake-model", timeout=10)
        out = llm_attribute(lines, text, chars, llm, cache, chunk_tokens=500, concurrency=3, metrics_path=metrics)

        m = json.loads(metrics.read_text())
        assert m["chunks_sent"] >= 4
        assert m["calls"] == len(server.requests) == m["chunks_sent"]
        assert {r["model"] for r in server.requests} == {"fake-model"}
        assert all(h == f"Bearer {SECRET}" for h in server.auth)
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


def test_fake_http_rate_limits_back_off_and_retry(book, tmp_path, monkeypatch):
    text, gold, chars = book
    text = text[:3750]
    gold = [q for q in gold if q["end"] <= 3750]
    lines = build_lines(text, gold)
    with gold_llm_server(gold) as server:
        server.fail = [429, 429]  # two HTTP 429 answers first
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        llm = chat_model_from_env(model="fake-model", timeout=10)
        metrics = tmp_path / "m.json"
        out = llm_attribute(lines, text, chars, llm, tmp_path / "c", metrics_path=metrics, backoff=0.01)
        m = json.loads(metrics.read_text())
        assert server.fail == [] and server.calls == 3 and m["retries_transient"] == 2 and m["calls"] == 3
        assert m["quotes_filled"] == m["quotes_unresolved"] > 0
        assert all(ln.speaker for ln in out if ln.kind == "dialogue")


CHILD = r'''
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from novel_llm_helpers import build_lines, load_characters, load_gold
from extractors.llm import chat_model_from_env
from extractors.novel.llm.kor import llm_attribute
book = Path(sys.argv[2])
text = (book / "novel_text.txt").read_text(encoding="utf-8")[:9000]
gold = load_gold(book, 9000)
print("ready", flush=True)
llm_attribute(build_lines(text, gold), text, load_characters(book), chat_model_from_env(model="fake-model", timeout=10),
              Path(sys.argv[3]), chunk_tokens=300, concurrency=2)
'''


def test_interrupted_run_resumes_without_repeating_a_call_fake_server(book, tmp_path, pdnc, monkeypatch):
    """Ctrl-C in the middle of a run (a real SIGINT to a real process), then a rerun: every chunk was
    sent exactly once in total."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    text, gold, chars = book
    lines = build_lines(text, gold)
    cache = tmp_path / "cache"
    with gold_llm_server(gold) as server:
        server.delay = 0.6  # wide enough that the interrupt lands mid-run even on a loaded machine
        # the child imports what this test does (helpers on pytest's pythonpath included)
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": SECRET,
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        script = tmp_path / "child.py"
        script.write_text(CHILD, encoding="utf-8")
        tests_dir = Path(__file__).resolve().parents[1] / "support"  # novel_llm_helpers
        proc = subprocess.Popen([sys.executable, str(script), str(tests_dir), str(pdnc / "PrideAndPrejudice"), str(cache)],
                                env=env, cwd=tests_dir.parents[1], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=interruptible)
        try:
            deadline = time.monotonic() + 60
            while len(server.answered) < 3 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            assert len(server.answered) >= 3, proc.stderr.read() if proc.poll() is not None else "no requests"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode != 0 and "KeyboardInterrupt" in err
        first = len(server.answered)
        cached = len(list(cache.rglob("*.json")))
        assert cached == first  # every answer received before the interrupt was kept (atomically)

        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        llm = chat_model_from_env(model="fake-model", timeout=10)
        metrics = tmp_path / "m.json"
        out = llm_attribute(lines, text, chars, llm, cache, chunk_tokens=300, concurrency=2, metrics_path=metrics)
        m = json.loads(metrics.read_text())
        assert m["cache_hits"] == first and m["calls"] == m["chunks_sent"] - first > 0
        sent = server.answered
        assert len(sent) == len(set(sent)) == m["chunks_sent"]  # no chunk was ever answered twice
        assert m["quotes_filled"] == m["quotes_unresolved"]
        assert all(ln.speaker for ln in out if ln.kind == "dialogue")


def test_cli_extract_novel_fake_llm_writes_dvc_metrics_and_reruns_from_cache(book, tmp_path, monkeypatch):
    """`rolecorpus extract novel --llm openai` end to end: the rules leave quotes unresolved, the LLM
    (a localhost OpenAI-compatible server) fills them, `metrics/novel_<work>.json` counts the calls,
    tokens and cache hits; a rerun makes no call at all."""
    from typer.testing import CliRunner

    import pipeline.cli  # noqa: F401  (registers the commands)
    from extractors.characters import save_character
    from extractors.records import read_lines
    from pipeline.cli_app import app

    text, gold, chars = book
    for ch in chars:
        save_character(tmp_path / "configs", ch)
    novel = tmp_path / "pp.txt"
    novel.write_text(text, encoding="utf-8")
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "lines.jsonl"
    args = ["extract", "novel", str(novel), "--work", "PDNC", "-o", str(out), "--llm", "openai", "--language", "en",
            "--llm-keep", "all"]  # the fake answers with gold: every speaker it names is kept
    with gold_llm_server(gold) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("ROLECORPUS_LLM_MODEL", "fake-model")
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, (r.output, r.exception)
        m = json.loads((tmp_path / "metrics" / "novel_PDNC.json").read_text())
        assert m["llm"]["calls"] == len(server.requests) == m["llm"]["chunks_sent"] > 0
        assert m["llm"]["tokens_in"] == server.prompt_tokens and m["llm"]["tokens_out"] == server.completion_tokens
        # every quote the rules left, the LLM filled, but for one its answer does not match: that one stays
        # unattributed (the rules' held guess is not given back)
        llm = m["llm"]
        assert llm["quotes_filled"] > 0 and llm["quotes_filled"] >= llm["quotes_unresolved"] - 1
        assert m["attributed"] == m["quotes"] - llm["quotes_unresolved"] + llm["quotes_filled"]
        assert any(ln.evidence == "llm" for ln in read_lines(out))
        before = len(server.requests)
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, (r.output, r.exception)
        m2 = json.loads((tmp_path / "metrics" / "novel_PDNC.json").read_text())
        assert len(server.requests) == before
        assert m2["llm"]["calls"] == 0 and m2["llm"]["cache_hits"] == m["llm"]["chunks_sent"]
    assert SECRET not in (tmp_path / "metrics" / "novel_PDNC.json").read_text()
