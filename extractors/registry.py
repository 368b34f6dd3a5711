"""Source kind -> extractor class, as spaCy registers components.

Built-in kinds are one line each in `BUILTIN` ("kind": "module:Class"), imported only when used, so listing
the kinds costs no torch import. A plugin (or a test) adds one with the `register` decorator:

    @register("manga")
    class MangaExtractor: ...
"""

from __future__ import annotations

import importlib

from .errors import InputError

BUILTIN: dict[str, str] = {
    "script": "extractors.script.extractor:ScriptExtractor",
    "wiki": "extractors.wiki.extractor:WikiExtractor",
    "novel": "extractors.novel.extractor:NovelExtractor",
    "tv": "extractors.tv.extractor:TvExtractor",
}

_REGISTRY: dict[str, object] = dict(BUILTIN)


def register(kind: str):
    """Class decorator: make `rolecorpus extract KIND` and `works: {kind: KIND}` use this extractor."""

    def deco(cls):
        cls.kind = kind
        _REGISTRY[kind] = cls
        return cls

    return deco


def kinds() -> list[str]:
    """The registered source kinds, built-ins first."""
    return list(_REGISTRY)


def get_extractor(kind: str):
    """The extractor class of a kind (imported on first use); InputError for an unknown kind."""
    entry = _REGISTRY.get(kind)
    if entry is None:
        raise InputError(f"unknown source kind {kind!r} (known: {', '.join(_REGISTRY)})")
    if isinstance(entry, str):
        module, _, name = entry.partition(":")
        entry = getattr(importlib.import_module(module), name)
        _REGISTRY[kind] = entry
    return entry
