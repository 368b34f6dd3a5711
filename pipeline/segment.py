"""The story segmenter: a finite-state machine (SEEK, PROMPTED, IN_STORY) that walks a work's lines once per character.

Every story holds an exchange (another speaker's line, then the character's), never spans a unit and stays within
`Params`; a novel's guess below `turn_floor`/`tag_floor` is nobody's line here. Solo stories follow the exchange
pass (`solo.py`). The method: docs/design.md, "The segmenter"."""

from __future__ import annotations

import hashlib
import re
from collections import deque
from dataclasses import dataclass, replace
from typing import Iterable, Iterator

from extractors.characters import AliasResolver
from extractors.records import Line

from .solo import narrating, solo_stories
from .stories import Story, StoryBuffer, StoryLine, render_line, speaker_label, tidy
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
    # not imported: the segment stage must not depend on the extractor's code, tests/pipeline/test_dvc_pipeline.py)

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


def _prepare(lines: list[Line], resolver: AliasResolver, p: Params) -> list[StoryLine]:
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
            who = ln.speaker or f"?{(ln.extra or {}).get('display') or ln.name or ''}"  # one key per person
        out.append(StoryLine(ln, r, t + 1, who))  # +1 for the newline
    return out


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
        self._at: tuple[list | None, dict[int, int]] = (None, {})

    # -- line classes -------------------------------------------------------------
    def _is_reply(self, it: StoryLine) -> bool:
        ln = it.line
        return (ln.kind == "dialogue" and ln.speaker == self.R and len(ln.text.strip()) >= self.p.min_reply_chars
                and not narrating(ln))

    def _is_prompt(self, it: StoryLine) -> bool:
        ln = it.line
        return ln.kind == "dialogue" and bool(ln.speaker or ln.name) and ln.speaker != self.R and not narrating(ln)

    # -- the machine ----------------------------------------------------------------
    def run(self, lines: Iterable[Line]) -> list[Story]:
        stories: list[Story] = []
        seen: set[str] = set()
        solo_runs: list[tuple[list[StoryLine], list[StoryLine]]] = []  # (a solo story's items, its unit's)

        def keep(items: list[StoryLine], solo: bool, unit: list[StoryLine]) -> None:
            items = self._tidy(items, unit)
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
                keep(items, False, prepared)
            if self.p.solo in ("source", "lines") or self.p.solo == "units" and not covered:
                solo_runs.extend((items, prepared) for items in solo_stories(self, prepared, covered))
        if self.p.solo == "source" and stories:
            solo_runs = []  # the source holds exchanges with R: those stories are R's, no solo ones
        for items, unit in solo_runs:  # after every exchange story, so those keep their numbers
            keep(items, True, unit)
        return stories

    def _tidy(self, items: list[StoryLine], unit: list[StoryLine]) -> list[StoryLine]:
        """The story without bare speech tags, cut-off cues and a tail of a quotation before it (`stories.tidy`)."""
        if self._at[0] is not unit:  # each item's place in its unit, once per unit
            self._at = (unit, {id(it): k for k, it in enumerate(unit)})
        at = self._at[1]

        def tail_of(it: StoryLine) -> bool:
            """Is the narration item part of the paragraph of a quotation that comes before it (its tag, mostly)?"""
            para = (it.line.extra or {}).get("paragraph")
            k = at.get(id(it))
            if para is None or k is None:
                return False
            for j in range(k - 1, -1, -1):
                prev = unit[j].line
                if (prev.extra or {}).get("paragraph") != para:
                    return False
                if prev.kind == "dialogue":
                    return True
            return False

        def with_text(it: StoryLine, text: str) -> StoryLine:
            line = replace(it.line, text=text)
            rendered = render_line(line, self.resolver)
            return StoryLine(line, rendered, count_tokens(rendered) + 1, it.who)

        return tidy(items, lambda it: it.line, lambda it: speaker_label(it.line, self.resolver), with_text, tail_of)

    def _segment_unit(self, items: list[StoryLine]) -> Iterator[list[StoryLine]]:
        p = self.p
        buf = StoryBuffer()
        state = SEEK
        gap = 0          # lines since the last prompt (PROMPTED) or since R's last reply (IN_STORY)
        prompt = -1      # position in buf of the latest prompting line (PROMPTED)
        last_reply = -1  # position in buf of R's last reply (IN_STORY)
        pending: deque[StoryLine] = deque(items)

        def drop_front() -> None:
            nonlocal prompt, state
            buf.pop_front()
            prompt -= 1
            if state == PROMPTED and prompt < 0:
                state = SEEK

        def emit() -> list[StoryLine]:
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

    def _story(self, n: int, items: list[StoryLine], text: str, solo: bool = False) -> Story:
        first, last = items[0].line, items[-1].line
        speakers = list(dict.fromkeys(i.line.speaker or speaker_label(i.line, self.resolver) for i in items
                                      if i.who is not None))
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
