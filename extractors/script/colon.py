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
- radio scripts: `SOUND:`/`MUSIC:`/`SFX:`/`F/X:`/`GRAMS:`/`ATMOS:`/`BIZ:` cue lines are `action` lines,
  `(OFF)` after the colon is a voice mark; line numbers (`12. HOLMES:`) and timestamps
  (`[00:01:23] Monica:`, `00:01:23 MONICA:`) before the cues are dropped when most lines carry one;
- light-novel sources without a colon: `春日「…」`, `ハルヒ「…」` (kana names are names too);
- `{whispering}` is a direction like `[...]`; `INT. PLACE - DAY` inside a transcript starts a unit;
  a `CAST:` list (up to a blank line) is skipped; `Episode 4: "..."`, `Transcript: ...` are headers;
  in a file whose cues stand alone, a first `Title: subtitle` line is narration;
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
               "chapter", "source", "url", "edition", "language", "release date", "produced by", "posting date",
               # transcript and radio-script headers: `Transcript: "The Lost Key"`, `Written by: ...`
               "transcript", "teleplay", "screenplay", "written by", "story by", "directed by", "transcribed by",
               "transcriber", "air date", "original air date", "aired", "broadcast", "summary", "synopsis", "genre"}
# `Episode 4: "The Keeper's Log"`, `Season 2: ...`: a header, not a speaker
_HEADER_NAME_RE = re.compile(r"^(?:episode|season|series|part|chapter|book|volume|vol\.?|ep\.?)\s*#?\d+[a-z]?$", re.IGNORECASE)
# `CAST:` / `CHARACTERS:` on its own line: the cast list below it (up to a blank line) is skipped
CAST_HEADER_RE = re.compile(r"^\s*(?:the\s+)?(?:cast(?:\s+of\s+characters)?|characters|dramatis\s+person(?:ae|æ)|persons|"
                            r"人物表?|登场人物|登場人物)\s*[:：]?\s*$", re.IGNORECASE)
_LOWER_JOINERS = {"of", "the", "de", "la", "le", "du", "von", "van", "der", "da", "di", "al", "bin", "ibn", "and", "&"}
_CJK_SPEECH_VERBS = "说道曰问答叫喊笑云言讲骂叹吼想看听"
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff]")  # kana too: ハルヒ
# radio/audio-drama cue lines that are directions, not speakers: `SOUND: DOOR BANGS`, `MUSIC: STING`
SOUND_NAMES = {"sound", "sounds", "sfx", "fx", "f/x", "f x", "sound fx", "sound effect", "sound effects", "effect",
               "effects", "music", "bgm", "se", "grams", "atmos", "atmosphere", "ambience", "biz", "business", "sting", "音效", "音乐", "音樂", "効果音", "ＳＥ", "ＢＧＭ"}
# a line number or a timestamp before the cue: `12. HOLMES: ...`, `[00:01:23] Monica: ...`, `00:01:23 MONICA: ...`
LINE_PREFIX_RE = re.compile(r"^\s*(?:\[\s*\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?\s*\]|\(\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?\)|"
                            r"\d{1,2}(?::\d{2}){1,2}(?:[.,]\d{1,3})?(?:\s*[-–—|]\s*|\s+)|\d{1,4}\.\s+)\s*(?=\S)")
# light-novel/ChatHaruhi source form without a colon: `ハルヒ「…」`, `春日「…」`, `阿虚『…』`
KAGI_CUE_RE = re.compile(r"^\s*(?P<name>[\u3040-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff·・＝=]{1,8})\s*(?P<text>「.*」|『.*』)\s*$")
_JA_PARTICLES = tuple("はがをにへでもと")
_CJK_PUNCT = re.compile(r"[，。！？、；…—《》]")
SCENE_MARK_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:(?P<kw>scene|act|part|episode)\s+(?P<num>[IVXLCivxlc]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    r"[\s.,:\-–—]*(?P<rest>.*)|(?P<zh>第[一二三四五六七八九十百零〇\d]+[幕场場集章回节節])\s*(?P<zhrest>.*))$",
    re.IGNORECASE,
)
# directions inside a speech: "Ross: (mortified) Hi.", "春日:（笑）好啊", "[to Joey] Hey"
INLINE_DIRECTION_RE = re.compile(r"\[[^\]]*\]|\([^)]*\)|（[^）]*）|【[^】]*】|\{[^}]*\}")
SCREEN_HEADING_RE = re.compile(r"^(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I/E|INT|EXT)\.\s+[A-Z0-9]")
# screen/transcript voice marks after a name: `KIRK [OC]:`, `JERRY (V.O.):`, `ROSS (CONT'D):`
EXTENSION_RE = re.compile(r"^\s*(?:V\.?\s?O|O\.?\s?S|O\.?\s?C|CONT'?D|CONT|cont'd|on ?screen|on viewscreen|on phone|OFF|voice ?over|"
                          r"off|v\.?o|o\.?s|o\.?c)\.?\s*$")
_MARKDOWN_BOLD = re.compile(r"\*\*|__")
BRACKET_PAIRS = {"[": "]", "(": ")", "（": "）", "【": "】", "〔": "〕", "{": "}"}
_SENTENCE_END = tuple(".!?。！？」』\"”…~～")
QUOTE_PAIRS = {"「": "」", "『": "』", "“": "”", '"': '"', "‘": "’"}


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


def kagi_cue(line: str) -> tuple[str, str] | None:
    """`ハルヒ「…」` / `春日「…」`: a CJK or kana name right before a quoted line, no colon."""
    m = KAGI_CUE_RE.match(line)
    if not m:
        return None
    name = m.group("name")
    if not valid_name(name) or (len(name) >= 2 and name.endswith(_JA_PARTICLES) and name[-2] not in "ー"):
        return None  # `ハルヒは「…」`: a sentence, not a cue
    return name, m.group("text")


def strip_line_prefixes(lines: list[str]) -> list[str]:
    """Drop line numbers / timestamps before the cues when most lines carry one (radio scripts,
    timed transcripts); a file with only a few numbered lines keeps them."""
    body = [ln for ln in lines if ln.strip()]
    hits = sum(1 for ln in body if LINE_PREFIX_RE.match(ln))
    if hits < 3 or hits < 0.4 * len(body):
        return lines
    return [LINE_PREFIX_RE.sub("", ln, count=1) for ln in lines]


def parse_colon(text: str, resolver: AliasResolver | None = None) -> ParseResult:
    """Parse a `Name: words` script into events (resolver unused: names are as written)."""
    out = Emitter("colon", unit="1")
    lines = strip_line_prefixes(text.split("\n"))
    kagi = sum(1 for ln in lines if kagi_cue(ln)) >= 2
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
                paren = m.group(0)[0] not in "[{"
                at_edge = not before or before.endswith(_SENTENCE_END + ("—", "-")) or not words[m.end() :].strip()
                if paren and not (at_edge or not words[:m.start()].strip()):
                    continue  # "(for one)" inside a sentence stays in the words
                out.say(cue, unquote(words[pos : m.start()]), **extra)
                out.act(m.group(0)[1:-1])
                pos = m.end()
            out.say(cue, unquote(words[pos:]), **extra)
        last_dialogue = None

    in_cast = False
    # `Faust: Der Tragödie erster Teil` heading a file whose cues stand alone (`FAUST:`): a title
    first = next((i for i, ln in enumerate(lines) if ln.strip()), -1)
    title = first if alone_layout and first + 1 < len(lines) and not lines[first + 1].strip() else -1
    for idx, raw in enumerate(lines):
        raw = _MARKDOWN_BOLD.sub("", raw)  # "**Name:** words"
        s = raw.strip()
        if not s:
            flush()
            prev_blank, block, in_cast = True, False, False
            continue
        if in_cast:
            continue
        if CAST_HEADER_RE.match(s):
            flush()
            in_cast = True  # `CAST:` then one name a line, up to a blank line
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
        if SCREEN_HEADING_RE.match(s):
            flush()  # `INT. CENTRAL PERK - DAY` inside a transcript: a new scene
            scene_count += 1
            out.unit = f"scene {scene_count}"
            out.narrate(s)
            prev_blank = False
            continue
        cue = match_cue(raw) or (kagi_cue(raw) if kagi else None)
        if cue and idx == title and cue[1].strip():
            out.narrate(s)
            prev_blank = False
            continue
        if cue:
            flush()
            name, words = cue
            out.result.cue_lines += 1
            if name.lower() in NARRATION_NAMES or name.rstrip("0123456789 ") in NARRATION_NAMES:
                out.narrate(unquote(words))
                out.result.covered_chars += len(name) + len(words)
            elif name.lower() in SOUND_NAMES:
                out.act(words)  # `SOUND: DOOR BANGS`, `MUSIC: THEME UP`: a direction
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
                else:
                    lead = re.match(r"^[(\[]([^)\]]*)[)\]]\s*", words)  # `DRAKE: (OFF) Mrs. Hale?` (radio)
                    if lead and EXTENSION_RE.match(lead.group(1)):
                        extension = lead.group(1).strip()
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
