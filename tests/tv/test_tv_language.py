"""Language for `extract tv`: detected or given, passed to whichever Whisper backend, and CJK subtitles.

The audio is made with espeak-ng: Japanese (`ja` voice, kana: its dictionary has no kanji readings) and Chinese
(`yue` voice reading Han characters; the Debian `cmn` voice reads them as English digits). Whisper base detects
the Japanese clip as `ja` and writes Japanese script; espeak's Chinese is detected as Thai by the base model (too
unlike real speech), so the Chinese test gives `--language zh` and checks the text comes back in Han characters.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.characters import AliasResolver, Character, load_characters, save_character
from extractors.errors import InputError
from extractors.records import read_lines
from extractors.tv.asr import DecodeOptions, check_language, transcribe
from extractors.tv.subtitles import subtitle_lines
from pipeline.cli_app import app

pytestmark = pytest.mark.slow
KANA = re.compile(r"[\u3040-\u30ff]")
HAN = re.compile(r"[\u4e00-\u9fff]")
GREEDY = DecodeOptions(beam_size=1, best_of=1, temperatures=(0.0,))  # openai-whisper's fallback on espeak is slow


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed (apt-get install espeak-ng)")
    d = tmp_path_factory.mktemp("cjk")
    clips = {"ja": ("ja", "きょうは いい てんき ですね。いっしょに こうえんへ いきましょう。"),
             "zh": ("yue", "今天天气很好，我们一起去公园散步吧。你想喝茶还是咖啡？")}
    for name, (voice, text) in clips.items():
        subprocess.run(["espeak-ng", "-v", voice, "-s", "140", "-w", str(d / f"{name}.wav"), text], check=True)
    return d


def script_share(text: str, pattern: re.Pattern) -> float:
    chars = [c for c in text if not c.isspace() and not re.match(r"[\W\d_]", c)]
    return sum(bool(pattern.match(c)) for c in chars) / max(len(chars), 1)


def test_japanese_is_detected_and_written_in_japanese(speech):
    tr = transcribe(speech / "ja.wav", language="auto", threads=1, progress=False)  # the default backend
    text = "".join(s["text"] for s in tr["segments"])
    print(f"faster-whisper: detected {tr['language']}: {text}")
    assert tr["backend"] == "faster-whisper" and tr["language"] == "ja"
    assert script_share(text, re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")) >= 0.8 and KANA.search(text)
    assert "ましょう" in text  # "let's go" (いきましょう / 行きましょう)
    ow = transcribe(speech / "ja.wav", backend="openai-whisper", threads=1, progress=False, options=GREEDY)
    print(f"openai-whisper: detected {ow['language']}: {''.join(s['text'] for s in ow['segments'])}")
    assert ow["language"] == "ja" and KANA.search("".join(s["text"] for s in ow["segments"]))


def test_chinese_given_is_passed_to_the_backend(speech, tmp_path, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "zh.jsonl"
    r = CliRunner().invoke(app, ["extract", "tv", str(speech / "zh.wav"), "--work", "zh", "-o", str(out),
                                 "--language", "zh", "--threads", "1"])
    assert r.exit_code == 0, (r.output, r.exception)
    lines = read_lines(out)
    text = "".join(ln.text for ln in lines)
    print(f"--language zh: {text}")
    assert lines and all(ln.extra["asr"]["language"] == "zh" and ln.extra["asr"]["backend"] == "faster-whisper"
                         for ln in lines)
    assert script_share(text, HAN) >= 0.8
    detected = transcribe(speech / "zh.wav", threads=1, progress=False, cache_dir=tmp_path / "cache")
    assert detected["language"] != "zh"  # the base model does not recognise espeak's Chinese: the option matters


def test_language_codes_are_checked(speech, tmp_path, monkeypatch):
    assert check_language("auto") is None and check_language(None) is None and check_language(" JA ") == "ja"
    with pytest.raises(InputError, match="--language must be"):
        check_language("klingon")
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "x.jsonl"
    r = CliRunner().invoke(app, ["extract", "tv", str(speech / "ja.wav"), "--work", "x", "-o", str(out),
                                 "--language", "xx"])
    assert r.exit_code == 2 and "--language must be" in r.stderr and not out.exists(), r.stderr


def test_cjk_subtitles_with_names(tmp_path):
    """Chinese and Japanese .srt (UTF-8, GB18030, UTF-16) through the subtitle path; names before ： resolved."""
    save_character(tmp_path / "configs", Character(id="haruhi", name="Haruhi", series="T",
                                                   aliases=["ハルヒ", "涼宮ハルヒ"], language="ja"))
    save_character(tmp_path / "configs", Character(id="liubei", name="刘备", series="T", aliases=["玄德"],
                                                   language="zh"))
    resolver = AliasResolver(load_characters(tmp_path / "configs"))
    srt = ("1\n00:00:01,000 --> 00:00:02,500\nハルヒ：SOS団を作るわよ！\n\n"
           "2\n00:00:03,000 --> 00:00:04,000\nキョン：なんでだよ。\n\n"
           "3\n00:00:05,000 --> 00:00:06,000\n刘备：吾乃中山靖王之后。\n\n"
           "4\n00:00:07,000 --> 00:00:08,000\n玄德：今日之事，如何是好？\n\n"
           "5\n00:00:09,000 --> 00:00:10,000\n（雨の音）ここはどこ？\n")
    for enc in ("utf-8", "gb18030", "utf-16"):
        if enc == "gb18030":
            body = srt.replace("ハルヒ：SOS団を作るわよ！", "曹操：宁教我负天下人。")
        else:
            body = srt
        path = tmp_path / f"{enc}.srt"
        path.write_bytes(body.encode(enc))
        lines = subtitle_lines(path, "w", resolver=resolver, encoding=enc if enc == "gb18030" else None)
        got = [(ln.speaker, ln.name, ln.text) for ln in lines]
        assert got[2] == ("liubei", "刘备", "吾乃中山靖王之后。") and got[3][0] == "liubei", got
        assert got[4][0] is None and "ここはどこ" in got[4][2]
        if enc != "gb18030":
            assert got[0] == ("haruhi", "ハルヒ", "SOS団を作るわよ！")
            assert got[1][1:] == ("キョン", "なんでだよ。") and got[1][0] not in ("haruhi", "liubei")  # nobody configured
