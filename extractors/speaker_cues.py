"""Speaker cues shared by the script and wiki parsers: does the text before a colon name a speaker?

`match_cue(line)` reads `Name: words`, `Name：words`, `NAME (aside): words` (the aside becomes a leading
`[aside]`); `kagi_cue(line)` reads the light-novel form `ハルヒ「…」`. `valid_name` is the guard both use:
at most 4 capitalised words or 8 CJK characters, no digits-only like `10:30`, no URL scheme or header word
(`http:`, `Subject:`, `Episode 4:`), no sentence such as `He said:` or `他说：`. `NARRATION_NAMES` are the cue
names of narration (`旁白`, `Narrator`, `scene`).
"""

from __future__ import annotations

import re

CUE_RE = re.compile(
    r"^\s*(?P<name>[^\s:：「」\"“”'‘’\[\]()（）【】#*][^:：「」\"“”\[\]()（）【】\t]{0,39}?)\s*"
    r"(?:[(（\[](?P<paren>[^)）\]]{1,40})[)）\]]\s*)?[:：]\s*(?P<text>.*)$"
)
NARRATION_NAMES = {"旁白", "scene", "narrator", "narration", "场景", "场景描述", "description", "setting", "画面", "叙述"}
URL_SCHEMES = {"http", "https", "ftp", "mailto", "file", "www", "note", "notes", "ps", "p.s", "re", "fw", "fwd", "subject",
               "date", "from", "to", "cc", "tel", "email", "isbn", "doi", "copyright", "translator", "author", "title",
               "chapter", "source", "url", "edition", "language", "release date", "produced by", "posting date",
               # transcript and radio-script headers: `Transcript: "The Lost Key"`, `Written by: ...`
               "transcript", "teleplay", "screenplay", "written by", "story by", "directed by", "transcribed by",
               "transcriber", "air date", "original air date", "aired", "broadcast", "summary", "synopsis", "genre"}
# `Episode 4: "The Keeper's Log"`, `Season 2: ...`: a header, not a speaker
_HEADER_NAME_RE = re.compile(r"^(?:episode|season|series|part|chapter|book|volume|vol\.?|ep\.?)\s*#?\d+[a-z]?$", re.IGNORECASE)

_LOWER_JOINERS = {"of", "the", "de", "la", "le", "du", "von", "van", "der", "da", "di", "al", "bin", "ibn", "and", "&"}
_CJK_SPEECH_VERBS = "说道曰问答叫喊笑云言讲骂叹吼想看听"
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff]")  # kana too: ハルヒ
KAGI_CUE_RE = re.compile(r"^\s*(?P<name>[\u3040-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff·・＝=]{1,8})\s*(?P<text>「.*」|『.*』)\s*$")
_JA_PARTICLES = tuple("はがをにへでもと")
_CJK_PUNCT = re.compile(r"[，。！？、；…—《》]")


def valid_name(name: str) -> bool:
    """Does the text before a colon look like a speaker's name?"""
    name = name.strip()
    if not name or len(name) > 40:
        return False
    low = name.lower()
    if low in URL_SCHEMES or _HEADER_NAME_RE.match(name) or not any(ch.isalpha() for ch in name):
        return False
    if _CJK.search(name):
        if len(name) > 8 or _CJK_PUNCT.search(name) or " " in name:
            return False
        if len(name) >= 2 and name[-1] in _CJK_SPEECH_VERBS:
            return False
        return True
    if re.search(r"[!?,;]", name) or re.search(r"\w{4,}\.\s", name):
        return False
    words = name.split()
    if len(words) > 4:
        return False
    for i, w in enumerate(words):
        if w.lower() in _LOWER_JOINERS and 0 < i:
            continue
        if re.fullmatch(r"#?\d+", w) and i > 0:  # "GUARD 2", "Man #1"
            continue
        if not (w[0].isupper() or w[0] == "(" and len(w) > 1 and w[1].isupper()):
            return False
    return True


def match_cue(line: str) -> tuple[str, str] | None:
    """(name, words) when the line opens with a speaker cue; `NAME (aside): words` drops the aside."""
    m = CUE_RE.match(line)
    if not m:
        return None
    name, text = m.group("name").strip(), m.group("text")
    if m.group("paren"):
        text = f"[{m.group('paren')}] {text}"
    if text.startswith("//") or re.match(r"^\d", text) and re.search(r"\d$", name):
        return None  # URLs, times (10:30), ratios, verse numbers (3:16)
    if name.lower() not in NARRATION_NAMES and not valid_name(name):
        return None
    return name, text


def kagi_cue(line: str) -> tuple[str, str] | None:
    """`ハルヒ「…」` / `春日「…」`: a CJK or kana name right before a quoted line, no colon."""
    m = KAGI_CUE_RE.match(line)
    if not m:
        return None
    name = m.group("name")
    if not valid_name(name) or (len(name) >= 2 and name.endswith(_JA_PARTICLES) and name[-2] not in "ー"):
        return None  # `ハルヒは「…」`: a sentence, not a cue
    return name, m.group("text")
