"""Pick the script format of a file: run every parser and score how much of the file it explains.

score = (characters of the file a parser read as cues and dialogue) / (non-blank characters),
times a trust factor: the share of dialogue lines whose speaker speaks at least twice (one-off
"speakers" are what a parser invents from prose: `Note: ...`, `He said: ...`), times a brevity
factor (speeches average under 500 characters; prose read as a play gives chapter-long ones).
The screenplay parser also counts its scene headings, and half of its action paragraphs once
the file has a heading, since those are recognised structure too. Parsers that
find fewer than 2 dialogue lines score 0. A file whose best score is under `MIN_SCORE` is not
a script this package can read: `InputError`, so no empty output is ever written.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from ..characters import AliasResolver
from ..errors import InputError
from .base import ParseResult
from .colon import parse_colon
from .play import parse_play
from .screenplay import parse_screenplay

PARSERS: dict[str, Callable[[str, AliasResolver | None], ParseResult]] = {
    "play": parse_play,
    "screenplay": parse_screenplay,
    "colon": parse_colon,
}
FORMATS = ("auto", *PARSERS)
MIN_SCORE = 0.25
MAX_MEAN_SPEECH = 500


def score(result: ParseResult, text: str) -> float:
    dialogue = result.dialogue
    if len(dialogue) < 2:
        return 0.0
    total = sum(len(ln.strip()) for ln in text.split("\n")) or 1
    coverage = min(1.0, result.covered_chars / total)
    counts = Counter(e.cue for e in dialogue)
    repeated = sum(1 for e in dialogue if counts[e.cue] >= 2) / len(dialogue)
    # prose read as a play turns whole chapters into one "speech": real speeches average well
    # under 500 characters (As You Like It: ~150, screenplays: ~60)
    mean_len = sum(len(e.text) for e in dialogue) / len(dialogue)
    brevity = min(1.0, MAX_MEAN_SPEECH / mean_len)
    return coverage * (0.5 + 0.5 * repeated) * brevity


def detect(text: str, resolver: AliasResolver | None = None, path=None) -> tuple[str, ParseResult, dict[str, float]]:
    """Run every parser; return (best format, its result, all scores) or raise InputError."""
    results = {fmt: parse(text, resolver) for fmt, parse in PARSERS.items()}
    scores = {fmt: round(score(r, text), 3) for fmt, r in results.items()}
    best = max(scores, key=lambda f: scores[f])  # ties: dict order (play, screenplay, colon)
    if scores[best] < MIN_SCORE:
        shown = ", ".join(f"{f} {s:.2f}" for f, s in scores.items())
        raise InputError(
            f"cannot recognise a script format (scores: {shown}; need {MIN_SCORE}): no speaker cues like "
            "'NAME<TAB>words', 'NAME. words', 'Name: words' or a screenplay CHARACTER cue were found; "
            "pass --format colon|play|screenplay if it is a script",
            path,
        )
    return best, results[best], scores
