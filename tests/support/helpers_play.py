"""Shared fixtures' helpers: the As You Like It sample parsed with the real play parser."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from extractors.characters import AliasResolver, Character

REPO = Path(__file__).resolve().parents[2]
PLAY = REPO / "data" / "samples" / "asyoulik.txt"

CHARACTERS = [
    Character("rosalind", "Rosalind", "As You Like It", aliases=["ROSALIND", "Ganymede"], gender="female"),
    Character("orlando", "Orlando", "As You Like It", aliases=["ORLANDO"], gender="male"),
    Character("celia", "Celia", "As You Like It", aliases=["CELIA", "Aliena"], gender="female"),
]


def resolver() -> AliasResolver:
    return AliasResolver(CHARACTERS)


@lru_cache(maxsize=1)
def play_lines():
    from extractors.script import extract_script

    lines, fmt = extract_script(PLAY, "asyoulik", fmt="play", resolver=resolver())
    return tuple(lines)
