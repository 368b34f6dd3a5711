"""Stage parameters from `configs/pipeline.yaml`, merged over built-in defaults."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from extractors.errors import InputError

DEFAULTS: dict = {
    "segment": {
        "max_tokens": 500,        # token budget per story (tiktoken cl100k_base)
        "max_speakers": 4,        # distinct speakers per story, narrator not counted
        "max_narration": 4,       # narration/action lines per story
        "max_gap": 3,             # lines allowed between the other speaker's line and R's reply
        "leading_context": 2,     # lines kept before the prompting line
        "trailing_context": 1,    # lines kept after R's last reply
        "min_reply_chars": 2,     # R's reply must have at least this many characters
    },
    "embed": {
        "backend": "use",         # use (offline Universal Sentence Encoder) | openai
        "model": "text-embedding-3-small",  # only for backend openai
        "threads": 0,             # 0 = all cores
        "batch": 64,
    },
    "chat": {
        "story_tokens": 1500,
        "history_tokens": 1200,
        "model": "gpt-4o-mini",
        "temperature": 0.7,
        "timeout": 60,
    },
    "works": {},
    "characters": {},
}


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def load_settings(path: str | Path | None) -> dict:
    """Defaults merged with the YAML file if it exists."""
    if path is None or not Path(path).exists():
        return copy.deepcopy(DEFAULTS)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise InputError(f"not valid YAML ({e.__class__.__name__})", path) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping of stage names to parameters", path)
    return _merge(DEFAULTS, data)
