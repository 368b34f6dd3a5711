"""The review file (pipeline/review.py): keys that survive a rerun of the extractor, decisions recorded and applied
by `build-lines` as `evidence: manual`, a bad file refused in one line with nothing written, and DVC tracking it."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cli_asserts import one_line_error
from extractors.errors import InputError
from extractors.records import Line, read_lines
from pipeline.review import (apply_review, doubt, line_keys, proposal, read_review, record, review_path)
from pipeline.stories import read_stories

REPO = Path(__file__).resolve().parents[2]
TELEPHONE = [  # three lines as the tv extractor writes them (voice statuses of the sample's Whisper work)
    Line("telephone_asr", "sample.wav", "sample", 0, "dialogue", "Hello.", "sheila", None, 7.0, 7.44, 0.6, "voice",
         {"voice": {"status": "maybe", "guesses": [{"character": "sheila", "score": 0.38},
                                                   {"character": "diane", "score": 0.36}]}}),
    Line("telephone_asr", "sample.wav", "sample", 1, "dialogue", "I didn't know you were there.", None, None, 8.3,
         9.9, 0.4, None, {"voice": {"status": "unknown", "guesses": [{"character": "diane", "score": 0.2}]}}),
    Line("telephone_asr", "sample.wav", "sample", 2, "dialogue", "This is Diane in New Jersey.", "diane", None,
         10.0, 11.5, 0.9, "voice", {"voice": {"status": "confident"}}),
]


def test_keys_name_the_words_and_times_not_the_position():
    keys = line_keys(TELEPHONE)
    assert keys[0].startswith("sample@7.00-7.44:") and len(set(keys)) == 3
    shifted = copy.deepcopy(TELEPHONE)
    for ln in shifted:
        ln.index += 5  # an extractor rerun that found more lines before: same keys
    assert line_keys(shifted) == keys
    novel = [Line("alice29", "alice29.txt", "1", i, "dialogue", t) for i, t in enumerate(["Oh dear!", "No.", "Oh dear!"])]
    k = line_keys(novel)
    assert k[0] != k[2] and k[2] == k[0] + "#1" and ":" in k[1]


def test_doubt_and_proposal_also_for_maybe_lines_with_no_speaker():
    assert [doubt(ln) for ln in TELEPHONE] == ["voice maybe", "voice unknown", None]
    held_back = copy.deepcopy(TELEPHONE[0])
    held_back.speaker = None  # a `maybe` line with speaker null, the guess kept in extra.voice.guesses
    assert (doubt(held_back), proposal(held_back)) == ("voice maybe", "sheila")
    assert doubt(Line("alice29", "a.txt", "1", 0, "dialogue", "Why?")) == "no speaker"
    assert doubt(Line("alice29", "a.txt", "1", 0, "narration", "It rained.")) is None


def test_record_replace_and_apply(tmp_path):
    path = review_path(tmp_path, "data/samples", "telephone_asr")
    assert path == tmp_path / "data/samples/review/telephone_asr.jsonl"
    keys = line_keys(TELEPHONE)
    record(path, keys[0], TELEPHONE[0], "accept")
    record(path, keys[1], TELEPHONE[1], "character", "sheila")
    record(path, keys[1], TELEPHONE[1], "nobody")  # changed their mind: the newest decision wins
    record(path, keys[2], TELEPHONE[2], "skip")
    got = read_review(path)
    assert [(d.decision, d.speaker) for d in got.values()] == [("accept", "sheila"), ("nobody", None), ("skip", None)]
    with pytest.raises(InputError, match="needs a character"):
        record(path, keys[2], Line("w", "s", "u", 0, "dialogue", "x"), "accept")
    lines = copy.deepcopy(TELEPHONE)
    assert apply_review(lines, got) == 2
    assert [(ln.speaker, ln.evidence, ln.confidence) for ln in lines] == [
        ("sheila", "manual", 1.0), (None, "manual", 1.0), ("diane", "voice", 0.9)]
    assert lines[0].extra["review"]["before"] == {"speaker": "sheila", "confidence": 0.6, "evidence": "voice"}
    assert lines[0].extra["voice"]["status"] == "maybe"  # what the model said is kept


def _cli(root: Path, *args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"))
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def test_build_lines_applies_the_review_file_and_refuses_a_bad_one(tmp_path):
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    (tmp_path / "data/samples").mkdir(parents=True)
    shutil.copy2(REPO / "data/samples/asyoulik.txt", tmp_path / "data/samples")
    assert _cli(tmp_path, "build-lines", "asyoulik").returncode == 0  # no review file yet: builds
    out = tmp_path / "data/lines/asyoulik.jsonl"
    lines = read_lines(out)
    keys = line_keys(lines)
    i = next(n for n, ln in enumerate(lines) if ln.speaker == "orlando")
    j = next(n for n, ln in enumerate(lines) if ln.speaker == "celia")
    path = review_path(tmp_path, "data/samples", "asyoulik")
    record(path, keys[i], lines[i], "character", "rosalind")
    record(path, keys[j], lines[j], "nobody")
    p = _cli(tmp_path, "build-lines", "asyoulik")
    assert p.returncode == 0 and "2 line(s) set by" in p.stderr
    again = read_lines(out)
    assert line_keys(again) == keys
    assert (again[i].speaker, again[i].evidence, again[i].confidence) == ("rosalind", "manual", 1.0)
    assert (again[j].speaker, again[j].evidence) == (None, "manual")
    assert sum(ln.evidence == "manual" for ln in again) == 2
    before = out.read_bytes()
    path.write_text(path.read_text() + '{"key": "x", "unit": "1", "text": "t", "decision": "maybe"}\n')
    one_line_error(_cli(tmp_path, "build-lines", "asyoulik"), "asyoulik.jsonl, row 3", "decision 'maybe'")
    assert out.read_bytes() == before  # nothing half-applied
    path.write_text(path.read_text().replace('"rosalind"', '"hamlet"').replace('"maybe"', '"skip"'))
    one_line_error(_cli(tmp_path, "build-lines", "asyoulik"), "row 1", "unknown character 'hamlet'")


def test_dvc_lines_stage_tracks_the_review_files():
    lines = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]["lines"]["do"]["deps"]
    assert "${sources}" in lines and "pipeline/review.py" in lines
    cfg = yaml.safe_load((REPO / "configs/pipeline.yaml").read_text())
    assert review_path(REPO, cfg["sources"], "x").parent.parent == REPO / cfg["sources"]


@pytest.mark.slow
def test_dvc_repro_after_a_review_rebuilds_only_the_reviewed_works_characters(tmp_path):
    """A decision in data/samples/review/asyoulik.jsonl: `dvc repro` reruns the lines (every lines stage depends on
    the sources folder), but only rosalind's stories change and are rebuilt; jaques (another work) is untouched."""
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if f.startswith(("configs/", "data/samples/asyoulik", "data/samples/jaques", "data/emotions/", ".dvc/",
                         "extractors/", "pipeline/")) or f in ("dvc.yaml", ".dvcignore", ".gitignore"):
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, tmp_path / f)
    cfg = yaml.safe_load((tmp_path / "configs/pipeline.yaml").read_text())
    cfg["works"] = {w: cfg["works"][w] for w in ("asyoulik", "jaques_quotes")}
    cfg["characters"] = {"rosalind": {"work": "asyoulik"}, "jaques": {"work": "jaques_quotes"}}
    cfg["voices"] = {}
    cfg["seasons"] = {}  # nor the sample season's voices (not copied here)
    cfg["eval_chat"]["characters"] = []  # eval@ID scores liubei, not built here
    (tmp_path / "configs/pipeline.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               ROLECORPUS_CACHE=str(tmp_path / ".cache"), PYTHONPATH=str(tmp_path))

    def repro() -> set[str]:
        p = subprocess.run(["dvc", "repro"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout + p.stderr
        return set(re.findall(r"Running stage '([^']+)'", p.stdout + p.stderr))

    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "copy"]):
        subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True)
    assert {"package@rosalind", "package@jaques"} <= repro()  # no review file anywhere yet: builds
    lines = read_lines(tmp_path / "data/lines/asyoulik.jsonl")
    in_story = {(d["speaker"], d["text"]) for s in read_stories(tmp_path / "data/stories/rosalind.jsonl")
                for d in s.lines}  # a line of Orlando's that one of Rosalind's stories holds
    i = next(n for n, ln in enumerate(lines) if ln.speaker == "orlando" and ("orlando", ln.text) in in_story)
    record(review_path(tmp_path, "data/samples", "asyoulik"), line_keys(lines)[i], lines[i], "character", "rosalind")
    again = repro()
    # segment reruns for every character (it depends on the folder data/lines), but only rosalind's stories change
    assert {"lines@asyoulik", "segment@rosalind", "embed@rosalind", "package@rosalind"} <= again
    assert not {"embed@jaques", "package@jaques"} & again, again
    assert read_lines(tmp_path / "data/lines/asyoulik.jsonl")[i].evidence == "manual"
    assert repro() == set()


def test_speakers_apply_writes_the_same_review_file(tmp_path):
    """The CSV loop of the CLI (`speakers review` / `speakers apply`) records its answers in the work's review file
    too, so a rebuild of the lines keeps them, as it keeps the studio's."""
    import csv

    from extractors.records import write_lines

    shutil.copytree(REPO / "configs", tmp_path / "configs")
    write_lines(tmp_path / "lines.jsonl", copy.deepcopy(TELEPHONE))
    assert _cli(tmp_path, "speakers", "review", "lines.jsonl", "-o", "sheet.csv").returncode == 0
    rows = list(csv.DictReader(open(tmp_path / "sheet.csv", encoding="utf-8")))
    answers = {"sample.wav#1": "-", "sample.wav#0": "Diane"}
    for r in rows:
        r["character"] = answers.get(r["key"], "")
    with open(tmp_path / "sheet.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    p = _cli(tmp_path, "speakers", "apply", "sheet.csv", "lines.jsonl")
    assert p.returncode == 0 and "decisions saved in" in p.stdout, p.stderr
    got = read_review(review_path(tmp_path, "data/samples", "telephone_asr"))
    assert sorted((d.text, d.decision, d.speaker) for d in got.values()) == [
        ("Hello.", "character", "diane"), ("I didn't know you were there.", "nobody", None)]
    fresh = copy.deepcopy(TELEPHONE)  # a rerun of the extractor, then the review file: what `apply` wrote
    apply_review(fresh, got)
    assert [(ln.speaker, ln.evidence) for ln in fresh] == [
        (ln.speaker, ln.evidence) for ln in read_lines(tmp_path / "lines.jsonl")]
