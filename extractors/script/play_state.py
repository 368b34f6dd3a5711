"""The play parser's input and state: `prepare_lines` (markdown marks, rules, verse numbers and right-aligned
exits handled before the walk), the `State` enum, the `Play` dataclass the walk keeps, and emitting: speeches
(directions cut out of them), actions, a scene's place before its first line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from ..text import CLAUSE_END as _SENTENCE_END
from ..text import clean, join_lines
from .base import Emitter
from .play_cues import _Cues
from .play_structure import SCENE_PLACE_RE, _is_heading

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_MD_QUOTE = re.compile(r"^\s{0,3}>\s?")
_MD_BOLD = re.compile(r"\*\*|__(?=\S)|(?<=\S)__")
_RULE = re.compile(r"^\s*(?:={3,}|-{3,}|\*{3,}|_{3,})\s*$")
# verse line numbers in the right margin (Murray, Jebb): `       The axe-wound, nor the heroes in her red          5`
VERSE_NUMBER_RE = re.compile(r"(?<=\S)\s{6,}\d{1,4}\s*$")
INLINE_DIR_RE = re.compile(r"\[[^\]]*\]|（[^）]*）|\([^)]*\)")
# right-aligned exits after a speech line: "Give you good night.                  Exit."
TRAILING_EXIT_RE = re.compile(
    r"^(?P<head>.*\S)\s{6,}(?P<dir>_?(?:Exit|Exeunt|Exit\s+\w+|Dies|Dying|Falls|Sleeps|Kneels|Sings|Manet|Manent|"
    r"Strophe|Antistrophe|Epode|Mesode)\b[^\[\]]{0,60})$"
)


def _unmarkdown(lines: list[str]) -> list[str]:
    """A play written in markdown (3+ heading/quote/bold lines) read as plain text: marks removed."""
    marked = sum(1 for ln in lines if _MD_HEADING.match(ln) or _MD_QUOTE.match(ln) or ln.lstrip().startswith("**"))
    if marked < 3:
        return lines
    out: list[str] = []
    for i, ln in enumerate(lines):
        if not ln.strip() and i > 0 and re.fullmatch(r"\s*\*\*[^*]+\*\*\s*", lines[i - 1]):
            continue  # `**BERNARDO**`, a blank line, then the speech: keep the cue on the speech
        out.append(_MD_BOLD.sub("", _MD_QUOTE.sub("", _MD_HEADING.sub("", ln))).rstrip())
    return out


def _paren_is_direction(speech: str, m: re.Match) -> bool:
    """Ibsen's `(Puts the bag into her pocket.)` is a direction; Shakespeare's `(as I remember)` is not:
    a direction starts with a capital and opens the speech or follows a sentence end."""
    inner = m.group(0)[1:-1].strip().strip("_")
    before = speech[: m.start()].rstrip()
    return bool(inner) and inner[0].isupper() and (not before or before.endswith(_SENTENCE_END))




def prepare_lines(text: str) -> list[str]:
    """The play's lines: markdown marks and `=====` rules gone, verse numbers dropped, a right-aligned
    `Exit.` after a speech line moved to a line of its own."""
    lines: list[str] = []
    for ln in _unmarkdown(text.split("\n")):
        if _RULE.match(ln):
            continue  # `=====` under a heading, `---` separators
        if "      " in ln:
            ln = VERSE_NUMBER_RE.sub("", ln)
        m = TRAILING_EXIT_RE.match(ln) if "      " in ln else None
        if m and m.group("head").strip() and re.match(r"_?(?:Strophe|Antistrophe|Epode|Mesode)", m.group("dir")):
            # `CHORUS.            _Strophe._`: a heading of the song, the cue keeps its verse below
            lines += [m.group("head"), " " * 40 + "[" + m.group("dir").strip() + "]"]
        elif m and m.group("head").strip():
            lines += [m.group("head"), " " * 40 + m.group("dir").strip()]
        else:
            lines.append(ln)
    return lines


class State(Enum):
    TEXT = "text"  # between speeches
    SPEECH = "speech"  # the previous non-blank line belonged to a speech
    AFTER_HEADING = "after heading"  # a heading without a place: the next line may be the place


@dataclass(slots=True)
class Play:
    lines: list[str]
    cues: _Cues
    out: Emitter
    inline: bool  # cues carry their words (`THE MOTHER. words`): a flush-left paragraph is a direction
    title: str
    i: int = 0  # the next line to read
    state: State = State.TEXT
    act: str | None = None
    scene: str | None = None
    pending_place: str | None = None  # the scene's place, emitted before its first line
    speaker: str | None = None
    speech: list[str] = field(default_factory=list)
    seen_structure: bool = False
    prev_blank: bool = True
    awaiting_words: bool = False  # `CHORUS.` then a blank line, then the song
    manner: bool = False  # the last line was a short `(Haut.)` direction inside someone's speech


# -- emitting ------------------------------------------------------------------------------------------------------

def emit_place(p: Play) -> None:
    if p.pending_place:
        place = p.pending_place.strip()
        if place[:1] in "([" and place[-1:] in ")]":
            place = place[1:-1]  # "(SCENE.--A room furnished comfortably...)"
        if len(place) > 2 and place[0] == "_" and place[-1] == "_":
            place = place[1:-1]  # `_Sale en lo alto de un monte ROSAURA..._` (Gutenberg italics)
        m = SCENE_PLACE_RE.match(place)
        p.out.narrate(m.group("place") if m else place)
        p.pending_place = None


def say(p: Play, text: str) -> None:
    if clean(text):
        emit_place(p)
        p.out.say(p.speaker, text)


def act(p: Play, text: str) -> None:
    if clean(text.replace("_", " ")):
        emit_place(p)
        p.out.act(text)


def close_speech(p: Play) -> None:
    """Emit the speech so far, cutting `[Aside]` and `(Direction.)` out of it as action lines."""
    if p.speaker is None or not p.speech:
        p.speech = []
        return
    joined = join_lines(p.speech)
    p.speech = []
    pos = 0
    for m in INLINE_DIR_RE.finditer(joined):
        if m.group(0)[0] == "(" and not _paren_is_direction(joined, m):
            continue
        say(p, joined[pos : m.start()])
        act(p, m.group(0)[1:-1])
        pos = m.end()
    say(p, joined[pos:])


def set_unit(p: Play) -> None:
    parts = [x for x in (p.act, p.scene) if x]
    p.out.unit = " ".join(parts) if parts else "1"


def take_paragraph(p: Play, first: list[str], stop_marks: tuple[str, ...] = ()) -> list[str]:
    """`first` and the lines below it up to a blank line, a cue, a heading or a line opening with `stop_marks`."""
    buf = list(first)
    while p.i < len(p.lines):
        ln = p.lines[p.i]
        s = ln.strip()
        if not s or p.cues.match(ln) or _is_heading(ln) or (stop_marks and s.startswith(stop_marks)):
            break
        buf.append(s)
        p.i += 1
    return buf
