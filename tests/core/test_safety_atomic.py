"""Clean after a crash (extractors/atomic.py): writers killed with SIGKILL mid-write leave their temporary file or
folder; the next write of the same output removes them, keeps those of a writer still alive, and the outputs
carry the modes the user's umask gives (0644 / 0755 under 022, 0600 / 0700 under 077)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from extractors.atomic import atomic_dir, atomic_write_text

REPO = Path(__file__).resolve().parents[2]

# a writer that stops mid-write (inside the atomic block) until it is killed
WRITER = """
import sys, time
from pathlib import Path
from extractors.atomic import atomic_dir, atomic_open
target, kind = Path(sys.argv[1]), sys.argv[2]
if kind == "file":
    with atomic_open(target) as fh:
        fh.write("half a line"); fh.flush(); print("writing", flush=True); time.sleep(600)
else:
    with atomic_dir(target) as tmp:
        (tmp / "stories").mkdir(); (tmp / "stories" / "1.txt").write_text("half")
        print("writing", flush=True); time.sleep(600)
"""


def _writer(target: Path, kind: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target), kind], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.stdout.readline().strip() == "writing"
    return proc


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_rerun_removes_what_killed_writers_left_and_keeps_a_live_writers(tmp_path):
    out = tmp_path / "data"
    out.mkdir()
    lines, package = out / "rosalind.jsonl", out / "rosalind"
    atomic_write_text(lines, "old\n")
    with atomic_dir(package) as tmp:
        (tmp / "manifest.json").write_text("{}")
    killed = [_writer(lines, "file"), _writer(package, "dir")]
    alive = _writer(out / "celia.jsonl", "file")
    try:
        for p in killed:
            p.send_signal(signal.SIGKILL)
            p.wait(10)
        # what an older version left when killed between its two renames
        (out / ".rosalind.old").mkdir()
        (out / ".rosalind.old" / "manifest.json").write_text("{}")
        left = _leftovers(out)
        assert len([n for n in left if n.startswith(".rosalind.") and n.endswith(".tmp")]) == 2, left
        assert any(n.startswith(".celia.jsonl.") for n in left)
        assert lines.read_text() == "old\n" and (package / "manifest.json").is_file()  # outputs intact

        atomic_write_text(lines, "new\n")  # the rerun of each output
        with atomic_dir(package) as tmp:
            (tmp / "manifest.json").write_text('{"v": 2}')
        left = _leftovers(out)
        assert not [n for n in left if n.startswith(".rosalind")], left
        assert [n for n in left if n.startswith(".celia.jsonl.")], "a live writer's temporary file was removed"
        assert lines.read_text() == "new\n" and (package / "manifest.json").read_text() == '{"v": 2}'
    finally:
        alive.kill()
        alive.wait(10)


@pytest.mark.parametrize("mask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700),
                                                        (0o002, 0o664, 0o775)])
def test_outputs_follow_the_umask(tmp_path, mask, file_mode, dir_mode):
    code = """
import os, stat, sys
from pathlib import Path
from extractors.atomic import atomic_dir, atomic_write_text
root = Path(sys.argv[1])
atomic_write_text(root / "configs" / "x.yaml", "a: 1\\n")
with atomic_dir(root / "pkg") as tmp:
    (tmp / "inner.txt").write_text("x")
print(oct(stat.S_IMODE((root / "configs" / "x.yaml").stat().st_mode)), oct(stat.S_IMODE((root / "pkg").stat().st_mode)),
      oct(stat.S_IMODE((root / "pkg" / "inner.txt").stat().st_mode)))
"""
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO)), preexec_fn=lambda: os.umask(mask), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [oct(file_mode), oct(dir_mode), oct(file_mode)]


def test_rewriting_keeps_no_old_folder(tmp_path):
    target = tmp_path / "pkg"
    for n in range(3):
        with atomic_dir(target) as tmp:
            (tmp / "n").write_text(str(n))
        time.sleep(0.01)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"] and (target / "n").read_text() == "2"
    assert stat.S_ISDIR(target.stat().st_mode)
