"""Source kind -> extractor class, as spaCy registers components.

Built-in kinds are one line each in `BUILTIN` ("kind": "module:Class"), imported only when used, so listing
the kinds costs no torch import. A plugin (or a test) adds one with the `register` decorator:

    @register("manga")
    class MangaExtractor: ...
"""

from __future__ import annotations

import importlib
from pathlib import Path

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


WIKI_SUFFIXES = (".html", ".htm", ".xhtml", ".wiki", ".wikitext", ".mediawiki")
MEDIA_SUFFIXES = (".wav", ".mp3", ".flac", ".m4a", ".ogg", ".opus", ".aac", ".mkv", ".mp4", ".avi", ".mov", ".webm",
                  ".m4v", ".ts")


def guess_kind(path: Path | str) -> str:
    """The source kind a file most likely is: a web page is `wiki`, audio or video is `tv`, a text that one of the
    script parsers reads as cues and speeches is `script`, any other text is `novel` (a folder: its files')."""
    path = Path(path)
    if path.is_dir():
        kinds_seen = {guess_kind(f) for f in sorted(path.iterdir()) if f.is_file() and not f.name.startswith(".")}
        if len(kinds_seen) != 1:
            raise InputError("cannot tell the kind of a folder of mixed (or no) files; pass --kind", path)
        return kinds_seen.pop()
    suffix = path.suffix.lower()
    if suffix in WIKI_SUFFIXES:
        return "wiki"
    if suffix in MEDIA_SUFFIXES:
        return "tv"
    if suffix in (".srt", ".ass", ".ssa", ".vtt"):
        raise InputError("a subtitle file alone is no work: add the episode's audio or video file (the subtitles "
                         "beside it, same name, are found)", path)
    from .script import parse_text
    from .textio import read_text

    try:
        parse_text(read_text(path), "auto", path=path)
    except InputError:
        return "novel"
    return "script"
