"""Export a character package to the ChatHaruhi runtime (`pip install chatharuhi`, 1.0.9).

ChatHaruhi reads the vectors from the column its `embedding=` choice fixes and embeds queries with that choice's
model, so the stories are re-embedded with it (docs/design.md, "ChatHaruhi export"). Anything it cannot do is an
InputError; the file is written atomically, whole or not at all."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import jsonlines
import numpy as np

from extractors.atomic import atomic_open
from extractors.errors import InputError

from .rolefile import read_role_file, role_rows


@dataclass(frozen=True)
class ChatHaruhiEmbedding:
    name: str      # ChatHaruhi(embedding=NAME)
    column: str    # the column its loader decodes
    model: str     # the model its queries are embedded with
    dim: int
    backend: str   # "openai" or "bge"


CHATHARUHI_EMBEDDINGS = {
    "luotuo_openai": ChatHaruhiEmbedding("luotuo_openai", "luotuo_openai", "text-embedding-ada-002", 1536, "openai"),
    "bge_en": ChatHaruhiEmbedding("bge_en", "bge_en_s15", "BAAI/bge-small-en-v1.5", 384, "bge"),
    "bge_zh": ChatHaruhiEmbedding("bge_zh", "bge_zh_s15", "BAAI/bge-small-zh-v1.5", 512, "bge"),
}


def chatharuhi_embedding(name: str) -> ChatHaruhiEmbedding:
    if name not in CHATHARUHI_EMBEDDINGS:
        raise InputError(f"--embedding {name!r} is not one ChatHaruhi knows (use: {', '.join(CHATHARUHI_EMBEDDINGS)})")
    return CHATHARUHI_EMBEDDINGS[name]


def chatharuhi_embedder(target: ChatHaruhiEmbedding, weights: Path | None = None, model: str | None = None):
    """The embedder that puts stories in the space ChatHaruhi's `target` queries live in."""
    if target.backend == "openai":
        if weights is not None:
            raise InputError(f"--weights is for bge_en/bge_zh; --embedding {target.name} uses an OpenAI-compatible endpoint")
        if not (os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
            raise InputError(f"--embedding {target.name} re-embeds the stories with {model or target.model} through an "
                             "OpenAI-compatible endpoint: set OPENAI_BASE_URL and/or OPENAI_API_KEY")
        from .embedders import OpenAIEmbedder

        return OpenAIEmbedder(model=model or target.model)
    if model is not None:
        raise InputError(f"--model is for luotuo_openai; --embedding {target.name} always uses {target.model} (--weights DIR)")
    from .bge import BgeEmbedder, resolve_weights

    return BgeEmbedder(resolve_weights(target.model, weights, f"--embedding {target.name}"))


def _inputs(target: ChatHaruhiEmbedding, texts: list[str]) -> list[str]:
    # ChatHaruhi's OpenAI path (utils.get_embedding_for_english) joins lines with spaces before embedding
    return [t.replace("\n", " ") for t in texts] if target.backend == "openai" else texts


def _check_dim(target: ChatHaruhiEmbedding, dim: int) -> None:
    if dim and dim != target.dim:
        raise InputError(f"the vectors are {dim}-d but ChatHaruhi's {target.name!r} queries are {target.dim}-d "
                         f"({target.model}): those are another model's")


def write_chatharuhi(role_file: str | Path, out: str | Path, target: ChatHaruhiEmbedding, embedder,
                     model: str | None = None) -> tuple[int, int]:
    """Re-embed the stories of `role_file` for `target` and write ChatHaruhi's role file to `out`;
    returns (stories, dimension)."""
    prompt, config, _, texts, _ = read_role_file(role_file)
    _check_dim(target, getattr(embedder, "dim", 0))  # known before encoding for local weights
    vecs = np.asarray(embedder.encode(_inputs(target, texts)), dtype=np.float32)
    if vecs.ndim != 2 or len(vecs) != len(texts):
        raise InputError(f"the embedder returned {vecs.shape} for {len(texts)} stories", role_file)
    _check_dim(target, vecs.shape[1])
    config = dict(config)
    config["embedding"] = {"model": model or target.model, "chatharuhi_embedding": target.name, "column": target.column,
                           "dim": target.dim, "dtype": "float32", "byte_order": "big-endian", "struct": "!f",
                           "encoding": "base64", "normalized": True}
    with atomic_open(out) as fh:
        with jsonlines.Writer(fh, compact=True) as w:
            w.write_all(role_rows(prompt, config, target.column, texts, vecs))
    return len(texts), target.dim
