"""The typed configuration: configs/pipeline.yaml and character files are read by pydantic models whose
defaults are defined once; an unknown key or a wrong type is a one-line error naming the key and the file."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cli_asserts import one_line_error
from extractors.errors import InputError
from extractors.tv.speaker_id import DEFAULTS as SPEAKER_DEFAULTS
from pipeline.segment import Params
from pipeline.settings import SegmentSettings, Settings, SpeakerSettings, load_settings

REPO = Path(__file__).resolve().parents[2]


def run(root: Path, *args):
    env = dict(os.environ, ROLECORPUS_ROOT=str(root), ROLECORPUS_CACHE=str(root / ".cache"))
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def root(tmp_path):
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    return tmp_path


def edit(root: Path, fn) -> Path:
    path = root / "configs" / "pipeline.yaml"
    cfg = yaml.safe_load(path.read_text(encoding="utf-8"))
    fn(cfg)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_the_shipped_config_loads_and_names_every_work_with_its_typed_options():
    s = load_settings(REPO / "configs" / "pipeline.yaml")
    assert {w: spec.kind for w, spec in s.works.items()} == {
        "asyoulik": "script", "alice29": "novel", "sanguo": "novel", "telephone": "tv", "telephone_asr": "tv",
        "jaques_quotes": "wiki", "season_ep1": "tv", "season_ep2": "tv", "season_ep3": "tv"}
    assert s.works["asyoulik"].typed_options("asyoulik").format == "play"
    tv = s.works["telephone"].typed_options("telephone")
    assert str(tv.subtitles) == "data/samples/sample_named.srt" and tv.vad is True and tv.beam_size == 5
    assert s.characters["liubei"].works() == ["sanguo"]
    assert s.characters["jaques"].works() == ["jaques_quotes"] and s.segment.solo == "source"
    assert s.characters["diane"].works() == ["telephone", "telephone_asr"]  # issue 14: a character of two works
    assert s.voices["telephone"].labels == "data/samples/telephone_voices.csv"
    assert s.seasons["season"].names == "data/samples/season/names.csv"  # issue 14: the sample season
    assert s.characters["mira"].works() == ["season_ep1", "season_ep2", "season_ep3"]


def test_defaults_are_defined_once_where_the_code_uses_them():
    assert SegmentSettings().model_dump() == dataclasses.asdict(Params())
    assert {k: v for k, v in SpeakerSettings().model_dump().items() if k != "threads"} == SPEAKER_DEFAULTS
    assert Settings().chat.story_tokens == 1500 and Settings().embed.backend == "use"
    # a missing file or section is all defaults
    assert load_settings(None) == Settings() == load_settings(Path("/nonexistent.yaml"))


@pytest.mark.parametrize("change,needles", [
    (lambda c: c["segment"].update(max_token=400), ["unknown key segment.max_token"]),
    (lambda c: c["segment"].update(max_tokens="lots"), ["segment.max_tokens", "integer"]),
    (lambda c: c["chat"].update(temperature=[1]), ["chat.temperature"]),
    (lambda c: c.update(segmnet={}), ["unknown key segmnet"]),
    (lambda c: c["speakers"].update(acept=0.5), ["unknown key speakers.acept"]),
    (lambda c: c["works"]["asyoulik"]["options"].update(fromat="play"), ["unknown key works.asyoulik.options.fromat"]),
    (lambda c: c["works"]["asyoulik"]["options"].update(format="xml"), ["works.asyoulik.options.format", "'xml'"]),
    (lambda c: c["works"]["asyoulik"].update(kind="manga"), ["works.asyoulik.kind", "unknown source kind 'manga'"]),
    (lambda c: c["works"]["asyoulik"].pop("input"), ["missing key works.asyoulik.input"]),
    (lambda c: c["characters"]["rosalind"].update(wrok="asyoulik"), ["unknown key characters.rosalind.wrok"]),
])
def test_a_bad_key_or_type_is_one_line_error_naming_key_and_file(root, change, needles):
    path = edit(root, change)
    with pytest.raises(InputError) as e:
        load_settings(path)
    for n in [str(path), *needles]:
        assert n in str(e.value), str(e.value)
    # and through the CLI: exit 2, one `error:` line, nothing written
    out = root / "data" / "stories" / "rosalind.jsonl"
    one_line_error(run(root, "segment", "--character", "rosalind", str(REPO / "data/samples/asyoulik.txt")),
                   "pipeline.yaml", needles[0])
    assert not out.exists()


def test_build_lines_refuses_a_bad_config_before_extracting(root):
    edit(root, lambda c: c["segment"].update(max_token=400))
    one_line_error(run(root, "build-lines", "asyoulik"), "pipeline.yaml", "unknown key segment.max_token")
    assert not (root / "data" / "lines" / "asyoulik.jsonl").exists()


@pytest.mark.parametrize("text,needle", [
    ("name: Rosalind\nseries: x\nalias: [Ros]\n", "unknown key alias"),
    ("name: Rosalind\nseries: x\ngender: f\n", "gender"),
    ("name: Rosalind\nseries: x\nnarrator: perhaps\n", "narrator"),
    ("name: Rosalind\nseries: x\nmentions: 40\n", "unknown key mentions"),  # discovery's count, not configuration
    ("series: x\n", "needs at least 'name'"),
])
def test_a_bad_character_file_is_one_line_error_naming_key_and_file(root, text, needle):
    (root / "configs" / "characters" / "rosalind.yaml").write_text(text, encoding="utf-8")
    p = run(root, "segment", "--character", "rosalind", str(REPO / "data/samples/asyoulik.txt"))
    one_line_error(p, "rosalind.yaml", needle)


def test_a_tv_work_without_subtitles_is_declarable_and_dvc_parses_it(root):
    path = edit(root, lambda c: c["works"].update(news={"kind": "tv", "input": "data/samples/sample.wav",
                                                      "options": {"language": "en"}}))
    s = load_settings(path)
    assert s.works["news"].typed_options("news").subtitles is None
    shutil.copy(REPO / "dvc.yaml", root / "dvc.yaml")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(["dvc", "init", "-q"], cwd=root, check=True, env=env)
    p = subprocess.run(["dvc", "stage", "list"], cwd=root, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "lines@news" in p.stdout and "lines@telephone" in p.stdout and "lines@asyoulik" in p.stdout
