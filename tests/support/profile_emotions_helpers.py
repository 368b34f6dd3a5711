"""The answers of the fake LLM endpoint (tests/support/fake_llm_server.py) for the profile and emotion tests (plumbing
only: the answers are made up, deterministically, from the request), and the small project those tests run on.

`fake_answer` answers the profile prompt with the JSON object it asks for (naming the people the prompt lists) and
the emotion prompt with one label per numbered line, chosen by a hash of the line's words (`fake_label`), so a test
can check that every label landed on its own line. `garbage_first(answer)` makes the first answer to each distinct
request garbage (the second is good).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fake_embeddings import EmbeddingServer
from fake_llm_server import SECRET, FakeLLMServer

REPO = Path(__file__).resolve().parents[2]
LABELS = ("Anger", "Disgust", "Fear", "Happiness", "Sadness", "Surprise", "Neutral", "Frustration", "Excitement",
          "Other")
_NUMBERED = re.compile(r"^\d+\. [^:\n]+: [\"「](.*)[\"」]$", re.M)


def fake_label(text: str) -> str:
    return LABELS[int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % len(LABELS)]


def batch_lines(messages: list[dict]) -> list[str]:
    """The numbered lines an emotion-labelling request asks about."""
    return _NUMBERED.findall(messages[-1]["content"])


def fake_answer(messages: list[dict]) -> str:
    user = messages[-1]["content"]
    numbered = batch_lines(messages)
    if numbered:
        return json.dumps([fake_label(t) for t in numbered])
    m = re.search(r"Draft a profile of (.+?) from ", user)
    if m:
        name = m.group(1)
        people = re.findall(r"^- (\S[^\n]*?) \(\d+\)$", user, re.M)
        return json.dumps({"identity": f"(fake) {name} is the person these lines show.",
                           "speaking_style": f"(fake) {name} speaks in the words of the sample lines.",
                           "relationships": {p: f"(fake) {name} talks with {p} often." for p in people},
                           "never_says": ["(fake) anything cruel"]}, ensure_ascii=False)
    return "I cannot tell what this request wants."


def garbage_first(answer):
    """`answer`, except that the first answer to each distinct request (its last message) is not JSON."""
    seen, lock = set(), threading.Lock()

    def wrapped(messages: list[dict]) -> str:
        with lock:
            first = messages[-1]["content"] not in seen
            seen.add(messages[-1]["content"])
        return "not json at all" if first else answer(messages)

    return wrapped


@pytest.fixture()
def server():
    """A fresh fake server per test (import this fixture into the test module)."""
    s = FakeLLMServer(answer=fake_answer)
    yield s
    s.close()


def cli(project: Path, *args, env_extra: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """`rolecorpus ARGS` in `project` (its own cache), with no endpoint unless `env_extra` gives one."""
    cmd, env = cli_cmd(project, *args, env_extra=env_extra)
    return subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=timeout)


def cli_cmd(project: Path, *args, env_extra: dict | None = None) -> tuple[list[str], dict]:
    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"),
               PYTHONPATH=str(REPO))
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ROLECORPUS_LLM_MODEL", "OPENAI_MODEL"):
        env.pop(k, None)
    env.update(env_extra or {})
    return [sys.executable, "-m", "pipeline.cli", *args], env


_BASE: dict[str, Path] = {}


def sample_project(tmp_path_factory) -> Path:
    """A project with the English (Rosalind, As You Like It) and Chinese (刘备, 三国演义 1-15) sample characters,
    built once per session by the real CLI (build-lines, segment, embed, package), no LLM anywhere; the stories are
    embedded by the fake embeddings server of tests/support/fake_embeddings.py (fast; the vectors do not matter here)."""
    if "root" in _BASE:
        return _BASE["root"]
    import yaml

    root = tmp_path_factory.mktemp("llmproj")
    shutil.copytree(REPO / "configs", root / "configs")
    (root / "data/samples").mkdir(parents=True)
    for f in ("asyoulik.txt", "sanguo_1-15.txt"):
        shutil.copy2(REPO / "data/samples" / f, root / "data/samples" / f)
    cfg = yaml.safe_load((root / "configs/pipeline.yaml").read_text(encoding="utf-8"))
    cfg["works"] = {k: cfg["works"][k] for k in ("asyoulik", "sanguo")}
    cfg["characters"] = {"rosalind": {"work": "asyoulik"}, "liubei": {"work": "sanguo"}, "orlando": {"work": "asyoulik"}}
    cfg["voices"] = {}
    (root / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True, sort_keys=False), encoding="utf-8")
    steps = [("build-lines", "asyoulik"), ("build-lines", "sanguo")]
    for cid in ("rosalind", "liubei"):  # orlando: configured, no stories (the no-stories error)
        steps += [("segment", "--character", cid), ("embed", cid, "--backend", "openai", "--model", "fake-embed"),
                  ("package", cid)]
    with EmbeddingServer(dim=32) as emb:
        for step in steps:
            p = cli(root, *step, env_extra={"OPENAI_BASE_URL": emb.base_url, "OPENAI_API_KEY": SECRET})
            assert p.returncode == 0, (step, p.stderr)
    _BASE["root"] = root
    return root


def copy_project(base: Path, dst: Path) -> Path:
    """A fresh copy of the built sample project (its own cache and outputs)."""
    shutil.copytree(base, dst, ignore=shutil.ignore_patterns(".cache"))
    return dst
