"""Stories: render lines in ChatHaruhi's text form and read/write `data/stories/<id>.jsonl`.

`Speaker:「words」` for dialogue, `旁白:words` for narration and action; `speaker_label` gives each person one
label, `tidy` takes out the narration a reader would trip on. The speech-tag patterns live here, not in the novel
extractor, because the segment stage reads only lines. Labels, tidying and the record: docs/design.md."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from extractors.atomic import atomic_open
from extractors.characters import AliasResolver
from extractors.errors import InputError
from extractors.records import Line, iter_json_rows

NARRATOR = "旁白"
UNATTRIBUTED = "(unattributed)"         # a line nobody is given, in an English story
UNATTRIBUTED_ZH = "（说话人不明）"         # in a Chinese one
UNATTRIBUTED_JA = "（話者不明）"           # in a Japanese one (kana)

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")


def one_line(name: str) -> str:
    """A name with its whitespace collapsed (`the ⏎ young Crab` -> `the young Crab`; none left between CJK)."""
    return ("" if _CJK.search(name) and not re.search(r"[A-Za-z]\s+[A-Za-z]", name) else " ").join(name.split())


def unattributed(text: str) -> str:
    """The marker of a line nobody is given, in the language of its words."""
    return UNATTRIBUTED_JA if _KANA.search(text) else UNATTRIBUTED_ZH if _CJK.search(text) else UNATTRIBUTED


def speaker_label(line: Line, resolver: AliasResolver | None = None) -> str:
    """The one label a story shows for the speaker of a dialogue line (see the module docstring)."""
    extra = line.extra or {}
    if line.speaker and resolver is not None and line.speaker in resolver.characters:
        return one_line(resolver.display(line.speaker))
    if line.speaker or line.name:
        display = extra.get("display")
        name = line.name.title() if line.name and line.name.isupper() else line.name
        who = display if isinstance(display, str) and display.strip() else name or line.speaker
        return one_line(who)
    said_by = extra.get("said_by")
    if isinstance(said_by, str) and said_by.strip():
        return one_line(said_by)
    return unattributed(line.text)


def render_line(line: Line, resolver: AliasResolver | None = None) -> str:
    if line.kind != "dialogue":
        return f"{NARRATOR}:{narration_text(line.text)}"
    return f"{speaker_label(line, resolver)}:「{line.text}」"


def narration_text(text: str) -> str:
    """Narration as a story shows it: without the punctuation a cut left at its start (`; and, when …`)."""
    return re.sub(r"^[\s,;:，；：、。．]+", "", text) or text


# ---- speech tags, cut cues and fragments of narration ----------------------------------------------------------
SPEECH_VERBS_EN = (
    "said|says|say|saying|replied|replies|reply|cried|cries|answered|answers|returned|observed|added|continued|"
    "exclaimed|asked|asks|inquired|enquired|remarked|thought|thinks|began|begun|repeated|whispered|shouted|called|"
    "screamed|muttered|murmured|interrupted|rejoined|resumed|pursued|protested|declared|insisted|urged|"
    "pleaded|sobbed|sighed|laughed|growled|roared|yelled|persisted|explained|retorted|spoke|went\\s+on|"
    "recollected|suggested|ventured|stammered|faltered|moaned|shrieked|sneered|grumbled|panted|gasped|argued|"
    "agreed|concluded|demanded|hinted|promised|reasoned|reflected|reminded|sang|snapped|squeaked|warned|"
    "wondered|yawned|joined\\s+in|put\\s+in|struck\\s+in|broke\\s+in|broke\\s+out|burst\\s+out|called\\s+out|"
    "cried\\s+out|said\\s+aloud|read\\s+out|read|bawled|chuckled|giggled|groaned|howled|hissed|lisped|"
    "mused|nodded|ordered|prompted|quoth|responded|retorted|scolded|shouted|smiled|stormed|told|urged|"
    "wailed|went\\s+on\\s+saying|whimpered|wept|cautioned|commanded|confessed|corrected|interposed|"
    "exclaiming|crying|replying|answering|returning|adding|continuing|observing|thinking|muttering|"
    "whispering|repeating|calling|shouting|screaming|remarking|asking|inquiring|enquiring|"
    "said\\s+to\\s+(?:him|her|it)self|"
    "announced|echoed|admitted|ejaculated|remonstrated|expostulated|assented|acquiesced|queried|questioned|mumbled|"
    "conceded|thundered|implored|entreated|besought|hazarded|quavered|confided|blurted(?:\\s+out)?|stated|commented|"
    "objected|interjected|volunteered|drawled|snorted|whined|bellowed|stuttered|spluttered|sputtered|vociferated|"
    "chimed\\s+in|cut\\s+in|snarled|grunted|scoffed|jeered|mocked|teased|countered|acknowledged|affirmed"
)
_V = r"(?:" + SPEECH_VERBS_EN + r")\b"
_PRONOUNS = r"(?:he|she|it|they|I|we|you)"
_SUBJ = (r"(?:" + _PRONOUNS + r"\b|(?:(?i:the|a|an|his|her|their|its|my|our|poor|little|old|young|dear)\s+){0,2}"
         r"(?:(?:Mr|Mrs|Ms|Dr|St)\.\s+)?[A-Za-z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})")
_ADV = (r"(?:\s*,?\s+(?:\w+ly|again|aloud|then|now|too|once\s+more|at\s+last|at\s+once|at\s+length|in\s+reply|"
        r"to\s+(?:him|her|it|my|them)sel(?:f|ves)|very\s+\w+ly))*")
_END = r"[\s.,;:!?—–-]*$"
# the whole narration is a speech tag: `said Alice.`, `the Dodo replied very gravely.`, `she added,`, `said he:`
_TAG_EN = re.compile(r"^[\s,;:—–-]*(?:and\s+)?(?:" + _V + _ADV + r"\s+(?P<s1>" + _SUBJ + r")|(?P<s2>" + _SUBJ + r")"
                     + _ADV + r"\s+" + _V + r")" + _ADV + _END)
# it opens with one: `cried Alice again, for this time …`, `Alice went on, half to herself, …`
_TAG_OPENS_EN = re.compile(r"^[\s,;:—–-]*(?:and\s+)?(?:" + _V + r"|" + _SUBJ + _ADV + r"\s+" + _V + r")")
_ZH_VERB = r"(?:曰|道|云|说|说道|问|问道|答|答道|叫|叫道|喝|喝道|言|骂|叹|笑道|应|对)"
# `玄德曰：`, `张飞大叫曰：`: a short cue, a name and a speech verb before a quotation; `少平说。`: after one (a tag that
# text set one sentence a line puts in the paragraph after its quotation)
_TAG_ZH = re.compile(r"^[^\s，。！？；：,.!?;:「」“”]{1,10}?" + _ZH_VERB + r"[：:，,。．]?\s*$")
_CUE_END = re.compile(r"(?:[:：,，;；—–]|--|(?<![.!?])-|" + _ZH_VERB + r"[：:，,；;]?)[\s\"'”’]*$")
_SENTENCE_END = re.compile(r"[.!?。！？…]+[\"'”’」』)\]]*(?=\s|$)|[。！？…]+[”’」』]*")
_FRAGMENT_START = re.compile(r"^\s*(?:[a-z]|[,;:.)\]—–\-，。；：、！？）」』”’])")


def is_speech_tag(text: str) -> bool:
    """Is the narration only a speech tag (`said Alice.`, `the Dodo replied very gravely.`, `玄德曰：`)?"""
    t = text.strip()
    return bool(_TAG_EN.match(t) or _TAG_ZH.match(t))


def tag_subject(text: str) -> str | None:
    """The subject of a bare speech tag (`the Mouse` of `said the Mouse.`, `玄德` of `玄德曰：`), or None."""
    t = text.strip()
    m = _TAG_EN.match(t)
    if m:
        return m.group("s1") or m.group("s2")
    m = _TAG_ZH.match(t)
    return re.sub(_ZH_VERB + r"[：:，,。．]?\s*$", "", t) if m else None


def opens_with_tag(text: str) -> bool:
    """Does the narration open with a speech tag (`cried Alice again, for …`, `Alice went on, …`)?"""
    return bool(_TAG_OPENS_EN.match(text)) or is_speech_tag(text)


def is_fragment(text: str) -> bool:
    """Does the narration open in the middle of a sentence (`said Alice, …`, `; and, when …`)?"""
    return bool(_FRAGMENT_START.match(text))


def is_cue(text: str) -> bool:
    """Does the narration end where a quotation should follow (`…, remarking,`, `said the Duck:`, `谦曰：`, `融曰；`)?"""
    return bool(_CUE_END.search(text.strip()))


def after_first_sentence(text: str) -> str:
    """What follows the first sentence's end (`` when the text holds no end of a sentence before its last words)."""
    m = _SENTENCE_END.search(text)
    return text[m.end():].strip() if m else ""


def through_last_sentence(text: str) -> str:
    """The text up to the end of its last full sentence (`` when it holds none)."""
    ends = list(_SENTENCE_END.finditer(text))
    return text[:ends[-1].end()].strip() if ends else ""


T = TypeVar("T")


def tidy(items: Sequence[T], line_of: Callable[[T], Line], label_of: Callable[[T], str],
         with_text: Callable[[T, str], T], tail_of: Callable[[T], bool] = lambda it: False) -> list[T]:
    """The items of a story (one per line) without the narration a reader would trip on (the module docstring):
    - a narration that ends as a cue with no quotation after it in the story is cut to its last full sentence, or
      dropped;
    - a bare speech tag next to the line it tags (its subject the line's label, name or a pronoun) is dropped;
    - at the start, narration that is the tail of a quotation outside the story (it opens mid-sentence, or with a
      tag, and `tail_of` says it belongs to the quotation before the story, or it is followed by no quotation) loses
      its first sentence, or is dropped.
    `line_of`, `label_of` and `with_text` read an item's line, its speaker's label, and make an item with other
    narration text. Dialogue is never dropped."""
    out = list(items)

    def narration(k: int) -> bool:
        return line_of(out[k]).kind != "dialogue"

    k = 0
    while k < len(out):  # cues cut off from their quotation
        if narration(k) and is_cue(line_of(out[k]).text) and (k + 1 == len(out) or narration(k + 1)):
            kept = through_last_sentence(line_of(out[k]).text)
            if kept:
                out[k] = with_text(out[k], kept)
            else:
                del out[k]
                continue
        k += 1
    k = 0
    while k < len(out):  # bare tags beside the line they tag
        if narration(k) and _tags_a_neighbour(out, k, line_of, label_of):
            del out[k]
            continue
        k += 1
    while out and narration(0):  # the opening: no tail of an unseen quotation
        text = line_of(out[0]).text
        lone = len(out) == 1 or narration(1)
        if not (is_fragment(text) or is_speech_tag(text) or (opens_with_tag(text) and (tail_of(out[0]) or lone))):
            break
        rest = after_first_sentence(text)
        if rest and not is_fragment(rest) and not is_speech_tag(rest):
            out[0] = with_text(out[0], rest)
            if not opens_with_tag(rest):
                break
        else:
            del out[0]
    return out


_PRON_SUBJ = re.compile(r"^(?:" + _PRONOUNS + r"|他|她|其)$", re.I)


def _tags_a_neighbour(out: list, k: int, line_of, label_of) -> bool:
    subject = tag_subject(line_of(out[k]).text)
    if not subject:
        return False
    subj = one_line(subject).lower()
    subj_core = re.sub(r"^(?:(?:the|a|an|poor|little|old|young|dear)\s+)+", "", subj)
    for j in (k - 1, k + 1):
        if not 0 <= j < len(out) or line_of(out[j]).kind != "dialogue":
            continue
        ln = line_of(out[j])
        if not (ln.speaker or ln.name):
            continue  # the tag is all a reader has of who speaks: it stays
        if _PRON_SUBJ.match(subj):
            return True
        names = {one_line(n).lower() for n in (label_of(out[j]), ln.name, ln.speaker) if n}
        cores = {re.sub(r"^(?:the|a|an)\s+", "", n) for n in names}
        if subj in names or subj_core in cores:
            return True
        if _CJK.search(subj):  # `玄德答曰：` for 玄德's line: the name, then how they speak
            if any(n and _CJK.search(n) and n in subj for n in names):
                return True
        elif any(set(subj_core.split()) <= set(n.split()) for n in cores if subj_core):  # `said Cohn` for Robert Cohn
            return True
    return False


@dataclass
class StoryLine:
    """A line of a story being built: the line, as rendered, its tokens (with the newline), its speaker key."""

    line: Line
    rendered: str
    tokens: int
    who: str | None  # speaker key for counting distinct speakers; None for narration


class StoryBuffer:
    """Lines of the story being built, with running totals so each limit check is O(1)."""

    def __init__(self):
        self.items: list[StoryLine] = []
        self.tokens = 0
        self.narration = 0
        self.speakers: dict[str, int] = {}

    def __len__(self):
        return len(self.items)

    def fits(self, it: StoryLine, p) -> bool:
        if self.tokens + it.tokens > p.max_tokens:
            return False
        if it.who is None:
            return self.narration + 1 <= p.max_narration
        return it.who in self.speakers or len(self.speakers) + 1 <= p.max_speakers

    def push(self, it: StoryLine) -> None:
        self.items.append(it)
        self.tokens += it.tokens
        if it.who is None:
            self.narration += 1
        else:
            self.speakers[it.who] = self.speakers.get(it.who, 0) + 1

    def pop_front(self) -> StoryLine:
        it = self.items.pop(0)
        self.tokens -= it.tokens
        if it.who is None:
            self.narration -= 1
        else:
            self.speakers[it.who] -= 1
            if not self.speakers[it.who]:
                del self.speakers[it.who]
        return it

    def clear(self) -> list[StoryLine]:
        items = self.items
        self.__init__()
        return items


@dataclass
class Story:
    id: str
    character: str
    work: str
    source: str
    unit: str
    first_index: int
    last_index: int
    tokens: int
    speakers: list[str]
    exchanges: int
    text: str
    lines: list[dict] = field(default_factory=list)  # {speaker, name, kind, text}
    solo: bool = False  # the character's lines with no one to answer (written only when true)

    def record(self) -> dict:
        d = asdict(self)
        if not self.solo:
            del d["solo"]
        return d


def count_kinds(stories: list[Story]) -> dict[str, int]:
    """{'exchange': n, 'solo': m}: the stories of each kind."""
    solo = sum(1 for s in stories if s.solo)
    return {"exchange": len(stories) - solo, "solo": solo}


def write_stories(path: str | Path, stories: list[Story]) -> None:
    if not stories:
        raise InputError("no stories to write", path)
    with atomic_open(path) as fh:
        for s in stories:
            fh.write(json.dumps(s.record(), ensure_ascii=False) + "\n")


_STORY_TYPES = {"id": str, "character": str, "work": str, "source": str, "unit": str, "first_index": int,
                "last_index": int, "tokens": int, "speakers": list, "exchanges": int, "text": str, "lines": list,
                "solo": bool}


def story_from_dict(d: dict, path: str | Path, row: int) -> Story:
    """One story row, validated: missing or unknown fields and wrong types are an InputError naming the row."""
    missing = [k for k, f in Story.__dataclass_fields__.items() if k not in d and k not in ("lines", "solo")]
    if missing:
        raise InputError(f"malformed story row: missing field(s) {', '.join(missing)}", path, row)
    unknown = sorted(set(d) - set(_STORY_TYPES))
    if unknown:
        raise InputError(f"malformed story row: unknown field(s) {', '.join(unknown)}", path, row)
    for k, v in d.items():
        want = _STORY_TYPES[k]
        if not isinstance(v, want) or (want is int and isinstance(v, bool)):
            raise InputError(f"malformed story row: {k} must be {want.__name__}, not {type(v).__name__}", path, row)
    if not all(isinstance(x, str) for x in d["speakers"]) or not all(isinstance(x, dict) for x in d.get("lines", [])):
        raise InputError("malformed story row: speakers must be strings and lines objects", path, row)
    return Story(**d)


def read_stories(path: str | Path) -> list[Story]:
    """The stories of a `data/stories/<id>.jsonl`; a file that is not UTF-8 JSON lines, or a malformed row, is an
    InputError naming the file and the row."""
    path = Path(path)
    if not path.exists():
        raise InputError("no stories file; run `rolecorpus segment` first", path)
    out = [story_from_dict(d, path, row) for row, d in iter_json_rows(path)]
    if not out:
        raise InputError("stories file is empty", path)
    return out
