"""The Jinja2 templates of the studio and the static report, and the stylesheet to inline into a static page."""

from __future__ import annotations

import functools
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"


@functools.lru_cache(maxsize=1)
def templates():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    return Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))


def inline_css() -> str:
    return (STATIC / "studio.css").read_text(encoding="utf-8")
