"""The novel source kind: chapters -> quotations -> speakers (rules, then optionally an LLM) -> line records.

Rooms: `text` (chapters, quotations, the simplified-Chinese copy), `cast` (who is in the book), `attribution` (who
says each quotation), `llm` (the optional LLM pass), `evaluation` (scoring against gold data); `extract.py` is the
one entry point, `extractor.py` the kind behind the extractor contract.

What code outside this folder may use is exported here (imported on first use, so `import extractors.novel` stays
cheap); everything else is this kind's own.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "CastMember": "cast.member", "discover_cast": "cast.discover",
    "configured_matches": "cast.others",
    "detect_language": "extract", "extract_novel": "extract", "read_novel": "extract",
    "LLMChoice": "extractor", "LLMKeep": "extractor", "configured_for": "extractor",
    "written_forms": "text.simplified",
    "load_cue_labels": ("evaluation.cue_labels", "load_labels"), "score_cues": ("evaluation.cue_labels", "score"),
    "score_quotes": ("evaluation.evaluate", "score"),
    "load_pdnc_characters": ("evaluation.pdnc", "load_characters"), "load_pdnc_quotes": ("evaluation.pdnc", "load_quotes"),
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    return value  # not cached here: a test that patches the module's function is seen
