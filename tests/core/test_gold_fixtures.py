"""A clone without the gold corpora runs green: gold tests skip saying where the data comes from, and
ROLECORPUS_REQUIRE_GOLD=1 (as `.ci/run` sets it) turns each of those skips into a failure.

Runs pytest on a two-test file next to a copy of this suite's conftest.py, with the gold paths
pointed at an empty folder, as a fresh clone with no ../shared sees them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

GOLD_TESTS = '''
def test_reads_pdnc(pdnc):
    assert (pdnc / "PrideAndPrejudice" / "quotation_info.csv").exists()


def test_reads_honglou(honglou):
    assert (honglou / "label_honglou_1-8.txt").exists()
'''


def _pytest(folder: Path, **env) -> subprocess.CompletedProcess:
    env = {**os.environ, "PDNC_DIR": str(folder / "none"), "HONGLOU_DIR": str(folder / "none"), **env}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _suite(tmp_path: Path) -> Path:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_gold.py").write_text(GOLD_TESTS, encoding="utf-8")
    return tmp_path


def test_gold_tests_are_opt_in_locally_with_one_line_saying_how_to_run_them(tmp_path, monkeypatch):
    monkeypatch.delenv("ROLECORPUS_REQUIRE_GOLD", raising=False)
    monkeypatch.delenv("ROLECORPUS_ALL_TESTS", raising=False)
    p = _pytest(_suite(tmp_path))
    assert p.returncode == 5, p.stdout + p.stderr  # 5: no test ran
    assert "2 deselected" in p.stdout and "2 slow or gold tests not run: `make test-all`" in p.stdout


def test_missing_gold_skips_with_where_it_comes_from(tmp_path, monkeypatch):
    monkeypatch.delenv("ROLECORPUS_REQUIRE_GOLD", raising=False)
    p = _pytest(_suite(tmp_path), ROLECORPUS_ALL_TESTS="1")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 skipped" in p.stdout
    assert "Project Dialogism Novel Corpus" in p.stdout and "set PDNC_DIR" in p.stdout
    assert "stoensin/BERT_fun" in p.stdout and "set HONGLOU_DIR" in p.stdout
    assert "../shared/corpora" in p.stdout


def test_missing_gold_fails_when_required(tmp_path):
    p = _pytest(_suite(tmp_path), ROLECORPUS_REQUIRE_GOLD="1")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "2 errors" in p.stdout and "ROLECORPUS_REQUIRE_GOLD is set" in p.stdout


def test_no_expected_failure_that_cannot_fail():
    """`xfail` without strict=True (pytest's default is not strict) passes whether the code works or not,
    and so does `pytest.xfail()`: none anywhere in the suite."""
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\.xfail\(", text):
            call = text[m.end():text.find(")", m.end()) + 1]
            if text[m.start() - 6:m.start()] == "pytest" or "strict=True" not in call:
                offenders.append(f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}")
    assert offenders == [], offenders
