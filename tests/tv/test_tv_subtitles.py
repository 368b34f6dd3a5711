"""Subtitle import for `extract tv`: real .srt/.ass/.vtt fixtures, speakers from names, signs and
karaoke dropped, broken timing and undecodable files refused by the CLI with one line and no output."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.characters import AliasResolver, Character, save_character
from extractors.errors import InputError
from extractors.records import read_lines
from extractors.tv.subtitles import is_non_dialogue_style, subtitle_lines
from pipeline.cli_app import app

from cli_asserts import one_line_error

FIX = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "tv"
CHARS = [Character("diane", "Diane", "Telephone call sample", aliases=["Di"]),
         Character("sheila", "Sheila", "Telephone call sample")]


@pytest.fixture(scope="module")
def resolver():
    return AliasResolver(CHARS)


@pytest.fixture()
def project(tmp_path, monkeypatch):
    for ch in CHARS:
        save_character(tmp_path / "configs", ch)
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    """A 12 s tone (real media through ffmpeg) for CLI runs that only import subtitles."""
    if shutil.which("ffmpeg") is None:
        pytest.fail("ffmpeg is not installed (apt-get install ffmpeg)")
    out = tmp_path_factory.mktemp("media") / "episode.wav"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=12",
                    "-ar", "16000", str(out)], check=True)
    return out


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_srt_names_tags_and_split_cues(resolver):
    lines = subtitle_lines(FIX / "episode.srt", "call", resolver=resolver)
    got = [(ln.speaker, ln.name, ln.text, ln.start, ln.end) for ln in lines]
    assert got == [
        ("diane", "DIANE", "Hello?", 1.0, 2.5),
        ("sheila", "Sheila", "Hello?", 3.0, 4.2),  # <i>…</i> stripped before the name prefix is read
        (None, None, "I didn't know you were there.", 4.5, 6.0),  # {\an8} stripped, two rows joined
        (None, None, "Neither did I.", 6.1, 7.9),  # "- a / - b" cue: two speakers, two lines
        (None, None, "Okay, then.", 6.1, 7.9),
        (None, None, "Note: this is not a speaker line, just a remark.", 8.0, 9.0),
    ]
    assert [ln.evidence for ln in lines[:2]] == ["subtitle", "subtitle"] and lines[0].confidence == 1.0
    assert [ln.index for ln in lines] == list(range(6))
    assert lines[0].extra["row"] == 2 and lines[3].extra["shared_cue"]


def test_ass_name_field_signs_songs_karaoke_dropped(resolver):
    lines = subtitle_lines(FIX / "episode.ass", "call", resolver=resolver)
    texts = [ln.text for ln in lines]
    assert texts == ["Hello?", "Hello?", "I didn't know you were there.", "Neither did I."]
    assert [ln.speaker for ln in lines] == ["diane", "sheila", "diane", "sheila"]
    assert all(ln.evidence == "subtitle" for ln in lines)
    joined = " ".join(texts)
    assert "NEW JERSEY" not in joined and "Kimi" not in joined and "la" not in joined.split()
    assert "{" not in joined and "\\" not in joined and "check this timing" not in joined
    assert lines[3].name == "SHEILA"  # the NAME: prefix of an event with an empty Name field


def test_vtt_voice_tags_and_prefixes(resolver):
    lines = subtitle_lines(FIX / "episode.vtt", "call", resolver=resolver)
    assert [(ln.speaker, ln.text, ln.start, ln.end) for ln in lines] == [
        ("diane", "Hello?", 1.0, 2.5), ("sheila", "Hello?", 3.0, 4.2), (None, "I didn't know you were there.", 4.5, 6.0)]


def test_gb18030_subtitles_decode_and_cjk_names():
    lines = subtitle_lines(FIX / "gb18030.srt", "haruhi")
    assert [(ln.speaker, ln.text) for ln in lines] == [("凉宫春日", "你好。"), ("阿虚", "又来了。")]


@pytest.mark.parametrize("style,drop", [("Sign", True), ("Signs-Top", True), ("OP Romaji", True), ("ED_eng", True),
                                        ("Karaoke", True), ("kara-jp", True), ("SongTranslation", True),
                                        ("Title", True), ("Default", False), ("Flashback", False),
                                        ("Dialogue_Modified", False), ("Italics", False), ("Main-Top", False)])
def test_style_names(style, drop):
    assert is_non_dialogue_style(style) is drop


def test_library_errors_name_file_and_row():
    with pytest.raises(InputError) as e:
        subtitle_lines(FIX / "broken_timing.srt", "w")
    assert "broken_timing.srt, row 6" in str(e.value) and "before it starts" in str(e.value)
    with pytest.raises(InputError) as e:
        subtitle_lines(FIX / "unparseable.srt", "w")
    assert "unparseable.srt, row 6" in str(e.value) and "cannot parse" in str(e.value)


def test_cli_imports_named_subtitles(project, media):
    out = project / "lines.jsonl"
    r = invoke("extract", "tv", media, "--work", "call", "-o", out, "--subtitles", FIX / "episode.ass")
    assert r.exit_code == 0, (r.output, r.exception)
    lines = read_lines(out)
    assert [ln.speaker for ln in lines] == ["diane", "sheila", "diane", "sheila"]
    assert all(ln.source == "episode.wav" and ln.unit == "episode" and ln.work == "call" for ln in lines)
    starts = [ln.start for ln in lines]
    assert starts == sorted(starts)


@pytest.mark.parametrize("name,row", [("broken_timing.srt", 6), ("unparseable.srt", 6), ("broken_timing.ass", 7)])
def test_cli_broken_timing_exit_2_no_output(project, media, name, row):
    out = project / "lines.jsonl"
    r = invoke("extract", "tv", media, "--work", "call", "-o", out, "--subtitles", FIX / name)
    one_line_error(r, name, f"row {row}")
    assert not out.exists() and not list(project.glob(".lines.jsonl*"))


def test_cli_undetectable_encoding_asks_for_encoding(project, media):
    rnd = random.Random(1)
    bad = project / "mystery.srt"
    bad.write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\n" + bytes(rnd.randrange(128, 256) for _ in range(300)) + b"\n")
    out = project / "lines.jsonl"
    one_line_error(invoke("extract", "tv", media, "--work", "call", "-o", out, "--subtitles", bad),
                   "mystery.srt", "--encoding")
    assert not out.exists()


def test_cli_wrong_or_unknown_encoding(project, media):
    out = project / "lines.jsonl"
    one_line_error(invoke("extract", "tv", media, "--work", "w", "-o", out, "--subtitles", FIX / "gb18030.srt",
                          "--encoding", "utf-8"), "gb18030.srt", "cannot decode as utf-8")
    one_line_error(invoke("extract", "tv", media, "--work", "w", "-o", out, "--subtitles", FIX / "gb18030.srt",
                          "--encoding", "klingon"), "gb18030.srt", "klingon")
    assert not out.exists()
    r = invoke("extract", "tv", media, "--work", "w", "-o", out, "--subtitles", FIX / "gb18030.srt", "--encoding", "gb18030")
    assert r.exit_code == 0 and read_lines(out)[0].text == "你好。"


def test_cli_subtitles_past_the_media_end(project, media):
    late = project / "late.srt"
    late.write_text("1\n00:00:01,000 --> 00:00:02,000\nHi.\n\n2\n00:10:00,000 --> 00:10:02,000\nBye.\n", encoding="utf-8")
    out = project / "lines.jsonl"
    one_line_error(invoke("extract", "tv", media, "--work", "w", "-o", out, "--subtitles", late), "late.srt", "row 6",
                   "after the end of the media")
    assert not out.exists()


def test_cli_corrupt_and_silent_media(project, tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00\x01not a video" * 100)
    out = project / "lines.jsonl"
    one_line_error(invoke("extract", "tv", junk, "--work", "w", "-o", out, "--subtitles", FIX / "episode.srt"), "junk.mp4")
    silent = tmp_path / "silent.wav"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "3",
                    str(silent)], check=True)
    one_line_error(invoke("extract", "tv", silent, "--work", "w", "-o", out), "silent.wav", "silent")
    assert not out.exists()


def test_sample_named_subtitles_cover_the_stm(repo, project):
    """data/samples/sample_named.srt is the STM transcript: every row, with its speaker."""
    stm = [row.split(None, 5) for row in (repo / "data/samples/sample.stm").read_text().splitlines() if row.strip()]
    lines = subtitle_lines(repo / "data/samples/sample_named.srt", "telephone", resolver=AliasResolver(CHARS))
    assert [(ln.speaker, ln.text, ln.start, ln.end) for ln in lines] == [
        (r[2].lower(), r[5], float(r[3]), float(r[4])) for r in stm]
    plain = subtitle_lines(repo / "data/samples/sample.srt", "telephone", resolver=AliasResolver(CHARS))
    assert [ln.text for ln in plain] == [r[5] for r in stm] and all(ln.speaker is None for ln in plain)
