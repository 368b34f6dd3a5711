"""The answers of the fake LLM endpoint (tests/support/fake_llm_server.py) for the synth and eval-chat tests (plumbing
only), and the small project those tests share.

Answers depend only on the request, so two runs get the same answers:
- a question-generation prompt (configs/prompts/synth.*: "Write N new lines" / "请写出N句") gets N lines
  `Speaker:「…」` built from the scene's last spoken line, the first of them the same in every answer (a duplicate that
  dedup must drop);
- any other request (the chat runtime's prompt) gets `Name:「…」`-free words echoing the last user message.
A request is named by `request_key` (a hash of its messages) in the server's `received`/`answered`/`held`.
"""

from __future__ import annotations

import hashlib
import json
import re

from fake_llm_server import FakeLLMServer

COMMON_EN = "Do you believe in love at first sight?"
COMMON_ZH = "你相信天命吗？"
EN = ["What do you make of this: {s}?", "Why would anyone say '{s}'?", "Suppose {s} — what would you do then?",
      "Tell me honestly, does '{s}' trouble you?", "Who taught you to answer '{s}' like that?"]
ZH = ["你怎么看：{s}？", "为何有人说「{s}」？", "倘若{s}，你当如何？", "老实说，「{s}」让你烦恼吗？", "谁教你这样回应「{s}」？"]


def request_key(body: dict) -> str:
    return hashlib.sha256(json.dumps(body["messages"], ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def answer_for(messages: list[dict]) -> str:
    last = messages[-1]["content"]
    m = re.search(r"Write (\d+) new lines", last) or re.search(r"请写出(\d+)句", last)
    if m:
        zh = "请写出" in last
        scene = last.split("\n\n")[1].splitlines()
        spoken = [ln for ln in scene if "「" in ln] or scene  # the last line someone speaks, else the last line
        words = re.sub(r"^[^:：]*[:：]「?|」$", "", spoken[-1])[:40].strip() or "this"
        lines = [f"{'路人' if zh else 'Stranger'}:「{COMMON_ZH if zh else COMMON_EN}」"]
        lines += [f"{'路人' if zh else 'Stranger'}:「{t.format(s=words)}」" for t in (ZH if zh else EN)]
        return "\n".join(lines[: int(m.group(1))])
    words = re.sub(r"^[^:：「]*[:：]「|」$", "", last.strip())
    return f"「Indeed, {words[:80]}」" if re.search(r"[A-Za-z]", words) else f"「诚然，{words[:60]}」"


def fake_server() -> FakeLLMServer:
    """The fake endpoint (tests/support/fake_llm_server.py) answering as `answer_for` says, naming each request by
    `request_key`, reporting 11 prompt and 7 completion tokens a call."""
    return FakeLLMServer(answer=answer_for, key=request_key, usage=(11, 7))


# -- the small project the synth and eval-chat tests share ------------------------------------------------------
PROJECT_WORKS = {"asyoulik": {"kind": "script", "input": "data/samples/asyoulik.txt", "options": {"format": "play"}},
                 "sanguo": {"kind": "novel", "input": "data/samples/sanguo_1-15.txt", "options": {"language": "zh"}}}
PROJECT_CHARACTERS = {"rosalind": {"work": "asyoulik"}, "liubei": {"work": "sanguo"}}


def cli(project, *args, env_extra=None, timeout=900):
    """`rolecorpus ARGS` in `project` (no LLM endpoint unless `env_extra` sets one); the CompletedProcess."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, ROLECORPUS_ROOT=str(project), ROLECORPUS_CACHE=str(project / ".cache"))
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ROLECORPUS_LLM_MODEL", "OPENAI_MODEL"):
        env.pop(k, None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=timeout)


def build_project(root, repo, heldout: int = 10):
    """configs/ and the two samples copied into `root`, then lines -> stories -> vectors -> packages of Rosalind
    (English play) and Liu Bei (Chinese novel) through the real CLI; `eval_chat.n` set to `heldout`."""
    import shutil

    import yaml

    shutil.copytree(repo / "configs", root / "configs")
    (root / "data" / "samples").mkdir(parents=True)
    for name in ("asyoulik.txt", "sanguo_1-15.txt"):
        shutil.copy2(repo / "data" / "samples" / name, root / "data" / "samples" / name)
    cfg_path = root / "configs" / "pipeline.yaml"
    cfg = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    cfg.update(works=PROJECT_WORKS, characters=PROJECT_CHARACTERS, voices={})
    cfg["eval_chat"]["n"] = heldout
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    steps = [("build-lines", "asyoulik"), ("build-lines", "sanguo")]
    for cid in PROJECT_CHARACTERS:
        steps += [("segment", "--character", cid), ("embed", cid), ("package", cid)]
    for step in steps:
        p = cli(root, *step)
        assert p.returncode == 0, (step, p.stderr)
    return root


def shared_project(tmp_path_factory, repo, name: str):
    """A private copy (`name`) of the project built once per session by `build_project`."""
    import shutil

    base = tmp_path_factory.getbasetemp() / "i10b_built"
    if not (base / ".built").exists():
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir()
        build_project(base, repo)
        (base / ".built").write_text("ok")
    dst = tmp_path_factory.mktemp(name)
    shutil.copytree(base, dst, dirs_exist_ok=True)
    return dst
