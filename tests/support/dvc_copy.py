"""A copy of the project as its own git repository, for the `dvc repro` tests: `copy_project` copies the files
a stage needs, lets the test trim configs/pipeline.yaml, and commits; `sh` runs a command there with the venv's
dvc, a cache inside the copy and the copy's code first on the path; `ran` lists the stages a repro ran."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import yaml

REPO = Path(__file__).resolve().parents[2]
ALWAYS = (".dvc/", "configs/", "data/emotions/", "extractors/", "pipeline/")


def sh(cwd, *cmd) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               ROLECORPUS_CACHE=str(Path(cwd) / ".cache"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1",
               PYTHONPATH=str(cwd))
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, (cmd, p.stdout[-3000:], p.stderr[-3000:])
    return p.stdout + p.stderr


def ran(output: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", output))


def copy_project(dst: Path, samples: tuple[str, ...], edit: Callable[[dict], None]) -> Path:
    """Copy the code, configs and the sample files starting with `samples`; `edit` trims the pipeline config."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.split()
    for f in files:
        if (f.startswith(ALWAYS + samples) or f in ("dvc.yaml", ".dvcignore", ".gitignore")) and (REPO / f).is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, dst / f)
    cfg = yaml.safe_load((dst / "configs/pipeline.yaml").read_text())
    edit(cfg)
    (dst / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    sh(dst, "git", "init", "-q")
    sh(dst, "git", "add", "-A")
    sh(dst, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "copy")
    return dst
