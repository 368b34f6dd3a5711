"""Whisper transcription with segment and word timestamps, cached on disk.

Two backends: `openai-whisper` (the reference implementation, PyTorch) and `faster-whisper`
(CTranslate2, several times faster on CPU). `model` is `base` (the bundled offline weights, see
`whisper_weights`), a path (an openai-whisper `.pt` checkpoint, or a CTranslate2 model directory
for faster-whisper), or another Whisper model name (downloaded by the backend; needs internet).

Transcripts are cached as JSON under `<cache_dir>/asr/` keyed by the sha256 of the media file's
content, the backend, the model's identity and the decoding options, so a rerun costs nothing.
Timestamps are made monotonic: a segment never starts before the previous one ended, words stay
inside their segment and in order.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

import numpy as np

from ..atomic import atomic_write_text
from ..errors import InputError
from ..records import Line
from .audio import SAMPLE_RATE, decode_audio
from .whisper_weights import bundled_ct2_dir, bundled_openai_checkpoint, load_openai_whisper, whisper_cache_dir

BACKENDS = ("openai-whisper", "faster-whisper")
BUNDLED_MODEL = "base"
CACHE_VERSION = 1
_SENTENCE_END = re.compile(r"[.?!。？！…]['\"”’)]*$")


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


@functools.lru_cache(maxsize=2)
def load_model(backend: str, model: str, threads: int = 0):
    """The loaded backend model (kept in memory for repeated calls in one process)."""
    if backend == "openai-whisper":
        try:
            import whisper
        except ImportError:
            raise InputError("openai-whisper is not installed: pip install 'rolecorpus[asr]'") from None
        if model == BUNDLED_MODEL:
            return load_openai_whisper(bundled_openai_checkpoint())
        p = Path(model)
        if p.is_file():
            return load_openai_whisper(p)
        if model not in whisper.available_models():
            raise InputError(
                f"unknown Whisper model {model!r}: pass 'base' (bundled, offline), a .pt checkpoint path, "
                f"or one of {', '.join(whisper.available_models())}"
            )
        try:
            return whisper.load_model(model, device="cpu", download_root=str(whisper_cache_dir() / "openai"))
        except Exception as e:  # noqa: BLE001 - network or checksum failure
            raise InputError(f"cannot fetch Whisper model {model!r} ({e.__class__.__name__}); "
                             "offline, use --model base (bundled) or a .pt path") from None
    if backend == "faster-whisper":
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
            path = model
        try:
            return WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=threads)
        except Exception as e:  # noqa: BLE001 - missing files, offline hub
            raise InputError(f"cannot load faster-whisper model {model!r} ({e.__class__.__name__}: {e})") from None
    raise InputError(f"--asr-backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


# ---------------------------------------------------------------------------------------------
# transcription


def _run_openai(model, audio: np.ndarray, language: str | None, beam_size: int, progress: bool) -> dict:
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)  # temperature fallback samples; keep reruns identical
        result = model.transcribe(
            audio, language=language, task="transcribe", fp16=False, word_timestamps=True,
            beam_size=beam_size, best_of=beam_size, verbose=False if progress else None,
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


def _run_faster(model, audio: np.ndarray, language: str | None, beam_size: int, progress: bool) -> dict:
    from tqdm import tqdm

    gen, info = model.transcribe(audio, language=language, task="transcribe", beam_size=beam_size,
                                 word_timestamps=True, vad_filter=False)
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
    backend: str = "openai-whisper",
    model: str = BUNDLED_MODEL,
    language: str | None = None,
    cache_dir: str | Path | None = None,
    audio: np.ndarray | None = None,
    beam_size: int = 5,
    threads: int = 0,
    progress: bool = True,
) -> dict:
    """Transcribe `media`: {"language", "segments": [{start, end, text, words: [{w, s, e, p}]}], ...}.

    With `cache_dir`, the result is read from / written to `<cache_dir>/asr/<key>.json`.
    """
    media = Path(media)
    if not media.is_file():
        raise InputError("no such media file", media)
    key_parts = {
        "v": CACHE_VERSION, "media": sha256_file(media), "backend": backend,
        "model": model_identity(backend, model), "language": language, "beam_size": beam_size,
        "word_timestamps": True,
    }
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()[:32]
    cache_file = Path(cache_dir) / "asr" / f"{key}.json" if cache_dir else None
    if cache_file is not None and cache_file.exists():
        try:
            cached = json.loads(cache_file.read_text(encoding="utf-8"))
            if cached.get("key") == key_parts:
                cached["cached"] = True
                return cached
        except (json.JSONDecodeError, OSError):
            pass  # a damaged cache entry is simply recomputed
    if audio is None:
        audio = decode_audio(media)
    loaded = load_model(backend, model, threads)
    run = _run_openai if backend == "openai-whisper" else _run_faster
    result = run(loaded, audio, language, beam_size, progress)
    segments = [s for s in enforce_monotonic(result["segments"]) if s["text"]]
    out = {"key": key_parts, "backend": backend, "model": model, "language": result["language"],
           "duration": round(len(audio) / SAMPLE_RATE, 3), "segments": segments}
    if cache_file is not None:
        atomic_write_text(cache_file, json.dumps(out, ensure_ascii=False))
    out["cached"] = False
    return out


def _split_on_pauses(seg: dict, pause: float) -> list[dict]:
    """Split a segment after sentence-final words followed by a pause (a likely change of speaker)."""
    words = seg.get("words") or []
    if pause <= 0 or len(words) < 2:
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
    out = []
    for ws in pieces:
        text = " ".join(w["w"] for w in ws).strip()
        out.append({**seg, "start": ws[0]["s"], "end": ws[-1]["e"], "text": text, "words": ws})
    return out


def transcript_to_lines(transcript: dict, work: str, source: str, unit: str, *, split_pause: float = 0.3) -> list[Line]:
    """One dialogue line per segment (split at sentence ends followed by a pause); speaker unknown."""
    lines: list[Line] = []
    for seg in transcript["segments"]:
        for piece in _split_on_pauses(seg, split_pause):
            if not piece["text"]:
                continue
            lines.append(Line(
                work=work, source=source, unit=unit, index=len(lines), kind="dialogue", text=piece["text"],
                start=piece["start"], end=piece["end"],
                extra={"asr": {"backend": transcript["backend"], "model": transcript["model"],
                               "avg_logprob": round(piece.get("avg_logprob", 0.0), 4),
                               "no_speech_prob": round(piece.get("no_speech_prob", 0.0), 4)},
                       "words": piece.get("words", [])},
            ))
    return lines
