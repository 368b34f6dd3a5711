"""The story segmenter: a finite-state machine that walks a work's lines once per character R.

States
  SEEK      no prompt yet; keeps a short window of context lines
  PROMPTED  another known speaker has spoken (a character, or someone the source names who is not configured:
            a script cue, a novel's side character from `cast_others`); waiting (at most `max_gap` lines) for R's reply
  IN_STORY  R has answered: at least one exchange; extend while the limits hold

A story is emitted when the next line would break a limit (token budget, distinct speakers,
narration lines), when the talk moves on without R for more than `max_gap` lines, or at the
end of a unit (scene, chapter, episode). It is trimmed to R's last reply plus
`trailing_context` lines; the rest is fed back so it can open the next story. Stories never
span units, always hold an exchange (another speaker's line, then R's), and are de-duplicated
by text. A line longer than half the budget is split at sentence ends first, never dropped.

Guesses. A novel's untagged turns carry turn-taking guesses whose confidence is a calibrated probability (kept in
lines.jsonl from the extractor's hold: the book's own, from 0.83 for configured characters or 0.88 for a discovered cast,
lower where its guesses allow). In a story a guess below
`turn_floor` (0.97) is a line of nobody's. On the 12 PDNC dev novels, top-3 characters of each, with the calibration
fitted on the other eleven books (leave-one-book-out), 0.92 -> 0.96 lifted story purity from 0.961 to 0.975 (stories
that give the character only their own words; worst character 0.870 -> 0.918) and from 0.951 to 0.966 (every quotation
right; worst 0.783 -> 0.915) for 12% fewer stories; chosen as the lowest floor of 0.92-0.97 with mean own-words
>= 0.97 and every character's all-right >= 0.90. (A floor was first introduced at 0.92: own words 0.958 -> 0.968.)
Session 38's turn model (self-trained style, more turns sure) moved it to 0.97: at 0.96 own-words 0.974 (worst 0.900),
all-right 0.962 (worst 0.850, Mr. Beebe's 20 stories); at 0.97 0.980 (worst 0.930) and 0.970 (worst 0.882: May
Welland's 17 stories, two with her mother's line given to someone else, which no floor of 0.92-0.98 mends), 2,468
stories. No floor now meets the rule's every-character bar; 0.97 is the lowest with own-words >= 0.97 and one
character under it, not two. A
tag guess (`she said`, evidence explicit-verb) below `tag_floor` (0.88, the fixed hold) likewise: a book's own lower
hold adds lines, not words put in a character's mouth in a story. Cues, subtitles
and voices are not touched.

Solo stories (`solo.py`). R's lines that answer no one (a quote page, a monologue, a voice line, a
line the exchange stories left out) become stories of their own kind after the exchange pass: the
occasion as `旁白:` lines, then R's line(s). `Params.solo` decides which: `source` (default) R's lines
only where the whole source holds no exchange with R (a quote page, a character page), `lines` every R
line no exchange story holds, `units` only in units where R has no exchange at all, `none` exchanges
only. (`lines` on the PDNC novels lowers story purity: own-words 0.928 -> 0.917, hence the default.) Solo stories are numbered after the exchange stories, so those keep their ids.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from dataclasses import dataclass, replace
from typing import Iterable, Iterator

from extractors.characters import AliasResolver
from extractors.records import Line

from .solo import narrating, solo_stories
from .stories import Story, render_line
from .tokens import count_many, count_tokens

SEEK, PROMPTED, IN_STORY = "SEEK", "PROMPTED", "IN_STORY"
SOLO_MODES = ("source", "lines", "units", "none")

_SENT_END = re.compile(r"(?<=[.!?;。！？；…])[\"'”’」』)\]]*\s+|(?<=[。！？；…])[”’」』]*")


@dataclass
class Params:
    max_tokens: int = 500
    max_speakers: int = 4
    max_narration: int = 4
    max_gap: int = 3
    leading_context: int = 2
    trailing_context: int = 1
    min_reply_chars: int = 2
    solo: str = "source"  # source | lines | units | none: which of R's unanswering lines become solo stories
    turn_floor: float = 0.97  # a turn-taking guess below this confidence shows as nobody's line in a story
    tag_floor: float = 0.88   # a novel's tag guess (evidence explicit-verb) below this: likewise (the novel's fixed hold;
    # not imported: the segment stage must not depend on the extractor's code, tests/test_dvc_pipeline.py)

    def __post_init__(self):
        if self.solo not in SOLO_MODES:
            raise ValueError(f"segment.solo must be one of {', '.join(SOLO_MODES)}, not {self.solo!r}")


def split_sentences(text: str) -> list[str]:
    parts, last = [], 0
    for m in _SENT_END.finditer(text):
        if m.end() > last:
            parts.append(text[last:m.end()].strip())
            last = m.end()
    parts.append(text[last:].strip())
    return [p for p in parts if p]


def split_long(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` tokens, cut at sentence ends (words or characters as a last resort)."""
    if count_tokens(text) <= limit:
        return [text]
    pieces: list[str] = []
    cur = ""
    for sent in split_sentences(text):
        if count_tokens(sent) > limit:  # one enormous sentence: cut on whitespace, then characters
            words = sent.split(" ") if " " in sent else list(sent)
            joiner = " " if " " in sent else ""
            for w in words:
                cand = f"{cur}{joiner if cur else ''}{w}"
                if cur and count_tokens(cand) > limit:
                    pieces.append(cur)
                    cur = w
                else:
                    cur = cand
            continue
        cand = f"{cur} {sent}".strip() if cur else sent
        if cur and count_tokens(cand) > limit:
            pieces.append(cur)
            cur = sent
        else:
            cur = cand
    if cur:
        pieces.append(cur)
    return pieces


@dataclass
class _Item:
    line: Line
    rendered: str
    tokens: int
    who: str | None  # speaker key for counting distinct speakers; None for narration


def _prepare(lines: list[Line], resolver: AliasResolver, p: Params) -> list[_Item]:
    half = max(16, p.max_tokens // 2)
    expanded: list[Line] = []
    for ln in lines:
        if not ln.text.strip():
            continue
        pieces = split_long(ln.text, half) if len(ln.text) > half else [ln.text]
        if len(pieces) == 1:
            expanded.append(ln)
        else:
            expanded.extend(replace(ln, text=t) for t in pieces)
    rendered = [render_line(ln, resolver) for ln in expanded]
    toks = count_many(rendered)
    out = []
    for ln, r, t in zip(expanded, rendered, toks):
        who = None
        if ln.kind == "dialogue":
            who = ln.speaker or f"?{ln.name or ''}"
        out.append(_Item(ln, r, t + 1, who))  # +1 for the newline
    return out


class _Buffer:
    """Lines of the story being built, with running totals so each limit check is O(1)."""

    def __init__(self):
        self.items: list[_Item] = []
        self.tokens = 0
        self.narration = 0
        self.speakers: dict[str, int] = {}

    def __len__(self):
        return len(self.items)

    def fits(self, it: _Item, p: Params) -> bool:
        if self.tokens + it.tokens > p.max_tokens:
            return False
        if it.who is None:
            return self.narration + 1 <= p.max_narration
        return it.who in self.speakers or len(self.speakers) + 1 <= p.max_speakers

    def push(self, it: _Item) -> None:
        self.items.append(it)
        self.tokens += it.tokens
        if it.who is None:
            self.narration += 1
        else:
            self.speakers[it.who] = self.speakers.get(it.who, 0) + 1

    def pop_front(self) -> _Item:
        it = self.items.pop(0)
        self.tokens -= it.tokens
        if it.who is None:
            self.narration -= 1
        else:
            self.speakers[it.who] -= 1
            if not self.speakers[it.who]:
                del self.speakers[it.who]
        return it

    def clear(self) -> list[_Item]:
        items = self.items
        self.__init__()
        return items


def floored(ln: Line, floor: float, tag_floor: float = 0.0) -> Line:
    """A turn-taking guess (a novel's untagged turn) below `floor`, or a tag guess (`she said`) below `tag_floor`, as
    a line of nobody's: a story shows no guess less sure than that, whoever's line it is."""
    least = {"turn-taking": floor, "explicit-verb": tag_floor}.get(ln.evidence or "")
    if least is not None and (ln.speaker or ln.name) and (ln.confidence or 0.0) < least:
        return replace(ln, speaker=None, name=None, confidence=None, evidence=None)
    return ln


def _units(lines: Iterable[Line]) -> Iterator[list[Line]]:
    cur: list[Line] = []
    key = None
    for ln in lines:
        k = (ln.work, ln.source, ln.unit)
        if cur and k != key:
            yield cur
            cur = []
        key = k
        cur.append(ln)
    if cur:
        yield cur


class Segmenter:
    """Cut the stories of one character R from the lines of one or more works."""

    def __init__(self, character: str, resolver: AliasResolver, params: Params | None = None):
        self.R = character
        self.resolver = resolver
        self.p = params or Params()

    # -- line classes -------------------------------------------------------------
    def _is_reply(self, it: _Item) -> bool:
        ln = it.line
        return (ln.kind == "dialogue" and ln.speaker == self.R and len(ln.text.strip()) >= self.p.min_reply_chars
                and not narrating(ln))

    def _is_prompt(self, it: _Item) -> bool:
        ln = it.line
        return ln.kind == "dialogue" and bool(ln.speaker or ln.name) and ln.speaker != self.R and not narrating(ln)

    # -- the machine ----------------------------------------------------------------
    def run(self, lines: Iterable[Line]) -> list[Story]:
        stories: list[Story] = []
        seen: set[str] = set()
        solo_runs: list[list[_Item]] = []

        def keep(items: list[_Item], solo: bool) -> None:
            text = "\n".join(i.rendered for i in items)
            digest = hashlib.sha1(text.encode("utf-8")).hexdigest()
            if digest not in seen:
                seen.add(digest)
                stories.append(self._story(len(stories) + 1, items, text, solo))

        for unit in _units(floored(ln, self.p.turn_floor, self.p.tag_floor) for ln in lines):
            prepared = _prepare(unit, self.resolver, self.p)
            covered: set[int] = set()
            for items in self._segment_unit(prepared):
                covered.update(id(i) for i in items)
                keep(items, False)
            if self.p.solo in ("source", "lines") or self.p.solo == "units" and not covered:
                solo_runs.extend(solo_stories(self, prepared, covered))
        if self.p.solo == "source" and stories:
            solo_runs = []  # the source holds exchanges with R: those stories are R's, no solo ones
        for items in solo_runs:  # after every exchange story, so those keep their numbers
            keep(items, True)
        return stories

    def _segment_unit(self, items: list[_Item]) -> Iterator[list[_Item]]:
        p = self.p
        buf = _Buffer()
        state = SEEK
        gap = 0          # lines since the last prompt (PROMPTED) or since R's last reply (IN_STORY)
        prompt = -1      # position in buf of the latest prompting line (PROMPTED)
        last_reply = -1  # position in buf of R's last reply (IN_STORY)
        pending: deque[_Item] = deque(items)

        def drop_front() -> None:
            nonlocal prompt, state
            buf.pop_front()
            prompt -= 1
            if state == PROMPTED and prompt < 0:
                state = SEEK

        def emit() -> list[_Item]:
            story = buf.items[: last_reply + 1 + p.trailing_context]
            rest = buf.items[last_reply + 1:]  # what followed R's reply may open the next story
            buf.clear()
            pending.extendleft(reversed(rest))
            return story

        while pending:
            it = pending.popleft()
            if state == IN_STORY:
                if buf.fits(it, p):
                    buf.push(it)
                    if self._is_reply(it):
                        last_reply, gap = len(buf) - 1, 0
                        continue
                    gap += 1
                    if gap <= p.max_gap:
                        continue
                    yield emit()  # the talk moved on without R
                else:
                    pending.appendleft(it)
                    yield emit()  # a limit would break
                state, gap, prompt = SEEK, 0, -1
                continue

            if state == PROMPTED and self._is_reply(it):
                while not buf.fits(it, p) and prompt > 0:
                    drop_front()
                if buf.fits(it, p):
                    buf.push(it)
                    state, last_reply, gap = IN_STORY, len(buf) - 1, 0
                    continue
                buf.clear()
                state, prompt = SEEK, -1

            # SEEK or PROMPTED: a short window of context up to and after the prompting line
            while len(buf) and not buf.fits(it, p):
                drop_front()
            if not buf.fits(it, p):  # cannot happen after splitting long lines; skip defensively
                continue
            buf.push(it)
            if self._is_prompt(it):
                state, gap, prompt = PROMPTED, 0, len(buf) - 1
                while prompt > p.leading_context:
                    drop_front()
            elif state == PROMPTED:
                gap += 1
                if gap > p.max_gap:
                    state, prompt = SEEK, -1
            if state == SEEK:
                while len(buf) > p.leading_context:
                    drop_front()
        if state == IN_STORY:
            yield emit()

    def _story(self, n: int, items: list[_Item], text: str, solo: bool = False) -> Story:
        first, last = items[0].line, items[-1].line
        speakers = list(dict.fromkeys(i.line.speaker or (i.line.name or "?") for i in items if i.who is not None))
        exchanges, prompted = 0, False
        for i in items:
            if self._is_reply(i):
                exchanges += prompted
                prompted = False
            elif self._is_prompt(i):
                prompted = True
        return Story(
            id=f"{n:04d}", character=self.R, work=first.work, source=first.source, unit=first.unit,
            first_index=first.index, last_index=last.index, tokens=sum(i.tokens for i in items) - 1,
            speakers=speakers, exchanges=exchanges, text=text, solo=solo,
            lines=[{"speaker": i.line.speaker, "name": i.line.name, "kind": i.line.kind, "text": i.line.text} for i in items],
        )
