"""`rolecorpus annotate emotions ID` end to end against a FAKE OpenAI-compatible server on localhost
(tests/support/fake_llm_server.py; answers: tests/support/profile_emotions_helpers.py), for the English (Rosalind) and Chinese (刘备)
sample characters: one record per line the character speaks, each label on its own line, batches of
`emotions.batch`, a rerun asks nothing, a bad answer is asked again once, the manifest reports the distribution, and
kill -9 mid-run then rerun pays no answer twice and writes what an uninterrupted run writes."""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import time
from collections import Counter

import pytest

from cli_asserts import one_line_error
from fake_llm_server import FakeLLMServer
from profile_emotions_helpers import (LABELS, batch_lines, cli, cli_cmd, copy_project, fake_answer, fake_label,
                                      garbage_first, sample_project, server)  # noqa: F401  (server: the fixture)

from extractors.records import read_lines
from pipeline.emotions import KEYS, parse_labels

CASES = [("rosalind", "asyoulik"), ("liubei", "sanguo")]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(sample_project(tmp_path_factory), tmp_path_factory.mktemp("emotions") / "p")


def records(project, cid):
    return [json.loads(x) for x in (project / f"data/emotions/{cid}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("cid,work", CASES)
def test_fake_every_line_gets_its_own_label_and_a_rerun_asks_nothing(project, server, cid, work):
    p = cli(project, "annotate", "emotions", cid, env_extra=server.env())
    assert p.returncode == 0, p.stderr
    spoken = [ln for ln in read_lines(project / f"data/lines/{work}.jsonl")
              if ln.speaker == cid and ln.kind == "dialogue" and ln.text.strip()]
    recs = records(project, cid)
    assert [(r["work"], r["unit"], r["index"], r["text"]) for r in recs] == [(ln.work, ln.unit, ln.index, ln.text)
                                                                             for ln in spoken]
    assert all(set(KEYS) <= set(r) and r["emotion"] in LABELS for r in recs)
    assert [r["emotion"] for r in recs] == [fake_label(r["text"][:500]) for r in recs]  # no label slipped a line
    assert len(server.received) == math.ceil(len(spoken) / 20)  # emotions.batch lines per request
    metrics = json.loads((project / f"metrics/llm_emotions_{cid}.json").read_text())
    assert metrics["calls"] == len(server.received) and metrics["fallback_labels"] == 0
    assert metrics["distribution"] == {k: Counter(r["emotion"] for r in recs)[k] for k in LABELS}
    before = (project / f"data/emotions/{cid}.jsonl").read_bytes()
    again = cli(project, "annotate", "emotions", cid, env_extra=server.env())
    assert again.returncode == 0, again.stderr
    assert len(server.received) == math.ceil(len(spoken) / 20)  # zero new calls
    assert (project / f"data/emotions/{cid}.jsonl").read_bytes() == before
    assert json.loads((project / f"metrics/llm_emotions_{cid}.json").read_text())["calls"] == 0


def test_fake_chinese_lines_are_asked_with_chinese_quotes_and_english_labels(project, server):
    assert cli(project, "annotate", "emotions", "liubei", "--help").returncode == 0
    p = cli(project, "annotate", "emotions", "liubei", env_extra=dict(server.env(), ROLECORPUS_LLM_MODEL="other"))
    assert p.returncode == 0, p.stderr
    user = server.requests[0]["messages"][-1]["content"]
    assert "1. 刘备: 「" in user and "Chinese (简体中文)" in server.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("cid", ["rosalind", "liubei"])
def test_fake_package_manifest_reports_the_distribution(project, server, cid):
    assert cli(project, "annotate", "emotions", cid, env_extra=server.env()).returncode == 0
    assert cli(project, "package", cid).returncode == 0
    manifest = json.loads((project / f"data/characters/{cid}/manifest.json").read_text(encoding="utf-8"))
    counts = Counter(r["emotion"] for r in records(project, cid))
    assert list(manifest["emotions"]) == list(LABELS)
    assert manifest["emotions"] == {k: counts[k] for k in LABELS} and sum(counts.values()) == len(records(project, cid))


def test_fake_bad_answers_are_asked_again_once_then_other(project, tmp_path):
    proj = copy_project(project, tmp_path / "bad")
    bad = FakeLLMServer(answer=garbage_first(fake_answer))  # the first answer to each request is not JSON; the second is good
    try:
        assert cli(proj, "annotate", "emotions", "liubei", env_extra=bad.env()).returncode == 0
        assert len(bad.received) == 6 and len(set(bad.received)) == 3  # each of the 3 batches asked twice
        assert [r["emotion"] for r in records(proj, "liubei")] == [fake_label(r["text"]) for r in records(proj, "liubei")]
    finally:
        bad.close()
    def worse_answer(messages):  # as many labels as the batch has lines, the second one not a label
        n = len(batch_lines(messages))
        return json.dumps(["Happiness", "Grumpy"] + ["Neutral"] * (n - 2))

    worse = FakeLLMServer(answer=worse_answer)
    try:
        assert cli(proj, "annotate", "emotions", "liubei", env_extra=worse.env()).returncode == 0
        recs = records(proj, "liubei")
        assert [r["emotion"] for r in recs[:3]] == ["Happiness", "Other", "Neutral"]
        assert recs[1]["fallback"] is True and "fallback" not in recs[0]
        metrics = json.loads((proj / "metrics/llm_emotions_liubei.json").read_text())
        assert metrics["fallback_labels"] == 3 and metrics["retried_batches"] == 3  # one "Grumpy" in each batch
        assert len(worse.received) == 6 and [r["emotion"] for r in recs].count("Other") == 3
    finally:
        worse.close()


def test_parse_labels_takes_lists_of_names_case_and_chinese_aside():
    assert parse_labels('```json\n["anger", "高兴", "Surprise."]\n```', 3) == ["Anger", "Happiness", "Surprise"]
    assert parse_labels('["Anger", "Calm"]', 2) == ["Anger", None]
    assert parse_labels('["Anger"]', 2) is None and parse_labels("no list here", 1) is None


def test_fake_no_endpoint_and_no_stories_are_one_line_errors(project):
    one_line_error(cli(project, "annotate", "emotions", "rosalind"), "no LLM configured")
    one_line_error(cli(project, "annotate", "emotions", "orlando"), "stories")
    one_line_error(cli(project, "annotate", "emotions", "../x"), "character id")


@pytest.mark.slow
def test_fake_kill9_mid_run_then_rerun_pays_no_answer_twice_and_equals_an_uninterrupted_run(project, server, tmp_path):
    assert cli(project, "annotate", "emotions", "rosalind", env_extra=server.env()).returncode == 0  # uninterrupted
    fresh = copy_project(project, tmp_path / "k")
    (fresh / "data/emotions/rosalind.jsonl").unlink()
    slow = FakeLLMServer(answer=fake_answer, hold_after=3)
    try:
        cmd, env = cli_cmd(fresh, "annotate", "emotions", "rosalind", env_extra=slow.env())
        proc = subprocess.Popen(cmd, cwd=fresh, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            with slow.lock:
                if len(slow.answered) >= 3 and slow.held:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.0)  # the answers sent have arrived; the held requests stay in flight
        with slow.lock:
            answered, in_flight = list(slow.answered), list(slow.held)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert not (fresh / "data/emotions/rosalind.jsonl").exists()
        first = len(slow.received)
        slow.release.set()
        r = cli(fresh, "annotate", "emotions", "rosalind", env_extra=slow.env())
        assert r.returncode == 0, r.stderr
        again = slow.received[first:]
        print(f"kill -9: {len(answered)} answers received, {len(in_flight)} in flight; rerun asked {len(again)} "
              f"of 11 batches")
        assert len(answered) == 3 and in_flight
        assert not set(again) & set(answered)  # no answer received was paid for twice
        assert len(again) == 11 - 3 and len(set(again)) == len(again)
        assert (fresh / "data/emotions/rosalind.jsonl").read_bytes() == (project / "data/emotions/rosalind.jsonl").read_bytes()
        assert not list(fresh.rglob("*.tmp"))
    finally:
        slow.close()


def test_fake_server_that_never_answers_ends_the_stage_with_one_line_in_bounded_time(project, tmp_path):
    """An endpoint that accepts connections and never answers: one request, abandoned at llm.first_token, never
    sent again; the stage exits 2 with one line naming the setting (issue: still running after 420 s before)."""
    proj = copy_project(project, tmp_path / "dead")
    (proj / "data/emotions/rosalind.jsonl").unlink(missing_ok=True)  # an earlier test of the module may have built it
    cfg = proj / "configs/pipeline.yaml"
    text, n = re.subn(r"(?m)^(\s+first_token:) 300\b", r"\1 2", cfg.read_text(encoding="utf-8"), count=1)
    assert n == 1
    cfg.write_text(text, encoding="utf-8")
    dead = FakeLLMServer(hold_after=0)
    try:
        t0 = time.monotonic()
        p = cli(proj, "annotate", "emotions", "rosalind", env_extra=dead.env())
        assert time.monotonic() - t0 < 60
        line = one_line_error(p, "no token within 2 s", "llm.first_token", "not sent again")
        assert len(dead.received) == 1 and "fake-llm-secret" not in line
        assert not (proj / "data/emotions/rosalind.jsonl").exists()
    finally:
        dead.close()
