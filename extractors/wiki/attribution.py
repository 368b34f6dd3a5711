"""Who said a quote: what follows its dash (`— Rosalind, "Act IV"`) or sits in a nested item below it.

`split_attribution` separates the name from the episode/work; `parse_attribution` decides whether it is a
person (a name-like speaker or a configured character), a source (a chapter, a work in italics, a year),
or narration, and keeps the episode/context in `extra`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..speaker_cues import NARRATION_NAMES, valid_name
from ..text import clean, unquote
from .markup import _no_marks


_SOURCE_WORDS = re.compile(
    r"^(?:chapter|ch\.|chap\.|act|scene|part|book|volume|vol\.|episode|ep\.|season|series|page|p\.|pp\.|letter|"
    r"canto|stanza|verse|section|issue|line|lines|from|in|source|written|said|quoted|attributed|cited|misattributed|"
    r"第|卷|章)\b",
    re.IGNORECASE,
)
_CONTEXT_RE = re.compile(
    r"^(?P<name>.+?)\s*,?\s+(?P<ctx>(?:to|speaking to|talking to|addressing|about|on|when|after|while|before|"
    r"replying to|in reply to|upon|at|during|as|对|向)\s+.+)$"
)
_NARRATING = {"narrating", "narration", "narrator", "voice-over", "voiceover", "voice over", "旁白"}


def split_attribution(who: str) -> tuple[str, str | None]:
    """'Rosalind, "Act IV"' -> ('Rosalind', 'Act IV'); 'Zhongli (Genshin Impact)' -> ('Zhongli', ...);
    '凉宫春日《凉宫春日的忧郁》' -> ('凉宫春日', '凉宫春日的忧郁')."""
    who = clean(_no_marks(who)).rstrip(".").strip()
    m = re.match(
        r"^(?P<name>[^,，(（\[《]+?)\s*(?:[,，]\s*(?P<ep1>.+)|[(（\[](?P<ep2>.+?)[)）\]]|《(?P<ep4>.+?)》.*"
        r"|\s+in\s+(?P<ep3>[\"“'‘].+))?$",
        who,
    )
    if not m:
        return who, None
    ep = m.group("ep1") or m.group("ep2") or m.group("ep3") or m.group("ep4")
    if ep:
        ep = ep.strip()
        if ep[:1] == "《" and ep[-1:] == "》" and ep.count("《") == 1:
            ep = ep[1:-1]
        ep = unquote(ep).strip() or None  # 'Season 1, Episode 1: "A Study in Scarlet"' keeps its marks
    return m.group("name").strip(), ep


def _looks_like_name(name: str) -> bool:
    if re.fullmatch(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff・ー]{1,10}", name):
        return True  # a Japanese name in kana ('キョン') or kanji
    return valid_name(name) and len(name) <= 40 and not _SOURCE_WORDS.match(name) and not re.search(r"\d{3,}", name)


@dataclass
class Attribution:
    name: str | None  # the speaker, or None when the attribution is a source (a chapter, a work)
    extra: dict
    narrating: bool = False


def parse_attribution(who: str, is_character: Callable[[str], bool] | None = None) -> Attribution:
    """Read what follows a dash or sits in a nested list item under a quote."""
    raw = who.strip()
    if raw.startswith("''") and not raw.startswith("'''"):  # an italic title: a work, not a person
        plain = clean(_no_marks(raw))
        if not (is_character and is_character(split_attribution(plain)[0])):
            return Attribution(None, {"source": plain})
    plain = clean(_no_marks(raw))
    name, ep = split_attribution(plain)
    extra: dict = {}
    m = _CONTEXT_RE.match(name)
    if m and not _looks_like_name(name) and _looks_like_name(m.group("name")):
        name, extra["context"] = m.group("name").strip(), m.group("ctx").strip()
    known = bool(is_character and is_character(name))
    if not known and not _looks_like_name(name):
        return Attribution(None, {"source": plain})
    if ep and re.fullmatch(r"(?:c\.\s*)?\d{3,4}(?:\s*[-–]\s*\d{2,4})?", ep) and not known:
        return Attribution(None, {"source": plain})  # 'The Red-Headed League (1891)': a work and its year
    if name.lower() in NARRATION_NAMES:  # '— Narrator, Chapter 1'
        return Attribution(None, {"source": ep} if ep else {}, narrating=True)
    if ep and ep.lower() in _NARRATING:
        return Attribution(name, {"narrator": name}, narrating=True)
    if ep and re.match(r"(?:(?:to|speaking to|talking to|addressing|about|replying to|in reply to)\s|对|向|和)", ep, re.I):
        extra["context"] = ep  # 'Alice, to the Cheshire Cat'
    elif ep:
        extra["episode"] = ep
    return Attribution(name, extra)

