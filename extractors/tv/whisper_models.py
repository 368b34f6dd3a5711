"""Whisper models for `asr.py`: which backend and weights, the language and device checks, and loading.

`model` is `base` (the bundled offline weights, see `whisper_weights`), a path (an openai-whisper `.pt`
checkpoint, or a CTranslate2 model directory for faster-whisper), or another Whisper model name (downloaded
by the backend; needs internet).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ..errors import InputError
from .whisper_weights import bundled_ct2_dir, bundled_openai_checkpoint, load_openai_whisper, whisper_cache_dir

BACKENDS = ("openai-whisper", "faster-whisper")
# The default: faster-whisper (CTranslate2 int8) transcribes the 30 s sample at real-time factor ~0.12 on one
# thread, openai-whisper at ~0.70, with the same lines (word error rate 0.014 between them, benchmarks/tv_asr.py).
DEFAULT_BACKEND = "faster-whisper"
BUNDLED_MODEL = "base"


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


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
