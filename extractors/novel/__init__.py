"""The novel source kind: chapters -> quotations -> speakers (rules, then optionally an LLM) -> line records.

What code outside this folder may use is exported here (imported on first use, so `import extractors.novel` stays
cheap); everything else is this kind's own.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "CastMember": "cast", "discover_cast": "cast",
    "configured_matches": "cast_others",
    "detect_language": "extract", "extract_novel": "extract", "read_novel": "extract",
    "LLMChoice": "extractor", "configured_for": "extractor",
    "written_forms": "zh_script",
    "load_cue_labels": ("cue_labels", "load_labels"), "score_cues": ("cue_labels", "score"),
    "score_quotes": ("evaluate", "score"),
    "load_pdnc_characters": ("pdnc", "load_characters"), "load_pdnc_quotes": ("pdnc", "load_quotes"),
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    return value  # not cached here: a test that patches the module's function is seen
