"""The sample season (`make sample`): three espeak-ng episodes, subtitles without names, side characters present,
built by `dvc repro` through discover -> name (data/samples/season/names.csv) -> train -> extract into Mira.

The truth of who speaks each line is data/samples/season/truth.csv (written by scripts/make_sample_season.py;
the pipeline never reads it).
"""

from __future__ import annotations

import csv
import json

import pytest

from dvc_copy import REPO, copy_project, ran, sh
from extractors.records import read_lines
from extractors.tv.audio import decode_audio
from extractors.tv.subtitles import subtitle_lines

SEASON = REPO / "data" / "samples" / "season"
NAMED = {"mira", "theo"}


def truth() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    with open(SEASON / "truth.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            out.setdefault(r["media"], []).append(r)
    return out


def test_season_files_are_small_unnamed_and_hold_side_characters():
    gold = truth()
    assert sorted(gold) == ["ep1.wav", "ep2.wav", "ep3.wav"]
    for ep, rows in gold.items():
        audio = decode_audio(SEASON / ep)
        assert 20 <= len(audio) / 16000 <= 30 and (SEASON / ep).stat().st_size < 1_000_000
        subs = subtitle_lines(SEASON / ep.replace(".wav", ".srt"), "season", source=ep, unit=ep)
        assert [ln.text for ln in subs] == [r["text"] for r in rows]
        assert all(ln.speaker is None and ln.name is None for ln in subs)  # no names in the subtitles
        assert {r["character"] for r in rows} == NAMED | {"postman", "neighbour"}
    with open(SEASON / "names.csv", newline="", encoding="utf-8") as fh:
        assert {r["character"] for r in csv.DictReader(fh)} == NAMED  # the side characters are never named


def _trim(cfg: dict) -> None:
    cfg["works"] = {w: cfg["works"][w] for w in ("season_ep1", "season_ep2", "season_ep3")}
    cfg["characters"] = {"mira": cfg["characters"]["mira"]}
    cfg["voices"] = {}
    cfg["eval_chat"]["characters"] = []  # eval@ID scores rosalind and liubei, not built here


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("season"), ("data/samples/season/",), _trim)


@pytest.mark.slow
def test_dvc_repro_builds_mira_from_the_season_side_characters_unlabelled(project):
    first = ran(sh(project, "dvc", "repro"))
    assert {"season@season", "lines@season_ep1", "lines@season_ep3", "segment@mira", "package@mira"} <= first
    voices = json.loads((project / "data/voices/season/voices.json").read_text())["voices"]
    assert {v["character"] for v in voices} - {None} == NAMED  # named once, from names.csv
    assert sorted(p.name for p in (project / "data/samples/speakers/season").iterdir()) == ["model.json", "model.npz"]
    gold = truth()
    mine = right = side = side_given = wrong = 0
    for k in (1, 2, 3):
        lines = read_lines(project / f"data/lines/season_ep{k}.jsonl")
        rows = gold[f"ep{k}.wav"]
        assert [ln.text for ln in lines] == [r["text"] for r in rows]
        for ln, r in zip(lines, rows):
            if r["character"] in NAMED:
                mine += 1
                right += ln.speaker == r["character"]
                wrong += ln.speaker not in (None, r["character"])
            else:
                side += 1
                side_given += ln.speaker is not None
    print(f"season: {right}/{mine} lines of the named voices right, {wrong} wrong; side characters given a "
          f"speaker {side_given}/{side}")
    assert side == 7 and side_given == 0  # side characters never mislabelled
    assert wrong == 0 and right / mine >= 0.9
    manifest = json.loads((project / "data/characters/mira/manifest.json").read_text())
    assert {s.split("/")[0] for s in manifest["sources"]} >= {"season_ep1", "season_ep2"}
    stories = list((project / "data/characters/mira/stories").glob("*.txt"))
    assert stories and any("Theo:" in p.read_text(encoding="utf-8") for p in stories)
    assert ran(sh(project, "dvc", "repro")) == set()
    # the naming is data: changing it reruns discover -> name and the lines it labels
    names = project / "data/samples/season/names.csv"
    names.write_text(names.read_text().splitlines()[0] + "\n" + [r for r in names.read_text().splitlines()
                                                                  if r.endswith(",mira")][0] + "\n")
    again = ran(sh(project, "dvc", "repro"))
    assert {"season@season", "lines@season_ep1"} <= again
    lines = read_lines(project / "data/lines/season_ep1.jsonl")
    assert {ln.speaker for ln in lines} - {None} == {"mira"}  # Theo unnamed now: nobody's voice gets his lines
