"""The one on-disk cache: content-addressed JSON entries, each written durably the moment it is put.

Used for LLM answers, Whisper transcripts and story vectors. An entry is `<dir>/<key[:2]>/<key>.json`, written
atomically, so a run killed at any moment keeps every entry it finished; a damaged entry counts as missing.
Layout and guarantees: docs/design.md, "Errors, interrupts and caches"."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Callable

from .atomic import atomic_write_text, clean_orphans


def content_key(*parts: str | bytes) -> str:
    """sha256 over the parts, each length-prefixed (so ("ab", "c") and ("a", "bc") differ)."""
    h = hashlib.sha256()
    for part in parts:
        b = part.encode("utf-8") if isinstance(part, str) else bytes(part)
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


class ContentCache:
    """JSON entries under `directory`: `<key[:2]>/<key>.json` (`shard=True`) or `<key>.json`."""

    def __init__(self, directory: str | Path, *, shard: bool = True):
        self.dir = Path(directory)
        self.shard = shard
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self.orphans_removed = clean_orphans(self.dir, recursive=True)  # temp files of a killed earlier run

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json" if self.shard else self.dir / f"{key}.json"

    def get(self, key: str, valid: Callable[[dict], bool] | None = None) -> dict | None:
        """The entry, or None when it is missing, damaged, or `valid(entry)` is false."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # missing, or damaged: recomputed and rewritten
            data = None
        ok = isinstance(data, dict) and (valid is None or valid(data))
        with self._lock:
            if ok:
                self.hits += 1
            else:
                self.misses += 1
        return data if ok else None

    def put(self, key: str, entry: dict, *, indent: int | None = None) -> None:
        """Write the entry durably now (atomic rename after fsync)."""
        atomic_write_text(self.path(key), json.dumps(entry, ensure_ascii=False, indent=indent))
