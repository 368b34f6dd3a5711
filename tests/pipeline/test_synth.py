"""`rolecorpus synth questions|dialogues` end to end against a fake OpenAI-compatible server on localhost, for
Rosalind (English play) and Liu Bei (Chinese novel): outputs, dedup, held-out separation, `datasets` loading, a
rerun that makes zero calls, and kill -9 mid-run then rerun (nothing answered is paid twice; same outputs)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_asserts import one_line_error
from synth_eval_helpers import COMMON_EN, COMMON_ZH, cli, fake_server, request_key, shared_project

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return shared_project(tmp_path_factory, REPO, "synth")


@pytest.fixture(scope="module")
def server():
    s = fake_server()
    yield s
    s.close()


def env_for(server):
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-fake-synth-000000", "ROLECORPUS_LLM_MODEL": "m"}


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def synth(project, server, cid):
    """eval chat (retrieval) for the held-out file, then synth questions and dialogues; the requests they made."""
    assert cli(project, "eval", "chat", cid, "--bot", "retrieval").returncode == 0
    start = len(server.requests)
    q = cli(project, "synth", "questions", cid, "--per-story", "3", env_extra=env_for(server))
    assert q.returncode == 0, q.stderr
    mid = len(server.requests)
    d = cli(project, "synth", "dialogues", cid, env_extra=env_for(server))
    assert d.returncode == 0, d.stderr
    return server.requests[start:mid], server.requests[mid:]


def check_messages(rec: dict) -> None:
    msgs = rec["messages"]
    assert msgs[0]["role"] == "system" and len(msgs) >= 3
    roles = [m["role"] for m in msgs[1:]]
    assert roles == ["user", "assistant"] * (len(roles) // 2), roles  # alternates, ends with the character
    assert all(m["content"].strip() for m in msgs)


@pytest.mark.slow
@pytest.mark.parametrize("cid,common", [("rosalind", COMMON_EN), ("liubei", COMMON_ZH)])
def test_synth_fake_server_end_to_end(project, server, cid, common):
    asked_q, asked_d = synth(project, server, cid)
    train = project / "data" / "train" / cid
    held = rows(project / "data" / "eval" / cid / "heldout.jsonl")
    questions = rows(train / "questions.jsonl")
    n_stories = len(list((project / "data/characters" / cid / "stories").glob("*.txt")))
    assert 0 < len(asked_q) < n_stories  # one request per seed story; held-out stories seed nothing
    assert not {h["story"] for h in held} & {q["story"] for q in questions}
    assert [q["text"] for q in questions].count(common) == 1  # the same question from every story: kept once
    assert len({q["story"] for q in questions}) > len(asked_q) / 2  # most stories add questions of their own
    assert not {q["text"] for q in questions} & {h["prompt"] for h in held}
    assert len(asked_d) == len(questions)
    sent = asked_d[0]["messages"]  # the runtime's full prompt: system prompt, retrieved stories, query
    assert sent[0]["content"] == (project / "data/characters" / cid / "system_prompt.txt").read_text(encoding="utf-8")
    assert sent[1]["content"].startswith("Classic scenes for the role") and sent[-1]["role"] == "user"

    chat, haruhi = rows(train / "chat.jsonl"), rows(train / "chatharuhi.jsonl")
    assert len(chat) == len(haruhi) and [c["id"] for c in chat] == [h["id"] for h in haruhi]
    # the fake echoes each question: an echo that names the character or quotes a scene is left out, as a model's
    # third-person or script answer would be (synth_records.unusable)
    from types import SimpleNamespace

    from pipeline.synth_records import unusable
    from synth_eval_helpers import answer_for

    me = SimpleNamespace(name=json.loads((project / "data/characters" / cid / "manifest.json").read_text(
        encoding="utf-8"))["character"]["name"])
    usable = [unusable(me, answer_for(r["messages"]).strip("「」")) is None for r in asked_d]
    assert sum(not c["original"] for c in chat) == sum(usable) > len(questions) / 2
    assert sum(c["original"] for c in chat) > 10
    for c, h in zip(chat, haruhi):
        check_messages(c)
        assert c["messages"][-1]["content"] == h["answer"] and c["messages"][-2]["content"] == h["query"]
        assert c["messages"][1:-2] == h["history"]
        assert set(h) == {"id", "original", "system_prompt", "stories", "history", "query", "answer"}
    for h in held:  # no training record repeats a test exchange: neither in its turns nor in its retrieved stories
        for c, r in zip(chat, haruhi):
            assert not any(h["reply"] in m["content"] for m in c["messages"][1:] if m["role"] == "assistant")
            assert not any(h["reply"] in s for s in r["stories"])

    import datasets

    for name in ("chat.jsonl", "chatharuhi.jsonl", "questions.jsonl"):
        ds = datasets.load_dataset("json", data_files=str(train / name), split="train")
        assert len(ds) == len(rows(train / name))
    assert datasets.load_dataset("json", data_files=str(train / "chat.jsonl"), split="train")[0]["messages"][-1]["role"] == "assistant"

    before = {p.name: p.read_bytes() for p in train.iterdir()}
    n = len(server.requests)
    asked_again = synth(project, server, cid)
    assert asked_again == ([], []) and len(server.requests) == n  # a rerun makes zero calls
    assert {p.name: p.read_bytes() for p in train.iterdir()} == before
    metrics = json.loads((project / "metrics" / f"llm_synth_dialogues_{cid}.json").read_text())
    assert metrics["calls"] == 0 and metrics["cache_hits"] == len(questions)


@pytest.mark.slow
def test_kill9_fake_slow_server_pays_nothing_twice_and_outputs_equal(project, server, tmp_path):
    cid = "rosalind"
    if not (project / "data/train" / cid / "chat.jsonl").exists():
        synth(project, server, cid)
    reference = {p.name: p.read_bytes() for p in (project / "data/train" / cid).iterdir()}
    other = tmp_path / "copy"  # the same project with an empty LLM cache, against the same endpoint
    shutil.copytree(project, other, ignore=shutil.ignore_patterns("llm", "chat.jsonl", "chatharuhi.jsonl"))
    env = env_for(server)
    base = dict(os.environ, ROLECORPUS_ROOT=str(other), ROLECORPUS_CACHE=str(other / ".cache"), **env)
    with server.lock:  # every earlier run has ended: its answers are all in
        a0 = len(server.answered)
        server.hold_after = len(server.requests) + 3
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "synth", "dialogues", cid], cwd=other, env=base,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 600
        while time.time() < deadline and proc.poll() is None:
            with server.lock:
                if len(server.answered) - a0 >= 3 and server.held:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.0)
        with server.lock:
            answered = set(server.answered[a0:])
            in_flight = set(server.held)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        server.release.set()
    assert not (other / "data/train" / cid / "chat.jsonl").exists()  # nothing half-written
    first = len(server.requests)
    r = cli(other, "synth", "dialogues", cid, env_extra=env)
    assert r.returncode == 0, r.stderr
    again = [request_key(b) for b in server.requests[first:]]
    print(f"kill -9: {len(answered)} answers received, {len(in_flight)} in flight; rerun asked {len(again)}")
    assert len(answered) >= 3 and in_flight
    assert not set(again) & answered  # no answer received before the kill is paid for again
    assert len(again) == len(set(again))
    assert {p.name: p.read_bytes() for p in (other / "data/train" / cid).iterdir()} == reference
    assert not list(other.rglob("*.tmp"))


def test_bad_input_is_one_line(project, server):
    env = env_for(server)
    one_line_error(cli(project, "synth", "questions", "rosalind"), "no LLM configured")
    one_line_error(cli(project, "synth", "questions", "caocao", env_extra=env), "no package for 'caocao'")
    fresh = project / "data/train/liubei/questions.jsonl"
    if fresh.exists():
        fresh.unlink()
    one_line_error(cli(project, "synth", "dialogues", "liubei", env_extra=env), "run `rolecorpus synth questions` first")


def test_an_invented_asker_becomes_the_scenes_last_speaker():
    """A small model names askers who are not in the play (`Bessie`): the question is kept, asked by the scene's
    last speaker; the scene's own people keep their names, the character never asks, narration never asks."""
    from types import SimpleNamespace

    from pipeline.synth import parse_questions

    bot = SimpleNamespace(name="Rosalind")
    answer = ("1. Bessie:「Is she being unfair?」\nCelia:「Shall we go, coz?」\nRosalind:「Not I.」\n"
              "旁白:「A noise within.」\nWhat say you to that?")
    qs = parse_questions(bot, "s1", "Touchstone", answer, 5, {"Celia", "Touchstone"})
    assert [(q.role, q.text) for q in qs] == [("Touchstone", "Is she being unfair?"), ("Celia", "Shall we go, coz?"),
                                              ("Touchstone", "What say you to that?")]


@pytest.mark.parametrize("answer, why", [
    ("I'm sorry, but I can't assist with that request.", "refusal"),
    ('Jack: "Oh, these three sons!"  Rosalind: "The eldest of the three wrestled with Charles."', "script"),
    ("Celia:「The man is named Orlando.」", "script"),
    ("Oh no, Bessie! Rosalind is the one who taught Orlando how to woo.", "third person"),
    ("", "empty"),
    ("I am Rosalind, and I will not be ruled by thee.", None),
    ("Indeed, the challenge is to wrestle with Charles, the duke's wrestler.", None),
])
def test_answers_that_are_no_line_of_the_character_are_left_out(answer, why):
    from types import SimpleNamespace

    from pipeline.synth_records import unusable

    assert unusable(SimpleNamespace(name="Rosalind"), answer) == why
