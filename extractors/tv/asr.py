"""Whisper transcription with segment and word timestamps, cached on disk.

Two backends: `faster-whisper` (CTranslate2, several times faster on CPU; the default) and
`openai-whisper` (the reference implementation, PyTorch; `--asr-backend openai-whisper`). `model` is `base` (the bundled offline weights, see
`whisper_weights`), a path (an openai-whisper `.pt` checkpoint, or a CTranslate2 model directory
for faster-whisper), or another Whisper model name (downloaded by the backend; needs internet).

Transcripts are cached as JSON under `<cache_dir>/asr/` (the shared `extractors.cache`) keyed by
the sha256 of the media file's content, the backend, the model's identity and every decoding option (`DecodeOptions`), so a rerun
costs nothing. By default only the spans Silero VAD hears speech in are decoded (`vad.py`).
Timestamps are made monotonic: a segment never starts before the previous one ended, words stay
inside their segment and in order.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from typing import Callable

import numpy as np

from ..cache import ContentCache
from ..errors import InputError
from ..records import Line
from .audio import SAMPLE_RATE, decode_audio
from .whisper_weights import bundled_ct2_dir, bundled_openai_checkpoint, load_openai_whisper, whisper_cache_dir

BACKENDS = ("openai-whisper", "faster-whisper")
# The default: faster-whisper (CTranslate2 int8) transcribes the 30 s sample at real-time factor ~0.12 on one
# thread, openai-whisper at ~0.70, with the same lines (word error rate 0.014 between them, benchmarks/tv_asr.py).
DEFAULT_BACKEND = "faster-whisper"
BUNDLED_MODEL = "base"
CACHE_VERSION = 2
DEFAULT_TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_SENTENCE_END = re.compile(r"[.?!。？！…]['\"”’)]*$")
_NEW_SENTENCE = re.compile(r"(?!I\b|I')[\"“‘(]*[A-Z]")  # a capital that is not the pronoun I


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# model resolution


def model_identity(backend: str, model: str) -> str:
    """A stable id for the cache key: the bundled weights, a file's content hash, or a model name."""
    if backend not in BACKENDS:
        raise InputError(f"--asr-backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if model == BUNDLED_MODEL:
        return "bundled:faster-whisper-base"
    p = Path(model)
    if p.is_file():
        return f"file:{sha256_file(p)}"
    if p.is_dir() and (p / "model.bin").is_file():
        return f"ct2:{sha256_file(p / 'model.bin')}"
    if model.endswith(".pt"):
        raise InputError("no such Whisper checkpoint", model)
    return f"name:{model}"


DEVICES = ("cpu", "cuda")
AUTO_LANGUAGE = ("auto", "detect", "")


@functools.lru_cache(maxsize=1)
def whisper_languages() -> frozenset[str]:
    """The language codes Whisper knows (en, zh, ja, ...), from whichever backend is installed (empty: neither)."""
    try:
        from faster_whisper.tokenizer import _LANGUAGE_CODES as codes
    except ImportError:
        try:
            from whisper.tokenizer import LANGUAGES as codes
        except ImportError:
            return frozenset()
    return frozenset(codes)


def check_language(language: str | None) -> str | None:
    """A Whisper language code, or None (detect) for None / 'auto'; an unknown code is an InputError."""
    if language is None or language.strip().lower() in AUTO_LANGUAGE:
        return None
    code = language.strip().lower()
    known = whisper_languages()
    if known and code not in known:
        raise InputError(f"--language must be 'auto' or a language code Whisper knows (en, zh, ja, ko, fr, ...; "
                         f"{len(known)} in all), not {language!r}")
    return code


def _check_device(device: str) -> None:
    if device not in DEVICES:
        raise InputError(f"--device must be one of {', '.join(DEVICES)}, not {device!r}")
    if device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise InputError("--device cuda: no CUDA GPU is visible here (use --device cpu)")


def _load_openai(model: str, device: str):
    try:
        import whisper
    except ImportError:
        raise InputError("openai-whisper is not installed: pip install 'rolecorpus[asr]'") from None
    if model == BUNDLED_MODEL:
        return load_openai_whisper(bundled_openai_checkpoint(), device=device)
    p = Path(model)
    if p.is_file():
        return load_openai_whisper(p, device=device)
    if model not in whisper.available_models():
        raise InputError(
            f"unknown Whisper model {model!r}: pass 'base' (bundled, offline), a .pt checkpoint path, "
            f"or one of {', '.join(whisper.available_models())}"
        )
    root = whisper_cache_dir() / "openai"
    try:
        return whisper.load_model(model, device=device, download_root=str(root))
    except Exception as e:  # noqa: BLE001 - network or checksum failure
        url = getattr(whisper, "_MODELS", {}).get(model, "")
        raise InputError(f"Whisper model {model!r} is not on this machine and cannot be fetched "
                         f"({e.__class__.__name__}): download {url or 'its .pt checkpoint'} into {root} "
                         "(or pass --model PATH.pt); --model base is bundled and works offline") from None


def _load_faster(model: str, threads: int, device: str, compute_type: str):
    try:
        from faster_whisper import WhisperModel
    except ImportError:
        raise InputError("faster-whisper is not installed: pip install 'rolecorpus[asr]'") from None
    if model == BUNDLED_MODEL:
        path = str(bundled_ct2_dir())
    else:
        p = Path(model)
        if p.is_file():
            raise InputError("faster-whisper needs a CTranslate2 model directory, not a file "
                             "(use --asr-backend openai-whisper for .pt checkpoints)", p)
        from faster_whisper.utils import available_models

        if not p.is_dir() and "/" not in model and model not in available_models():
            raise InputError(f"unknown Whisper model {model!r}: pass 'base' (bundled, offline), a CTranslate2 model "
                             f"directory, or one of {', '.join(available_models())}")
        path = model
    compute = compute_type if compute_type != "default" else ("int8" if device == "cpu" else "float16")
    try:
        return WhisperModel(path, device=device, compute_type=compute, cpu_threads=threads)
    except Exception as e:  # noqa: BLE001 - missing files, offline hub
        if Path(model).is_dir():
            raise InputError(f"cannot load faster-whisper model ({e.__class__.__name__}: {e})", model) from None
        raise InputError(f"Whisper model {model!r} is not on this machine ({e.__class__.__name__}): download it "
                         f"once, online, with `python -c \"import faster_whisper; faster_whisper.download_model("
                         f"'{model}')\"` (Hugging Face cache, Systran/faster-whisper-{model}) or pass --model DIR "
                         "(a CTranslate2 folder); --model base is bundled and works offline") from None


@functools.lru_cache(maxsize=2)
def load_model(backend: str, model: str, threads: int = 0, device: str = "cpu", compute_type: str = "default"):
    """The loaded model (memoised) on `device`; faster-whisper's `compute_type` default: int8 cpu, float16 cuda."""
    _check_device(device)
    if backend == "openai-whisper":
        return _load_openai(model, device)
    if backend == "faster-whisper":
        return _load_faster(model, threads, device, compute_type)
    raise InputError(f"--asr-backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


# ---------------------------------------------------------------------------------------------
# decoding options


@dataclass(frozen=True)
class DecodeOptions:
    """Whisper decoding options shared by both backends; every field is part of the cache key.

    The defaults are Whisper's own (beam 5, best-of 5, temperature fallback 0..1 with the
    compression-ratio / log-prob / no-speech checks, conditioning on the previous window), plus
    `vad`: decode only the spans Silero VAD finds speech in (gaps of `vad_min_silence` s or more
    are skipped). On the real telephone sample, whose first 6.5 s are line noise, the VAD spans
    took openai-whisper's whisper-normalised WER from 0.207 to 0.138 (mean over three cuts of the
    file 0.203 -> 0.149) and stopped the decoder's one-second-timestamp loop; clean speech is
    unchanged (benchmarks/tv_wer.py). Word timestamps are always on: lines carry their words.
    """

    beam_size: int = 5
    best_of: int = 5
    patience: float | None = None
    temperatures: tuple[float, ...] = DEFAULT_TEMPERATURES
    condition_on_previous_text: bool = True
    compression_ratio_threshold: float | None = 2.4
    log_prob_threshold: float | None = -1.0
    no_speech_threshold: float | None = 0.6
    initial_prompt: str | None = None
    vad: bool = True
    vad_min_silence: float = 2.0
    vad_pad: float = 0.4

    def __post_init__(self):
        if self.beam_size < 1 or self.best_of < 1:
            raise InputError(f"beam size and best-of must be at least 1 (got {self.beam_size}, {self.best_of})")
        temps = tuple(float(t) for t in self.temperatures)
        if not temps or any(t < 0 for t in temps):
            raise InputError(f"temperatures must be a non-empty list of numbers >= 0, not {self.temperatures!r}")
        object.__setattr__(self, "temperatures", temps)

    def key(self) -> dict:
        d = dataclasses.asdict(self)
        d["temperatures"] = list(self.temperatures)
        if not self.vad:
            d.pop("vad_min_silence"), d.pop("vad_pad")
        return d


def _clips(audio: np.ndarray, opts: DecodeOptions) -> list[float] | None:
    """Whisper `clip_timestamps` from the VAD's speech spans (None: the whole file)."""
    if not opts.vad:
        return None
    from .vad import speech_regions

    spans = speech_regions(audio, min_silence=opts.vad_min_silence, pad=opts.vad_pad)
    if not spans:  # the VAD heard nothing: let Whisper judge the whole file
        return None
    # Whisper seeks in 10 ms mel frames and loops forever on a clip that ends past the last frame
    last = (len(audio) // 160) / 100
    clips = []
    for s, e in spans:
        e = min(e, last)
        if e - s >= 0.05:
            clips += [s, e]
    return clips or None


# ---------------------------------------------------------------------------------------------
# transcription


def _run_openai(model, audio: np.ndarray, language: str | None, opts: DecodeOptions, clips, progress: bool) -> dict:
    import torch

    temperature = opts.temperatures if len(opts.temperatures) > 1 else opts.temperatures[0]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)  # temperature fallback samples; keep reruns identical
        result = model.transcribe(
            audio, language=language, task="transcribe", fp16=False, word_timestamps=True,
            beam_size=opts.beam_size, best_of=opts.best_of, patience=opts.patience, temperature=temperature,
            condition_on_previous_text=opts.condition_on_previous_text,
            compression_ratio_threshold=opts.compression_ratio_threshold,
            logprob_threshold=opts.log_prob_threshold, no_speech_threshold=opts.no_speech_threshold,
            initial_prompt=opts.initial_prompt, clip_timestamps=clips if clips else "0",
            verbose=False if progress else None,
        )
    segments = []
    for s in result["segments"]:
        segments.append({
            "start": float(s["start"]), "end": float(s["end"]), "text": s["text"].strip(),
            "avg_logprob": float(s.get("avg_logprob", 0.0)), "no_speech_prob": float(s.get("no_speech_prob", 0.0)),
            "words": [{"w": w["word"].strip(), "s": float(w["start"]), "e": float(w["end"]),
                       "p": round(float(w.get("probability", 0.0)), 4)} for w in s.get("words", [])],
        })
    return {"language": result.get("language"), "segments": segments}


def _run_faster(model, audio: np.ndarray, language: str | None, opts: DecodeOptions, clips, progress: bool) -> dict:
    import ctranslate2
    from tqdm import tqdm

    ctranslate2.set_random_seed(0)  # temperature fallback samples; keep reruns identical
    gen, info = model.transcribe(
        audio, language=language, task="transcribe", word_timestamps=True, vad_filter=False,
        beam_size=opts.beam_size, best_of=opts.best_of, patience=opts.patience or 1.0,
        temperature=list(opts.temperatures), condition_on_previous_text=opts.condition_on_previous_text,
        compression_ratio_threshold=opts.compression_ratio_threshold, log_prob_threshold=opts.log_prob_threshold,
        no_speech_threshold=opts.no_speech_threshold, initial_prompt=opts.initial_prompt,
        clip_timestamps=clips if clips else "0",
    )
    total = round(len(audio) / SAMPLE_RATE, 2)
    segments = []
    with tqdm(total=total, unit="s", desc="faster-whisper", disable=not progress, leave=False) as bar:
        for s in gen:
            segments.append({
                "start": float(s.start), "end": float(s.end), "text": s.text.strip(),
                "avg_logprob": float(s.avg_logprob), "no_speech_prob": float(s.no_speech_prob),
                "words": [{"w": w.word.strip(), "s": float(w.start), "e": float(w.end),
                           "p": round(float(w.probability), 4)} for w in (s.words or [])],
            })
            bar.update(max(0.0, min(total, float(s.end)) - bar.n))
    return {"language": info.language, "segments": segments}


def enforce_monotonic(segments: list[dict]) -> list[dict]:
    """Clamp times so nothing goes backwards: segments in order and non-overlapping, words inside them."""
    out, t = [], 0.0
    for seg in segments:
        s = max(float(seg["start"]), t)
        e = max(float(seg["end"]), s)
        words, wt = [], s
        for w in seg.get("words", []):
            ws = max(float(w["s"]), wt)
            we = max(float(w["e"]), ws)
            words.append({**w, "s": round(ws, 3), "e": round(we, 3)})
            wt = we
        e = max(e, wt)
        out.append({**seg, "start": round(s, 3), "end": round(e, 3), "words": words})
        t = e
    return out


def transcribe(
    media: str | Path,
    *,
    backend: str = DEFAULT_BACKEND,
    model: str = BUNDLED_MODEL,
    language: str | None = None,
    cache_dir: str | Path | None = None,
    audio: np.ndarray | None = None,
    options: DecodeOptions | None = None,
    beam_size: int | None = None,
    threads: int = 0,
    progress: bool = True,
    loader: Callable[[], object] | None = None,
) -> dict:
    """Transcribe `media`: {"language", "segments": [{start, end, text, words: [{w, s, e, p}]}], "clips", ...}.

    `language`: a Whisper language code (en, zh, ja, ...) both backends are told to transcribe in, or None /
    'auto' to let Whisper detect it (the detected code is returned as "language").

    `options` are the decoding options (`DecodeOptions()` when None); `beam_size` overrides its beam
    size (and best-of). With `cache_dir`, the result is read from / written to
    `<cache_dir>/asr/<key>.json`, keyed by the file's content hash, backend, model and every option.
    `loader()` returns the loaded Whisper model (the pipeline hands it in; called only on a cache miss);
    without it the model is loaded here (`load_model`, memoised).
    """
    media = Path(media)
    if not media.is_file():
        raise InputError("no such media file", media)
    language = check_language(language)
    opts = options or DecodeOptions()
    if beam_size is not None:
        opts = dataclasses.replace(opts, beam_size=beam_size, best_of=beam_size)
    key_parts = {
        "v": CACHE_VERSION, "media": sha256_file(media), "backend": backend,
        "model": model_identity(backend, model), "language": language, "word_timestamps": True,
        **opts.key(),
    }
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()[:32]
    cache = ContentCache(Path(cache_dir) / "asr", shard=False) if cache_dir else None
    cached = cache.get(key, lambda d: d.get("key") == key_parts) if cache else None
    if cached is not None:
        cached["cached"] = True
        return cached
    if audio is None:
        audio = decode_audio(media)
    loaded = loader() if loader is not None else load_model(backend, model, threads)
    clips = _clips(audio, opts)
    run = _run_openai if backend == "openai-whisper" else _run_faster
    result = run(loaded, audio, language, opts, clips, progress)
    segments = [s for s in enforce_monotonic(result["segments"]) if s["text"]]
    out = {"key": key_parts, "backend": backend, "model": model, "language": result["language"],
           "duration": round(len(audio) / SAMPLE_RATE, 3), "clips": clips, "segments": segments}
    if cache is not None:
        cache.put(key, out)
    out["cached"] = False
    return out


def _split_on_pauses(seg: dict, pause: float) -> list[dict]:
    """Split a segment after sentence-final words followed by a gap of at least `pause` s (None: never).

    A change of speaker almost always falls at a sentence end, often with no audible gap (the sample
    call's turns are 40 ms apart), so the default splits at every sentence end.
    """
    words = seg.get("words") or []
    if pause is None or len(words) < 2:
        return [seg]
    pieces, cur = [], []
    for i, w in enumerate(words):
        cur.append(w)
        nxt = words[i + 1] if i + 1 < len(words) else None
        if nxt is not None and _SENTENCE_END.search(w["w"]) and nxt["s"] - w["e"] >= pause:
            pieces.append(cur)
            cur = []
    if cur:
        pieces.append(cur)
    if len(pieces) == 1:
        return [seg]
    return [_piece(seg, ws) for ws in pieces]


def _piece(seg: dict, words: list[dict]) -> dict:
    text = " ".join(w["w"] for w in words).strip()
    return {**seg, "start": words[0]["s"], "end": words[-1]["e"], "text": text, "words": words}


def _join_broken_sentences(pieces: list[dict], gap: float = 0.3) -> list[dict]:
    """Rejoin a sentence Whisper cut at a segment boundary ("... At" | "least, you know ...").

    The next piece must follow within `gap` s and start in lower case; "... heard a beep" | "This is"
    stays two lines.
    """
    out: list[dict] = []
    for p in pieces:
        prev = out[-1] if out else None
        if (prev is not None and prev.get("words") and p.get("words") and p is not prev
                and not _SENTENCE_END.search(prev["words"][-1]["w"]) and p["start"] - prev["end"] < gap
                and not _NEW_SENTENCE.match(p["words"][0]["w"])):  # Whisper capitalises a new sentence
            out[-1] = _piece(prev, prev["words"] + p["words"])
        else:
            out.append(p)
    return out


def transcript_to_lines(transcript: dict, work: str, source: str, unit: str, *, split_pause: float | None = 0.0) -> list[Line]:
    """One dialogue line per sentence (split at sentence ends with a gap >= split_pause); speaker unknown."""
    pieces = [piece for seg in transcript["segments"] for piece in _split_on_pauses(seg, split_pause)]
    lines: list[Line] = []
    for piece in _join_broken_sentences(pieces):
        if not piece["text"]:
            continue
        lines.append(Line(
            work=work, source=source, unit=unit, index=len(lines), kind="dialogue", text=piece["text"],
            start=piece["start"], end=piece["end"],
            extra={"asr": {"backend": transcript["backend"], "model": transcript["model"],
                           "language": transcript.get("language"),
                           "avg_logprob": round(piece.get("avg_logprob", 0.0), 4),
                           "no_speech_prob": round(piece.get("no_speech_prob", 0.0), 4)},
                   "words": piece.get("words", [])},
        ))
    return lines
