"""On-disk cache of LLM answers, one JSON file per call, written atomically as each call completes.

The key is sha256 over (model name, full prompt text, chunk text), so a rerun or a run resumed
after Ctrl-C or a crash finds every answer it already paid for. Entries hold the model name,
the raw answer and the token usage; never a key, a base URL or any other client setting.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from ..atomic import atomic_write_text


def cache_key(model: str, prompt: str, chunk: str) -> str:
    h = hashlib.sha256()
    for part in (model, prompt, chunk):
        b = part.encode("utf-8")
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


class AnswerCache:
    """`get(key)` -> dict or None; `put(key, entry)` writes `<dir>/<k[:2]>/<k>.json` atomically."""

    def __init__(self, directory: str | Path):
        self.dir = Path(directory)

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        p = self.path(key)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # a damaged entry is treated as missing and rewritten
            return None
        if not isinstance(data, dict) or not isinstance(data.get("raw"), str):
            return None
        return data

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
        atomic_write_text(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1))
