"""`dvc repro` on a copy of the project: builds, then does nothing, then reruns only what a parameter touches."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent


def sh(cwd, *cmd):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               ROLECORPUS_CACHE=str(Path(cwd) / ".cache"))
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout + p.stderr


def ran(output: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", output))


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    dst = tmp_path_factory.mktemp("dvcproj")
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if f.startswith(("configs/", "data/samples/asyoulik", ".dvc/")) or f in ("dvc.yaml", ".dvcignore", ".gitignore"):
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, dst / f)
    cfg = yaml.safe_load((dst / "configs/pipeline.yaml").read_text())
    cfg["works"] = {kind: {} for kind in cfg["works"]}
    cfg["works"]["script"] = {"asyoulik": {"input": "data/samples/asyoulik.txt", "args": ["--format", "play"]}}
    cfg["characters"] = {"rosalind": {"work": "asyoulik"}, "orlando": {"work": "asyoulik"}}
    (dst / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    sh(dst, "git", "init", "-q")
    sh(dst, "git", "add", "-A")
    sh(dst, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "copy")
    return dst


def test_repro_builds_then_is_a_no_op_then_reruns_only_downstream_of_a_param(copy):
    first = ran(sh(copy, "dvc", "repro"))
    assert {"lines_script@asyoulik", "segment@rosalind", "embed@rosalind", "package@rosalind", "package@orlando"} <= first
    assert len(list((copy / "data/characters/rosalind/stories").glob("*.txt"))) >= 40
    assert (copy / "data/characters/rosalind/rosalind.jsonl").exists()

    assert ran(sh(copy, "dvc", "repro")) == set()

    cfg_path = copy / "configs/pipeline.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["segment"]["max_tokens"] = 400
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    third = ran(sh(copy, "dvc", "repro"))
    assert third == {f"{stage}@{c}" for stage in ("segment", "embed", "package") for c in ("rosalind", "orlando")}
