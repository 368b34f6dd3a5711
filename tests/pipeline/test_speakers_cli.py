"""`rolecorpus speakers train|eval|review|apply` end to end, and bad input: one-line errors, exit 2, nothing written."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from extractors.records import Line, read_lines, write_lines
from extractors.tv import speaker_id as sid
from extractors.tv.audio import decode_audio
from extractors.tv.labels import format_time, parse_time, read_labels

from speakers_synth import shared_encoder, write_characters

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "samples"


def run(args, cwd):
    env = {**os.environ, "ROLECORPUS_ROOT": str(cwd), "ROLECORPUS_CACHE": str(Path(cwd) / ".cache"),
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.fixture()
def project(tmp_path):
    write_characters(tmp_path, ["diane", "sheila"])
    return tmp_path


def write_csv(path, rows, header=("character", "text", "start", "end", "media")):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def sample_rows():
    return list(csv.reader(open(SAMPLE / "sample_labels.csv", encoding="utf-8")))[1:]


def media_rows(rows, media):
    return [[*r[:4], str(media)] for r in rows]


def assert_one_line_error(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err, err
    for n in needles:
        assert n in err, err


def test_train_unknown_character_names_row(project):
    rows = media_rows(sample_rows()[:4], SAMPLE / "sample.wav")
    rows[2][0] = "Marge"
    labels = write_csv(project / "labels.csv", rows)
    p = run(["speakers", "train", str(labels), "-o", str(project / "model")], project)
    assert_one_line_error(p, "labels.csv, row 4", "unknown character 'Marge'")
    assert not (project / "model").exists()


def test_train_time_range_outside_media_names_row(project):
    rows = media_rows(sample_rows()[:4], SAMPLE / "sample.wav")
    rows[1][2:4] = ["29.5", "31.0"]  # the recording is 30 s long
    labels = write_csv(project / "labels.csv", rows)
    p = run(["speakers", "train", str(labels), "-o", str(project / "model")], project)
    assert_one_line_error(p, "labels.csv, row 3", "outside the media")
    assert not (project / "model").exists()


def test_train_corrupt_media_names_file_and_row(project):
    bad = project / "broken.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt garbage" * 20)
    rows = media_rows(sample_rows()[:2], SAMPLE / "sample.wav") + [["diane", "x", "1", "2", "broken.wav"]]
    labels = write_csv(project / "labels.csv", rows)
    p = run(["speakers", "train", str(labels), "-o", str(project / "model")], project)
    assert_one_line_error(p, "labels.csv, row 4", "broken.wav")
    assert not (project / "model").exists()


def test_bad_times_and_missing_media(project):
    labels = write_csv(project / "l.csv", [["diane", "hi", "3.0", "2.0", str(SAMPLE / "sample.wav")]])
    assert_one_line_error(run(["speakers", "train", str(labels), "-o", "m"], project), "row 2", "empty or negative")
    labels = write_csv(project / "l.csv", [["diane", "hi", "1", "2"]], header=("character", "text", "start", "end"))
    assert_one_line_error(run(["speakers", "train", str(labels), "-o", "m"], project), "row 2", "--media")
    assert not (project / "m").exists()


def test_chatharuhi_columns_and_clock_times(project):
    rows = [["Diane", "Hello?", "00:00:06,680", "00:00:07,160"], ["SHEILA", "Hello?", "7.634", "00:08.155"]]
    path = write_csv(project / "zh.csv", rows, header=("人物", "人物台词", "开始时间", "结束时间"))
    from extractors.characters import AliasResolver, load_characters

    labs = read_labels(path, AliasResolver(load_characters(project / "configs")), media=SAMPLE / "sample.wav")
    assert [(lab.character, lab.start, lab.end) for lab in labs] == [("diane", 6.68, 7.16), ("sheila", 7.634, 8.155)]
    assert parse_time("1:02:03.25") == pytest.approx(3723.25) and format_time(3723.25) == "01:02:03.250"


@pytest.mark.slow
def test_train_and_eval_on_sample(project):
    rows = media_rows(sample_rows(), SAMPLE / "sample.wav")
    seen, train, test = {}, [], []
    for r in rows:
        seen[r[0]] = seen.get(r[0], 0) + 1
        (train if seen[r[0]] <= 2 else test).append(r)
    write_csv(project / "train.csv", train)
    write_csv(project / "test.csv", test)
    p = run(["speakers", "train", "train.csv", "-o", "model", "--threads", "1"], project)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in (project / "model").iterdir()) == ["model.json", "model.npz"]
    p = run(["speakers", "eval", "model", "test.csv", "--png", "cm.png", "--threads", "1"], project)
    assert p.returncode == 0, p.stderr
    acc = float(next(ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("accuracy")))
    assert acc >= 0.9
    assert "coverage" in p.stdout and "sheila" in p.stdout
    assert (project / "cm.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_review_then_apply_fixes_lines_and_grows_labels(project):
    enc = shared_encoder()
    audio = decode_audio(SAMPLE / "sample.wav")
    from extractors.characters import AliasResolver, load_characters

    labs = read_labels(SAMPLE / "sample_labels.csv", AliasResolver(load_characters(project / "configs")))
    model = sid.train_from_labels([labs[0], labs[1], labs[2], labs[4]], lambda m: audio, enc)
    model.save(project / "model")
    lines = [Line("call", str(SAMPLE / "sample.wav"), "call", i, "dialogue", lab.text, start=lab.start, end=lab.end)
             for i, lab in enumerate(labs)]
    labelled = sid.label_lines(lines, audio, project / "model", encoder=enc, accept=0.8)
    write_lines(project / "lines.jsonl", labelled)

    p = run(["speakers", "review", "lines.jsonl", "-o", "review.csv"], project)
    assert p.returncode == 0, p.stderr
    sheet = list(csv.DictReader(open(project / "review.csv", encoding="utf-8")))
    assert len(sheet) == 13
    confs = [float(r["confidence"] or 0) for r in sheet]
    assert confs == sorted(confs)  # least confident first
    assert sheet[0]["start"].startswith("00:00:") and sheet[0]["guess1"] in ("diane", "sheila")
    assert sheet[0]["score1"] and sheet[0]["guess2"]

    # the person answers the three least confident lines (one with an alias-style spelling)
    gold = {f"{lab_line.source}#{lab_line.index}": lab.character for lab_line, lab in zip(lines, labs)}
    for r in sheet[:3]:
        r["character"] = gold[r["key"]].upper()
    with open(project / "review.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(sheet[0]))
        w.writeheader()
        w.writerows(sheet)
    before = (project / "lines.jsonl").read_bytes()
    p = run(["speakers", "apply", "review.csv", "lines.jsonl", "--labels", "more_labels.csv"], project)
    assert p.returncode == 0, p.stderr
    assert (project / "lines.jsonl").read_bytes() != before
    fixed = {f"{ln.source}#{ln.index}": ln for ln in read_lines(project / "lines.jsonl")}
    for r in sheet[:3]:
        ln = fixed[r["key"]]
        assert (ln.speaker, ln.evidence, ln.confidence) == (gold[r["key"]], "manual", 1.0)
    untouched = [fixed[r["key"]] for r in sheet[3:]]
    assert all(ln.evidence != "manual" for ln in untouched)
    new = read_labels(project / "more_labels.csv", AliasResolver(load_characters(project / "configs")))
    assert len(new) == 3 and all(lab.media == (SAMPLE / "sample.wav").resolve() for lab in new)

    # a review naming an unknown character: one-line error, lines.jsonl unchanged
    sheet[4]["character"] = "Bob"
    with open(project / "review.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(sheet[0]))
        w.writeheader()
        w.writerows(sheet)
    before = (project / "lines.jsonl").read_bytes()
    p = run(["speakers", "apply", "review.csv", "lines.jsonl"], project)
    assert_one_line_error(p, "review.csv, row 6", "unknown character 'Bob'")
    assert (project / "lines.jsonl").read_bytes() == before
