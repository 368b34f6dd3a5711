"""kill -9 during `extract novel --llm openai`, then rerun (issue 9): no answer already received is paid for
again, only the requests in flight at the kill are repeated, and the temporary files the killed run left
(beside -o, in the cache, in metrics/) are cleaned by the rerun.

The endpoint is the fake OpenAI-compatible server on localhost (tests/support/fake_llm_server.py, plumbing only), made
slow: it answers the first requests at once, then holds every later one open, so the test knows exactly which
answers were received and which requests were in flight when it sends SIGKILL. The novel is the committed Alice sample.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer

REPO = Path(__file__).resolve().parents[2]
ANSWER = '<json>{"script": [{"role": "narrator", "action": "the scene is set", "dialogue": "-"}]}</json>'


def _cmd(project: Path, novel: Path, out: Path) -> tuple[list[str], dict]:
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"),
               OPENAI_API_KEY="sk-test-kill9-key-0000", ROLECORPUS_LLM_MODEL="m")
    return ([sys.executable, "-m", "pipeline.cli", "extract", "novel", str(novel), "--work", "alice", "-o", str(out),
             "--llm", "openai", "--language", "en"], env)


@pytest.mark.slow
def test_kill9_fake_slow_server_repeats_only_requests_in_flight(tmp_path):
    project = tmp_path / "proj"
    (project / "configs").mkdir(parents=True)
    novel = project / "alice.txt"
    novel.write_text((REPO / "data/samples/alice29.txt").read_text(encoding="utf-8")[:60000], encoding="utf-8")
    out = project / "data" / "lines" / "alice.jsonl"
    server = FakeLLMServer(answer=ANSWER, hold_after=3, usage=(10, 5))
    try:
        cmd, env = _cmd(project, novel, out)
        env["OPENAI_BASE_URL"] = server.base_url
        proc = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            with server.lock:
                if len(server.answered) >= 3 and len(server.held) >= 1:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.5)  # the answers sent have arrived; more requests may have joined the held ones
        with server.lock:
            answered, in_flight = list(server.answered), list(server.held)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        pid = proc.pid
        # what a kill mid-write leaves: temp files named by the dead writer's pid
        orphans = [out.parent / f".alice.jsonl.{pid}.a1b2c3.tmp", project / ".cache" / "llm" / "ab" / f".x.json.{pid}.zz9.tmp",
                   project / "metrics" / f".staging.{pid}.0123456789ab.tmp" / "llm_alice.json"]
        for o in orphans:
            o.parent.mkdir(parents=True, exist_ok=True)
            o.write_text("half")
        assert not out.exists()
        first = len(server.received)
        server.release.set()
        time.sleep(0.5)
        r = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        again = server.received[first:]
        repeated_answered = [c for c in again if c in answered]
        repeated = [c for c in again if c in answered or c in in_flight]
        print(f"kill -9: {len(answered)} answers received, {len(in_flight)} requests in flight; "
              f"rerun repeated {len(repeated)} ({len(repeated_answered)} already answered)")
        assert len(answered) >= 3 and len(in_flight) >= 1
        assert repeated_answered == []
        assert len(repeated) <= len(in_flight)
        assert len(again) == len(set(again))
        assert out.exists() and json.loads((project / "metrics" / "novel_alice.json").read_text())["llm"]["cache_hits"] >= 3
        assert not [p for p in project.rglob("*.tmp")], "orphan temporary files were not cleaned"
    finally:
        server.close()
