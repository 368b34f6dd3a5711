"""`--engine ray` on a real local Ray (2 CPUs): several sample works (a season of audio episodes, two with
subtitles and one for Whisper, and a shelf of two novels) built serially and on Ray, each project with its own
cache, give the same bytes in every output file (lines, metrics, stories, embeddings, packages); a corrupt
episode in a Ray batch is named while the other works and characters are built."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import batch_samples as samples
import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.records import read_lines
from pipeline.cli_app import app

ray = pytest.importorskip("ray", reason="Ray is in the `ray` extra (installed by `make venv`)")
pytestmark = pytest.mark.slow

WORKS = {"season": {"kind": "tv", "input": "data/raw/season",
                    "options": {"language": "en", "asr_backend": "faster-whisper"}},
         "shelf": {"kind": "novel", "input": "data/raw/shelf", "options": {"language": "en"}},
         "sanguo": {"kind": "novel", "input": "data/raw/sanguo_1-3.txt", "options": {"language": "zh"}}}
CHARACTERS = {"alice": {"work": "shelf"}, "diane": {"work": "season"}, "sheila": {"work": "season"},
              "liubei": {"work": "sanguo"}}


def _make(root, corrupt: bool = False):
    samples.episode(root / "data/raw/season/ep01.wav", 6, 16)
    samples.episode(root / "data/raw/season/ep02.wav", 14, 24)
    samples.episode(root / "data/raw/season/ep03.wav", 20, 30, subtitles=False)
    if corrupt:
        samples.corrupt_episode(root / "data/raw/season/ep02b.wav")
    samples.novel(root / "data/raw/shelf/alice_a.txt", "alice29", 1, 2)
    samples.novel(root / "data/raw/shelf/alice_b.txt", "alice29", 3, 5)
    samples.novel(root / "data/raw/sanguo_1-3.txt", "sanguo_1-15", 1, 3)
    return samples.project(root, WORKS, CHARACTERS)


@pytest.fixture(scope="module")
def local_ray():
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"  # the manifests' `created`: the same in both builds
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    os.environ.pop("SOURCE_DATE_EPOCH") if saved is None else os.environ.__setitem__("SOURCE_DATE_EPOCH", saved)


def _build(root, monkeypatch, *args, cache=None):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(root))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(cache or root / ".cache"))
    monkeypatch.chdir(root)
    return CliRunner().invoke(app, ["build", *args])


@pytest.fixture(scope="module")
def on_ray_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("raycache")


def test_serial_and_ray_builds_are_byte_identical(local_ray, on_ray_cache, tmp_path, monkeypatch):
    """OMP_NUM_THREADS unset, as in a shell: a serial Whisper then uses CTranslate2's default thread count, and
    Ray (which sets 1 in its workers) must be told the same, or the transcripts differ."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    serial, on_ray = _make(tmp_path / "serial"), _make(tmp_path / "ray")
    # the serial build in its own process, as `dvc repro` runs it (this one's torch fixed its threads at import)
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | {
        "ROLECORPUS_ROOT": str(serial), "ROLECORPUS_CACHE": str(serial / ".cache"), "PYTHONPATH": str(samples.REPO)}
    p = subprocess.run([sys.executable, "-m", "pipeline.cli", "build", "--engine", "local"], cwd=serial, env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    r = _build(on_ray, monkeypatch, "--engine", "ray", "--workers", "2", cache=on_ray_cache)
    assert r.exit_code == 0, r.stderr
    a, b = samples.files(serial), samples.files(on_ray)
    for cid in CHARACTERS:
        assert {f"data/stories/{cid}.jsonl", f"data/embeddings/{cid}.npz", f"data/characters/{cid}/{cid}.jsonl",
                f"data/characters/{cid}/manifest.json", f"data/characters/{cid}/stories/0001.txt"} <= set(a)
    assert {"data/lines/season.jsonl", "data/lines/shelf.jsonl", "data/lines/sanguo.jsonl", "metrics/tv_season.json",
            "metrics/novel_shelf.json", "metrics/novel_sanguo.json"} <= set(a)
    assert sorted(a) == sorted(b)
    differ = [f for f in a if a[f] != b[f]]
    assert differ == []
    # each project paid for its own work: Whisper ran, and vectors were computed, in both
    for cache in (serial / ".cache", on_ray_cache):
        assert any((cache / "asr").rglob("*.json")) and any((cache / "vectors").rglob("*.json"))


def test_a_corrupt_episode_on_ray_is_named_and_the_rest_is_built(local_ray, on_ray_cache, tmp_path, monkeypatch):
    """(The good files come from the per-file cache the Ray build above filled: only the corrupt one runs.)"""
    root = _make(tmp_path / "p", corrupt=True)
    r = _build(root, monkeypatch, "--engine", "ray", cache=on_ray_cache)
    assert r.exit_code == 2
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")]
    bad = root / "data/raw/season/ep02b.wav"
    assert len(err) == 1 and f"{bad}: cannot decode audio" in err[0], r.stderr
    assert "character diane: not built" in err[0] and "character sheila: not built" in err[0]
    assert not (root / "data/lines/season.jsonl").exists() and not (root / "data/characters/diane").exists()
    for cid in ("alice", "liubei"):  # the other works' characters are built
        assert (root / f"data/characters/{cid}/manifest.json").exists()
    r = CliRunner().invoke(app, ["build-lines", "season", "--engine", "ray", "--partial"])
    assert r.exit_code == 1 and str(bad) in r.stderr
    assert {ln.source for ln in read_lines(root / "data/lines/season.jsonl")} == {"ep01.wav", "ep02.wav", "ep03.wav"}
