"""Cut a novel into token-budgeted chunks for the LLM, and render a chunk with the rule results marked.

Chunks end at paragraph ends (a blank line; a single newline in texts that have no blank lines,
as many Chinese e-texts), never inside a quotation. A paragraph longer than the budget is cut at
sentence ends instead. Tokens are counted by extractors/tokens.py (tiktoken's cl100k_base, offline); `count_tokens`
is imported here for the modules of this package that take it from here.

In the rendered chunk every quotation is prefixed with a mark the model reads:
`[Elizabeth Bennet] “…”` (speaker already known from the rules) or `[?] “…”` (to attribute).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from extractors.errors import InputError
from extractors.records import Line
from extractors.tokens import count_tokens

UNKNOWN_MARK = "[?]"


@dataclass
class Chunk:
    """A span [start, end) of the text, and the dialogue lines (positions in the input list) that start in it."""

    number: int
    start: int
    end: int
    line_ids: list[int] = field(default_factory=list)
    unresolved: list[int] = field(default_factory=list)


def line_span(line: Line, pos: int) -> tuple[int, int]:
    """The (start, end) character offsets of a line, from `extra`; InputError when missing."""
    ex = line.extra or {}
    s, e = ex.get("start"), ex.get("end")
    if not isinstance(s, int) or not isinstance(e, int) or s < 0 or e < s:
        raise InputError(
            f"dialogue line {line.index} has no character offsets (extra.start/extra.end)", line.source, pos + 1
        )
    return s, e


_SENT_END = re.compile(r"[.!?。！？…]+[\"'”’」』]?\s+")


def _paragraph_ends(text: str) -> list[int]:
    """Offsets just after each paragraph (its trailing newlines included)."""
    blank = len(re.findall(r"\n[ \t\u3000]*\n", text))
    newlines = text.count("\n")
    sep = re.compile(r"\n(?:[ \t\u3000]*\n)+") if newlines and blank >= 0.05 * newlines else re.compile(r"\n+")
    ends = [m.end() for m in sep.finditer(text)]
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    return ends


class _Spans:
    """Answers `inside(pos)`: does pos fall strictly inside any (start, end) span? O(log n) per query."""

    def __init__(self, spans: list[tuple[int, int]]):
        spans = sorted(spans)
        self.starts = [s for s, _ in spans]
        self.max_end = []
        m = -1
        for _, e in spans:
            m = max(m, e)
            self.max_end.append(m)

    def inside(self, pos: int) -> bool:
        k = bisect.bisect_left(self.starts, pos) - 1  # last span starting strictly before pos
        return k >= 0 and self.max_end[k] > pos


def make_chunks(text: str, lines: list[Line], chunk_tokens: int = 1500) -> list[Chunk]:
    """Split `text` into chunks of at most ~chunk_tokens tokens at paragraph ends.

    Every dialogue line is assigned to the chunk its start offset falls in; a cut never falls
    inside a dialogue span. `unresolved` lists the dialogue lines with no speaker.
    """
    if chunk_tokens < 50:
        raise InputError(f"chunk_tokens must be at least 50 (got {chunk_tokens})")
    dialogue = [(i, *line_span(ln, i)) for i, ln in enumerate(lines) if ln.kind == "dialogue"]
    spans = _Spans([(s, e) for _, s, e in dialogue])
    # candidate cut points: paragraph ends outside quotations
    cuts = [p for p in _paragraph_ends(text) if not spans.inside(p)]
    if not cuts or cuts[-1] != len(text):
        cuts.append(len(text))

    pieces: list[tuple[int, int]] = []  # (start, end) of units that are never split
    prev = 0
    for c in cuts:
        if c <= prev:
            continue
        seg = text[prev:c]
        if count_tokens(seg) > chunk_tokens:  # an over-long paragraph: cut at sentence ends
            sub_prev = prev
            for m in _SENT_END.finditer(text, prev, c):
                p = m.end()
                if p < c and not spans.inside(p):
                    pieces.append((sub_prev, p))
                    sub_prev = p
            pieces.append((sub_prev, c))
        else:
            pieces.append((prev, c))
        prev = c

    chunks: list[Chunk] = []
    cur_s, cur_e, cur_t = None, None, 0
    for s, e in pieces:
        t = count_tokens(text[s:e])
        if cur_s is not None and cur_t + t > chunk_tokens:
            chunks.append(Chunk(len(chunks), cur_s, cur_e))
            cur_s, cur_t = None, 0
        if cur_s is None:
            cur_s = s
        cur_e, cur_t = e, cur_t + t
    if cur_s is not None:
        chunks.append(Chunk(len(chunks), cur_s, cur_e))

    starts = [c.start for c in chunks]
    for i, s, _e in dialogue:
        k = max(0, bisect.bisect_right(starts, s) - 1)
        chunks[k].line_ids.append(i)
        if lines[i].speaker is None:
            chunks[k].unresolved.append(i)
    return chunks


def render_chunk(text: str, chunk: Chunk, lines: list[Line], display) -> str:
    """The chunk's text with `[Name] ` / `[?] ` inserted before each quotation.

    `display(line)` gives the name shown for an attributed line.
    """
    out: list[str] = []
    pos = chunk.start
    for i in sorted(chunk.line_ids, key=lambda j: lines[j].extra["start"]):
        s = lines[i].extra["start"]
        if s < pos:  # overlapping spans: mark once
            continue
        out.append(text[pos:s])
        mark = UNKNOWN_MARK if lines[i].speaker is None else f"[{display(lines[i])}]"
        out.append(mark + " ")
        pos = s
    out.append(text[pos : chunk.end])
    return "".join(out).strip()
