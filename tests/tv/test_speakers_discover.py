"""`rolecorpus speakers discover` and `speakers name`: voices found across held-out synthetic episodes, named once.

Five espeak-ng voices nobody has labelled speak three episodes whose subtitles carry no names; discover must
find five clusters (one either way) of purity >= 0.95. Naming three of them trains a voice model that labels a
fourth, unseen episode: the two voices left unnamed (side characters) get no speaker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from extractors.records import read_lines
from extractors.tv.discover import purity

from speakers_synth import ENROLLED, HELDOUT, have_tools, make_episode, write_characters, write_srt

pytestmark = pytest.mark.slow
NAMED = list(HELDOUT)[:ENROLLED]


def run(args, cwd):
    env = {**os.environ, "ROLECORPUS_ROOT": str(cwd), "ROLECORPUS_CACHE": str(Path(cwd) / ".cache"),
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


@pytest.fixture(scope="module")
def season(tmp_path_factory):
    if not have_tools():
        pytest.fail("espeak-ng and ffmpeg are needed (apt-get install espeak-ng ffmpeg)")
    root = tmp_path_factory.mktemp("season")
    write_characters(root, list(HELDOUT))
    gold = {}
    for seed in (400, 401, 402, 403):
        folder = root / ("S01" if seed < 403 else "later")
        wav, labels, rows = make_episode(folder, lines_per_voice=6, voices=HELDOUT, seed=seed, name=f"ep{seed}")
        labels.unlink()
        write_srt(wav.with_suffix(".srt"), rows)
        gold[wav.name] = [r["character"] for r in rows]
    p = run(["speakers", "discover", "S01/*.wav", "--subtitles-beside", "-o", "voices", "--threads", "1"], root)
    assert p.returncode == 0, p.stderr
    return root, gold, p.stdout


def test_discover_finds_the_voices(season):
    root, gold, stdout = season
    lines = read_lines(root / "voices" / "lines.jsonl")
    assert len(lines) == 90
    got = [ln.extra["voice_cluster"] for ln in lines]
    want = [gold[ln.source][ln.index] for ln in lines]
    voices = json.loads((root / "voices" / "voices.json").read_text())["voices"]
    print(stdout, f"purity {purity(got, want):.3f}")
    assert 4 <= len(voices) <= 6 and len(set(got)) == len(voices)
    assert purity(got, want) >= 0.95
    for v in voices:
        assert v["samples"] and all((root / "voices" / s["clip"]).read_bytes()[:4] == b"RIFF" for s in v["samples"])
        assert len(v["episodes"]) >= 1 and v["lines"] >= 2


def test_name_trains_a_model_that_labels_an_unseen_episode(season):
    root, gold, _ = season
    lines = read_lines(root / "voices" / "lines.jsonl")
    majority = {}
    for ln in lines:
        majority.setdefault(ln.extra["voice_cluster"], Counter())[gold[ln.source][ln.index]] += 1
    for who in NAMED:
        cluster = max(majority, key=lambda c: majority[c][who])
        p = run(["speakers", "name", cluster, who.capitalize(), "--voices", "voices"], root)
        assert p.returncode == 0, p.stderr
        assert f"{cluster} = {who}:" in p.stdout
    named = read_lines(root / "voices" / "lines.jsonl")
    assert {ln.speaker for ln in named if ln.evidence == "manual"} == set(NAMED)
    assert sorted(x.name for x in (root / "voices" / "model").iterdir()) == ["model.json", "model.npz"]
    p = run(["extract", "tv", "later/ep403.wav", "--subtitles", "later/ep403.srt", "--speakers", "voices/model",
             "--work", "s01", "-o", "ep403.jsonl", "--threads", "1"], root)
    assert p.returncode == 0, p.stderr
    out = read_lines(root / "ep403.jsonl")
    truth = gold["ep403.wav"]
    enrolled = [(ln.speaker, truth[ln.index]) for ln in out if truth[ln.index] in NAMED]
    side = [ln for ln in out if truth[ln.index] not in NAMED]
    acc = sum(a == b for a, b in enrolled) / len(enrolled)
    print(f"unseen episode: accuracy {acc:.3f} on named voices; side characters given a speaker "
          f"{sum(ln.speaker is not None for ln in side)}/{len(side)}")
    assert acc >= 0.9
    assert all(ln.speaker is None for ln in side)


def test_bad_input_one_line_errors(season, tmp_path):
    root, _, _ = season
    p = run(["speakers", "discover", "nowhere/*.mkv", "-o", "v2"], root)
    assert p.returncode == 2 and p.stderr.startswith("error: ") and "no media file matches" in p.stderr
    bare = root / "bare"
    bare.mkdir(exist_ok=True)
    (bare / "x.wav").write_bytes((root / "later" / "ep403.wav").read_bytes())
    p = run(["speakers", "discover", "bare/x.wav", "--subtitles-beside", "-o", "v2"], root)
    assert p.returncode == 2 and "no subtitle file beside" in p.stderr and "x.wav" in p.stderr
    assert p.stderr.strip().count("\n") == 0
    assert not (root / "v2").exists()
    p = run(["speakers", "name", "voice_99", "fay", "--voices", "voices"], root)
    assert p.returncode == 2 and "no cluster 'voice_99'" in p.stderr
    p = run(["speakers", "name", "voice_01", "Marge", "--voices", "voices"], root)
    assert p.returncode == 2 and "unknown character 'Marge'" in p.stderr


def test_ids_are_checked_and_names_files_validated(season):
    """Every id the speakers commands take or write under goes through extractors/ids.py check_id."""
    root, _, _ = season
    before = (root / "voices" / "lines.jsonl").read_bytes()
    for args, needle in (
        (["speakers", "name", "../voice_01", "fay", "--voices", "voices"], "cluster id '../voice_01'"),
        (["speakers", "name", "voice_01", "fay", "--voices", "voices", "-o", "bad name"], "folder name 'bad name'"),
        (["speakers", "discover", "S01/*.wav", "--subtitles-beside", "--work", "a/b", "-o", "v3"], "--work 'a/b'"),
        (["speakers", "discover", "S01/*.wav", "--subtitles-beside", "-o", "v 3"], "folder name 'v 3'"),
        (["speakers", "name", "voice_01", "--voices", "voices"], "CLUSTER CHARACTER, or --names"),
    ):
        p = run(args, root)
        assert p.returncode == 2 and p.stderr.startswith("error: ") and needle in p.stderr, (args, p.stderr)
        assert p.stderr.strip().count("\n") == 0
    for body, needle in (("who,what\nvoice_01,fay\n", "header `cluster,character`"),
                         ("cluster,character\nvoice_01,Marge\n", "row 2: unknown character 'Marge'"),
                         ("cluster,character\nvoice_01\n", "row 2: expected 2 columns"),
                         ("cluster,character\nvoice 1,fay\n", "cluster id 'voice 1'"),
                         ("cluster,character\nvoice_77,fay\n", "no cluster 'voice_77'")):
        (root / "names.csv").write_text(body, encoding="utf-8")
        p = run(["speakers", "name", "--names", "names.csv", "--voices", "voices"], root)
        assert p.returncode == 2 and needle in p.stderr, (body, p.stderr)
    assert (root / "voices" / "lines.jsonl").read_bytes() == before and not (root / "v3").exists()
