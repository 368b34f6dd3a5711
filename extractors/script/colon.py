"""Colon scripts: `Name: words`, `Name：words`, `Name:「words」` (ChatHaruhi's own text form).

- `旁白:…`, `scene:…`, `Narrator:…` (and 场景/画外 descriptions) are `narration` lines;
- stand-alone `[...]`, `(...)`, `（…）`, `【…】` lines are `action` lines;
- a line right below a speech that carries no cue continues it when the speech stopped
  mid-sentence (wrapped text); any other untagged line is `narration`;
- a cue alone on its line (`First Citizen:`, the tiny-shakespeare layout) opens a block: every
  line below it up to the next blank line is that speech, whatever its punctuation;
- directions inside a speech (`Ross: (mortified) Hi.`, `[to Joey]`, `（笑）`) are cut out as
  `action` lines in place: brackets anywhere, parentheses at the start or end of the speech
  or after a sentence end (a parenthesis inside a sentence stays in the words);
- scene markers on their own line (`Scene 2`, `## Act 1`, `第二幕`, `第3场`, `[Scene: …]`)
  start a new unit; without any, the unit is "1";
- a voice mark after the name (`KIRK [OC]:`, `JERRY (V.O.):`) goes to `extra.extension`, not
  to an action line;
- false positives are guarded against: the name before the colon must look like a name (at
  most 4 capitalised words or 8 CJK characters, no digits-only like `10:30`, no URL scheme
  like `http:`, no sentence such as `He said:` or `他说：`).
"""

from __future__ import annotations

import re

from ..characters import AliasResolver
from .base import Emitter, ParseResult, join_lines

CUE_RE = re.compile(
    r"^\s*(?P<name>[^\s:：「」\"“”'‘’\[\]()（）【】#*][^:：「」\"“”\[\]()（）【】\t]{0,39}?)\s*"
    r"(?:[(（\[](?P<paren>[^)）\]]{1,40})[)）\]]\s*)?[:：]\s*(?P<text>.*)$"
)
NARRATION_NAMES = {"旁白", "scene", "narrator", "narration", "场景", "场景描述", "description", "setting", "画面", "叙述"}
URL_SCHEMES = {"http", "https", "ftp", "mailto", "file", "www", "note", "notes", "ps", "p.s", "re", "fw", "fwd", "subject",
               "date", "from", "to", "cc", "tel", "email", "isbn", "doi", "copyright", "translator", "author", "title",
               "chapter", "source", "url", "edition", "language", "release date", "produced by", "posting date"}
_LOWER_JOINERS = {"of", "the", "de", "la", "le", "du", "von", "van", "der", "da", "di", "al", "bin", "ibn", "and", "&"}
_CJK_SPEECH_VERBS = "说道曰问答叫喊笑云言讲骂叹吼想看听"
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CJK_PUNCT = re.compile(r"[，。！？、；…—《》]")
SCENE_MARK_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:(?P<kw>scene|act|part|episode)\s+(?P<num>[IVXLCivxlc]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    r"[\s.,:\-–—]*(?P<rest>.*)|(?P<zh>第[一二三四五六七八九十百零〇\d]+[幕场場集章回节節])\s*(?P<zhrest>.*))$",
    re.IGNORECASE,
)
# directions inside a speech: "Ross: (mortified) Hi.", "春日:（笑）好啊", "[to Joey] Hey"
INLINE_DIRECTION_RE = re.compile(r"\[[^\]]*\]|\([^)]*\)|（[^）]*）|【[^】]*】")
# screen/transcript voice marks after a name: `KIRK [OC]:`, `JERRY (V.O.):`, `ROSS (CONT'D):`
EXTENSION_RE = re.compile(r"^\s*(?:V\.?\s?O|O\.?\s?S|O\.?\s?C|CONT'?D|CONT|cont'd|on ?screen|on viewscreen|on phone|OFF|voice ?over|"
                          r"off|v\.?o|o\.?s|o\.?c)\.?\s*$")
_MARKDOWN_BOLD = re.compile(r"\*\*|__")
BRACKET_PAIRS = {"[": "]", "(": ")", "（": "）", "【": "】", "〔": "〕"}
_SENTENCE_END = tuple(".!?。！？」』\"”…~～")
QUOTE_PAIRS = {"「": "」", "『": "』", "“": "”", '"': '"', "‘": "’"}


def valid_name(name: str) -> bool:
    """Does the text before a colon look like a speaker's name?"""
    name = name.strip()
    if not name or len(name) > 40:
        return False
    low = name.lower()
    if low in URL_SCHEMES or not any(ch.isalpha() for ch in name):
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


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in QUOTE_PAIRS and text.endswith(QUOTE_PAIRS[text[0]]):
        inner = text[1:-1]
        if text[0] not in inner and QUOTE_PAIRS[text[0]] not in inner:
            return inner.strip()
    return text


def _bracketed(s: str) -> str | None:
    if s and s[0] in BRACKET_PAIRS and s.endswith(BRACKET_PAIRS[s[0]]):
        return s[1:-1]
    return None


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


def parse_colon(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a `Name: words` script into events (resolver unused: names are as written)."""
    out = Emitter("colon", unit="1")
    lines = text.split("\n")
    # tiny-shakespeare layout: `First Citizen:` alone on its line, the speech below it up to a
    # blank line. When most cues stand alone, a speech line that looks like a cue ("Marcius: ...")
    # does not interrupt such a block.
    cues = [c for c in (match_cue(_MARKDOWN_BOLD.sub("", ln)) for ln in lines) if c]
    alone_layout = len(cues) >= 2 and sum(1 for _, w in cues if not w.strip()) >= 0.8 * len(cues)
    block = False  # inside the speech of a cue that stood alone on its line
    scene_count = 0
    act: str | None = None
    last_dialogue: tuple[str, list[str]] | None = None  # (cue, words) of the open speech
    extension = ""  # `KIRK [OC]:`, `JERRY (V.O.):` -> extra.extension of the open speech
    prev_blank = True

    def flush() -> None:
        nonlocal last_dialogue
        if last_dialogue:
            cue, words = last_dialogue[0], unquote(join_lines(last_dialogue[1]))
            extra = {"extension": extension} if extension else {}
            pos = 0
            for m in INLINE_DIRECTION_RE.finditer(words):
                before = words[pos : m.start()].strip()
                paren = m.group(0)[0] != "["
                at_edge = not before or before.endswith(_SENTENCE_END + ("—", "-")) or not words[m.end() :].strip()
                if paren and not (at_edge or not words[:m.start()].strip()):
                    continue  # "(for one)" inside a sentence stays in the words
                out.say(cue, unquote(words[pos : m.start()]), **extra)
                out.act(m.group(0)[1:-1])
                pos = m.end()
            out.say(cue, unquote(words[pos:]), **extra)
        last_dialogue = None

    for raw in lines:
        raw = _MARKDOWN_BOLD.sub("", raw)  # "**Name:** words"
        s = raw.strip()
        if not s:
            flush()
            prev_blank, block = True, False
            continue
        if block and last_dialogue and _bracketed(s) is None:
            cue = match_cue(raw)
            if not cue or (alone_layout and cue[1].strip()):
                last_dialogue[1].append(s)  # every line below a cue-only `Name:` line is the speech
                continue
        sm = SCENE_MARK_RE.match(s)
        if sm and not match_cue(s):
            flush()
            scene_count += 1
            if sm.group("zh"):
                mark, rest = sm.group("zh"), sm.group("zhrest")
            else:
                mark, rest = f"{sm.group('kw').upper()} {sm.group('num').upper()}", sm.group("rest")
            if mark.startswith("ACT") or mark.endswith("幕"):
                act = out.unit = mark
            elif (mark.startswith("SCENE") or mark.endswith(("场", "場"))) and act:
                out.unit = f"{act} {mark}"  # "ACT I" then "SCENE 2" -> "ACT I SCENE 2"
            else:
                act, out.unit = None, mark
            out.narrate(rest)
            prev_blank = False
            continue
        inner = _bracketed(s)
        if inner is not None:
            flush()
            sm = re.match(r"^\s*(?:scene|场景)\s*[:：]\s*(.*)$", inner, re.IGNORECASE)
            if sm:
                scene_count += 1
                out.unit = f"scene {scene_count}"
                out.narrate(sm.group(1))
            else:
                out.act(inner)
            prev_blank = False
            continue
        cue = match_cue(raw)
        if cue:
            flush()
            name, words = cue
            out.result.cue_lines += 1
            if name.lower() in NARRATION_NAMES or name.rstrip("0123456789 ") in NARRATION_NAMES:
                out.narrate(unquote(words))
                out.result.covered_chars += len(name) + len(words)
            else:
                lead = re.match(r"^\[([^\]]*)\]\s*", words)  # NAME (aside): words
                extension = ""
                if lead and EXTENSION_RE.match(lead.group(1)):
                    extension = lead.group(1).strip()  # off-screen voice: not a stage direction
                    words = words[lead.end() :]
                elif lead:
                    out.act(lead.group(1))
                    words = words[lead.end() :]
                last_dialogue = (name, [words])
                block = not words.strip()
            prev_blank = False
            continue
        if last_dialogue and not prev_blank and not last_dialogue[1][-1].rstrip().endswith(_SENTENCE_END):
            last_dialogue[1].append(s)  # wrapped speech: the previous line stopped mid-sentence
            continue
        flush()
        out.narrate(s)
        prev_blank = False
    flush()
    return out.result
