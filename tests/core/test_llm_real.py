"""The LLM stages end to end against a REAL model server (marker `real_llm`; `make test-llm` after `make llm`):
profile, annotate emotions, synth questions and dialogues, and eval chat --bot rag on the English sample (Rosalind), through the
real CLI with the project's defaults. Each gives valid output and a rerun makes no call.

Run only when ROLECORPUS_REAL_LLM=1 (set by `make test-llm`) and OPENAI_BASE_URL answers; skipped elsewhere, so CI
never needs the model. tests/conftest.py removes OPENAI_* from every test's environment (no test reaches an endpoint
by accident): `make test-llm` hands them over as REAL_LLM_BASE_URL / REAL_LLM_API_KEY / REAL_LLM_MODEL. A 1.5B model on one CPU thread needs about an hour for the whole file.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request

import pytest

from profile_emotions_helpers import cli, copy_project, sample_project

from pipeline.emotions import LABELS

ENV = {k: os.environ[f"REAL_LLM_{v}"] for k, v in (("OPENAI_BASE_URL", "BASE_URL"), ("OPENAI_API_KEY", "API_KEY"),
                                                    ("ROLECORPUS_LLM_MODEL", "MODEL")) if os.environ.get(f"REAL_LLM_{v}")}


def _server_answers() -> bool:
    base = ENV.get("OPENAI_BASE_URL", "").rstrip("/")
    if not base or os.environ.get("ROLECORPUS_REAL_LLM") != "1":  # asked only under make test-llm
        return False
    try:
        with urllib.request.urlopen(base + "/models", timeout=30):  # a busy llama.cpp server answers late
            return True
    except OSError:
        return False


pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.skipif(os.environ.get("ROLECORPUS_REAL_LLM") != "1", reason="real-model tests: run `make test-llm`"),
    pytest.mark.skipif(not _server_answers(), reason="no model server answers at OPENAI_BASE_URL (run `make llm`)"),
]



@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(sample_project(tmp_path_factory), tmp_path_factory.mktemp("real_llm") / "p")


def metrics(project, name: str) -> dict:
    return json.loads((project / f"metrics/{name}.json").read_text(encoding="utf-8"))


def run(project, *args):
    p = cli(project, *args, env_extra=ENV, timeout=7200)
    assert p.returncode == 0, p.stderr[-2000:]
    return p


def test_real_profile_is_drafted_and_a_rerun_makes_no_call(project):
    run(project, "profile", "rosalind")
    text = (project / "configs/profiles/rosalind.md").read_text(encoding="utf-8")
    assert "## Identity" in text and "## Speaking style" in text
    identity = text.split("## Identity", 1)[1].split("##", 1)[0].strip()
    assert len(identity) > 40
    assert metrics(project, "llm_profile_rosalind")["calls"] >= 1
    run(project, "profile", "rosalind")
    assert metrics(project, "llm_profile_rosalind")["calls"] == 0


def test_real_emotions_are_valid_labels_and_a_rerun_makes_no_call(project):
    run(project, "annotate", "emotions", "rosalind")
    recs = [json.loads(x) for x in (project / "data/emotions/rosalind.jsonl").read_text(encoding="utf-8").splitlines()]
    assert recs and all(r["emotion"] in LABELS for r in recs)
    valid = sum(1 for r in recs if not r.get("fallback")) / len(recs)
    assert valid >= 0.8, valid
    run(project, "annotate", "emotions", "rosalind")
    assert metrics(project, "llm_emotions_rosalind")["calls"] == 0


def test_real_synth_questions_are_usable_and_a_rerun_makes_no_call(project):
    # a trial run over three stories (one request each, up to 5 questions each): every story would take an hour here
    run(project, "synth", "questions", "rosalind", "--stories", "3")
    rows = [json.loads(x) for x in (project / "data/train/rosalind/questions.jsonl").read_text(
        encoding="utf-8").splitlines() if x.strip()]
    assert len(rows) >= 6 and all(r["text"].strip() and r["role"] != "Rosalind" for r in rows)
    run(project, "synth", "questions", "rosalind", "--stories", "3")
    assert metrics(project, "llm_synth_questions_rosalind")["calls"] == 0


def test_real_synth_dialogues_load_with_datasets_and_a_rerun_makes_no_call(project):
    from datasets import load_dataset

    questions = (project / "data/train/rosalind/questions.jsonl").read_text(encoding="utf-8").splitlines()
    p = run(project, "synth", "dialogues", "rosalind")
    left_out = re.search(r"(\d+) answers left out", p.stdout)
    chat = load_dataset("json", data_files=str(project / "data/train/rosalind/chat.jsonl"), split="train")
    haruhi = load_dataset("json", data_files=str(project / "data/train/rosalind/chatharuhi.jsonl"), split="train")
    synthetic = [r for r in haruhi if not r["original"]]
    # every question answered; the answers that are no line of Rosalind's (refusals, scripts) are left out, counted
    assert chat.num_rows == haruhi.num_rows and synthetic
    assert len(synthetic) + (int(left_out.group(1)) if left_out else 0) == len(questions)
    assert all(r["answer"].strip() and r["query"].strip() for r in synthetic)
    assert all(m[-1]["role"] == "assistant" and m[-1]["content"].strip() for m in chat["messages"])
    run(project, "synth", "dialogues", "rosalind")
    assert metrics(project, "llm_synth_dialogues_rosalind")["calls"] == 0


def test_real_eval_chat_rag_scores_replies_and_a_rerun_makes_no_call(project):
    p = run(project, "eval", "chat", "rosalind", "--bot", "rag", "--n", "5")
    rows = [json.loads(x) for x in (project / "data/eval/rosalind/chat_rag.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert len(rows) == 5 and all(r["reply"].strip() for r in rows)
    assert "rag" in p.stdout
    run(project, "eval", "chat", "rosalind", "--bot", "rag", "--n", "5")
    assert metrics(project, "llm_eval_chat_rosalind")["calls"] == 0
