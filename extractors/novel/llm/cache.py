"""LLM answers in the shared content cache (`extractors.cache`): one JSON entry per answered call.

The key is sha256 over (model name, full prompt text, chunk text), so a rerun or a run resumed
after Ctrl-C or a crash finds every answer it already paid for. Entries hold the model name,
the raw answer and the token usage; never a key, a base URL or any other client setting.
"""

from __future__ import annotations

import time
from pathlib import Path

from extractors.cache import ContentCache, content_key


def cache_key(model: str, prompt: str, chunk: str) -> str:
    return content_key(model, prompt, chunk)


class AnswerCache:
    """`get(key)` -> dict or None; `put(key, ...)` writes `<dir>/<k[:2]>/<k>.json` at once (atomic, fsynced)."""

    def __init__(self, directory: str | Path):
        self.store = ContentCache(directory)
        self.dir = self.store.dir

    def path(self, key: str) -> Path:
        return self.store.path(key)

    def get(self, key: str) -> dict | None:
        return self.store.get(key, lambda d: isinstance(d.get("raw"), str))

    def put(self, key: str, *, model: str, raw: str, tokens_in: int, tokens_out: int, usage_reported: bool) -> None:
        entry = {
            "key": key,
            "model": model,
            "raw": raw,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "usage_reported": usage_reported,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self.store.put(key, entry, indent=1)
