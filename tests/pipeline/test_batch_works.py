"""Batch works on the local engine (no Ray): a season folder (episodes with subtitles beside them, one without:
Whisper) and a shelf of novels, each built into one lines file whose every file's lines are exactly what the
single-file extraction gives; a corrupt episode named while the others are cached; `--partial`; the CLI glob;
config errors."""

from __future__ import annotations

import shutil

import pytest
import yaml
from typer.testing import CliRunner

import batch_samples as samples
import pipeline.batch
import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.records import read_lines
from pipeline.cli_app import app

pytestmark = pytest.mark.slow
SEASON = {"kind": "tv", "input": "data/raw/season", "options": {"language": "en", "asr_backend": "faster-whisper"}}
SHELF = {"kind": "novel", "input": "data/raw/shelf", "files": "*.txt", "options": {"language": "en"}}


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    d = tmp_path_factory.mktemp("batch")
    samples.episode(d / "data/raw/season/ep01.wav", 6, 16)
    samples.episode(d / "data/raw/season/ep02.wav", 14, 24)
    samples.episode(d / "data/raw/season/ep03.wav", 20, 30, subtitles=False)  # no subtitles: Whisper
    samples.novel(d / "data/raw/shelf/alice_a.txt", "alice29", 1, 2)
    samples.novel(d / "data/raw/shelf/alice_b.txt", "alice29", 3, 4)
    (d / "data/raw/shelf/notes.md").write_text("not a novel: files: '*.txt' leaves it out\n")
    return samples.project(d, {"season": SEASON, "shelf": SHELF}, {"alice": {"work": "shelf"}})


@pytest.fixture
def run(proj, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(proj))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(proj / ".cache"))
    monkeypatch.chdir(proj)
    return lambda *args: CliRunner().invoke(app, list(args))


def _single(run, proj, kind, path, *opts) -> bytes:
    out = proj / "single" / (path.stem + ".jsonl")
    r = run("extract", kind, str(path), "--work", "season" if kind == "tv" else "shelf", "-o", str(out), *opts)
    assert r.exit_code == 0, r.stderr
    return out.read_bytes()


def test_a_season_folder_is_one_lines_file_each_episode_as_its_single_extraction_gives_it(run, proj):
    r = run("build-lines", "season")
    assert r.exit_code == 0, r.stderr
    lines = read_lines(proj / "data/lines/season.jsonl")
    assert [ln.source for ln in lines] == sorted(ln.source for ln in lines)
    assert sorted({ln.source for ln in lines}) == ["ep01.wav", "ep02.wav", "ep03.wav"]
    ev = {src: {ln.evidence for ln in lines if ln.source == src} for src in ("ep01.wav", "ep02.wav")}
    assert ev == {"ep01.wav": {"subtitle"}, "ep02.wav": {"subtitle"}}
    assert all("asr" in ln.extra for ln in lines if ln.source == "ep03.wav")
    assert any("Chicago" in ln.text for ln in lines if ln.source == "ep02.wav")
    season = proj / "data/raw/season"
    opts = ("--language", "en", "--asr-backend", "faster-whisper")
    one_by_one = b"".join([_single(run, proj, "tv", season / "ep01.wav", "--subtitles", str(season / "ep01.srt"), *opts),
                           _single(run, proj, "tv", season / "ep02.wav", "--subtitles", str(season / "ep02.srt"), *opts),
                           _single(run, proj, "tv", season / "ep03.wav", *opts)])
    assert (proj / "data/lines/season.jsonl").read_bytes() == one_by_one


def test_a_shelf_from_config_and_from_a_cli_glob_give_the_same_bytes(run, proj):
    assert run("build-lines", "shelf").exit_code == 0
    built = (proj / "data/lines/shelf.jsonl").read_bytes()
    lines = read_lines(proj / "data/lines/shelf.jsonl")
    assert sorted({ln.source for ln in lines}) == ["alice_a.txt", "alice_b.txt"]  # notes.md left out
    assert sum(ln.speaker == "alice" for ln in lines) > 20
    shelf = proj / "data/raw/shelf"
    assert built == _single(run, proj, "novel", shelf / "alice_a.txt", "--language", "en") + \
        _single(run, proj, "novel", shelf / "alice_b.txt", "--language", "en")
    out = proj / "glob.jsonl"
    r = run("extract", "novel", str(shelf / "*.txt"), "--work", "shelf", "-o", str(out), "--language", "en")
    assert r.exit_code == 0, r.stderr
    assert out.read_bytes() == built
    assert "from 2 files" in r.stdout


def test_a_corrupt_episode_is_named_the_others_are_cached_and_only_it_is_redone(run, proj, monkeypatch):
    calls = []
    real = pipeline.batch.run_job
    monkeypatch.setattr(pipeline.batch, "run_job", lambda job, models: calls.append(job.source.name) or real(job, models))
    bad = samples.corrupt_episode(proj / "data/raw/season/ep02b.wav")
    (proj / "data/lines/season.jsonl").unlink(missing_ok=True)
    try:
        r = run("build-lines", "season")
        assert r.exit_code == 2
        err = [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")]
        assert len(err) == 1 and "1 of 4 file(s) failed" in err[0] and str(bad) in err[0], r.stderr
        assert f"failed: {bad}: cannot decode audio" in r.stderr
        assert not (proj / "data/lines/season.jsonl").exists()  # no partial output by default
        assert calls == ["ep02b.wav"]  # the three good episodes came from the per-file cache of the first test

        r = run("build-lines", "season", "--partial")
        assert r.exit_code == 1 and str(bad) in r.stderr
        assert {ln.source for ln in read_lines(proj / "data/lines/season.jsonl")} == {"ep01.wav", "ep02.wav",
                                                                                     "ep03.wav"}
    finally:
        bad.unlink()
    calls.clear()
    assert run("build-lines", "season").exit_code == 0
    assert calls == []


def test_config_and_cli_mistakes_are_one_line_errors(run, proj):
    cfg_path = proj / "configs/pipeline.yaml"
    saved = cfg_path.read_text()
    try:
        cfg = yaml.safe_load(saved)
        cfg["works"]["season"] = dict(SEASON, input="data/raw/season/*.wav")
        cfg_path.write_text(yaml.safe_dump(cfg))
        r = run("build-lines", "season")
        assert r.exit_code == 2 and "works.season.input" in r.stderr and "files:" in r.stderr, r.stderr
        cfg["works"]["season"] = dict(SEASON, options=dict(SEASON["options"], subtitles="data/samples/sample.srt"))
        cfg_path.write_text(yaml.safe_dump(cfg))
        r = run("build-lines", "season")
        assert r.exit_code == 2 and "subtitles are found beside each episode" in r.stderr
    finally:
        cfg_path.write_text(saved)
    r = run("extract", "novel", str(proj / "data/raw/nothing/*.txt"), "--work", "x", "-o", str(proj / "x.jsonl"))
    assert r.exit_code == 2 and "matches no file" in r.stderr
    twins = proj / "data/raw/twins"
    for sub in ("a", "b"):
        (twins / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy(proj / "data/raw/shelf/alice_a.txt", twins / sub / "same.txt")
    r = run("extract", "novel", str(twins / "*/*.txt"), "--work", "x", "-o", str(proj / "x.jsonl"))
    assert r.exit_code == 2 and "two files named same.txt" in r.stderr
    r = run("build-lines", "shelf", "--engine", "spark")
    assert r.exit_code == 2 and "--engine must be one of local, ray" in r.stderr
    assert not (proj / "x.jsonl").exists()


def test_a_killed_batch_resumes_from_the_per_file_cache(proj, tmp_path):
    """kill -9 while the third episode (Whisper) runs: the rerun keeps the two finished episodes' cache entries
    untouched (not redone) and writes the same bytes as an uninterrupted build."""
    import os
    import signal
    import subprocess
    import sys
    import time

    cache = tmp_path / "cache"
    env = dict(os.environ, ROLECORPUS_ROOT=str(proj), ROLECORPUS_CACHE=str(cache), PYTHONPATH=str(samples.REPO))
    cmd = [sys.executable, "-m", "pipeline.cli", "build-lines", "season"]
    done = lambda: sorted((cache / "batch").rglob("*.json")) if (cache / "batch").is_dir() else []  # noqa: E731
    proc = subprocess.Popen(cmd, cwd=proj, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(done()) < 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = {p: p.stat().st_mtime_ns for p in done()}
    assert len(first) == 2, "the kill came after the whole batch had finished"
    expected = (proj / "data/lines/season.jsonl").read_bytes()  # built by the first test (another cache)
    (proj / "data/lines/season.jsonl").unlink()
    r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert len(done()) == 3 and all(p.stat().st_mtime_ns == t for p, t in first.items())
    assert (proj / "data/lines/season.jsonl").read_bytes() == expected


def test_the_local_engine_never_imports_ray(proj):
    import os
    import subprocess
    import sys

    code = ("import sys; from typer.testing import CliRunner; import pipeline.cli; from pipeline.cli_app import app; "
            "r = CliRunner().invoke(app, ['build-lines', 'shelf']); print(r.exit_code, 'ray' in sys.modules)")
    env = dict(os.environ, ROLECORPUS_ROOT=str(proj), ROLECORPUS_CACHE=str(proj / ".cache"),
               PYTHONPATH=str(samples.REPO))
    p = subprocess.run([sys.executable, "-c", code], cwd=proj, env=env, capture_output=True, text=True, timeout=300)
    assert p.stdout.split() == ["0", "False"], p.stdout + p.stderr
