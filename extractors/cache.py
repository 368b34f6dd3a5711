"""The one on-disk cache: content-addressed JSON entries, each written durably the moment it is put.

Used for LLM answers (`novel/llm_cache.py`), Whisper transcripts (`tv/asr.py`) and story vectors
(`pipeline/embedders.py`). An entry is one JSON file named by the sha256 of what produced it, written
to a temporary sibling, fsynced and renamed into place (`atomic.atomic_write_text`), so a run killed
at any moment keeps every entry it finished and never leaves half of one; a rerun finds them all.
A damaged or unreadable entry counts as missing and is simply rewritten. `hits` and `misses` are
counted (thread-safe) for the callers' metrics. Opening a cache removes the temporary files a killed
run left in it (`atomic.clean_orphans`).

Usage::

    cache = ContentCache(project.cache / "llm")                # <dir>/<key[:2]>/<key>.json
    key = content_key(model, prompt, chunk)
    entry = cache.get(key)                                      # dict or None
    if entry is None:
        cache.put(key, {"raw": answer, ...})
"""

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
