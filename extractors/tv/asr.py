"""Whisper transcription with segment and word timestamps, cached on disk.

Two backends: `faster-whisper` (the default) and `openai-whisper`; which model and how it loads is
`whisper_models.py`, the lines a transcript becomes `transcript_lines.py`. Transcripts are cached under
`<cache_dir>/asr/`, keyed by the media's content hash, backend, model and every decoding option. Only the
spans Silero VAD hears speech in are decoded (`vad.py`); timestamps are made monotonic.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..cache import ContentCache
from ..errors import InputError
from .audio import SAMPLE_RATE, decode_audio
# re-exported: the kind's __init__, its extractor, benchmarks and tests import these from here; `transcribe`
# calls `load_model` through this module, so a test patching `asr.load_model` is seen
from .transcript_lines import transcript_to_lines  # noqa: F401
from .whisper_models import (  # noqa: F401
    BACKENDS, BUNDLED_MODEL, DEFAULT_BACKEND, check_language, load_model, model_identity, sha256_file,
)

CACHE_VERSION = 2
DEFAULT_TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


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
