"""Find the quotations of a novel, whatever its quoting convention.

Conventions: “…” (English and Chinese), "…", ‘…’, '…' (apostrophes inside words such as
`don't` are not quotes), `…' (as in the Gutenberg `alice29.txt`), 「…」 with 『…』 nested.
The text's main convention is detected from counts; quotes of another convention inside a
quotation stay part of its words. A quotation left open at the end of a paragraph is closed
there, and continues into the next paragraph when that paragraph opens with a quote mark
(the usual convention for a speech running over several paragraphs).

Quotations of one paragraph separated only by a short speech tag
(“I am,” said she, “quite sure.”) are joined into one utterance with several spans — unless the
narration between hands the word to someone else (`handover`) or the second part has a tag of its own
(`"Come up," said a Voice. "You'd better move on," said the mariner.`). A part that opens in lower case after a
tagged part goes on with its sentence, whatever the clause between (`"I hope," said Oliver, when Mrs. Maylie
returned, "that …"`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from extractors.text import SENTENCE_END_MARKS
from .quote_mentions import is_mention
from .speech_tags import ADJ_BARE, VERBS_EN

STYLES = ("cjk", "curly", "double", "backtick", "curly_single", "single")


@dataclass
class Quote:
    """One utterance: content spans (without quote marks) and outer spans (with them)."""

    spans: list[tuple[int, int]]
    outer: list[tuple[int, int]]
    para: int                     # index of the paragraph where it starts
    paras: list[int] = field(default_factory=list)  # paragraph of each span
    handover: bool = False        # opened by a reply tag after a tagged quote (`X said, "…" he answered, "…"`)

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]

    def text(self, text: str, sep: str = " ") -> str:
        return sep.join(text[s:e].strip() for s, e in self.spans if text[s:e].strip())


_SINGLE_OPEN = re.compile(r"(?:^|(?<=[\s(\[—\-\"“]))'(?=[^\s'])")


def uncovered(start: int, end: int, cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches of [start, end) outside the sorted `cuts` spans (the narration around quotes)."""
    out, pos = [], start
    for s, e in cuts:
        if s > pos:
            out.append((pos, s))
        pos = max(pos, e)
    if pos < end:
        out.append((pos, end))
    return out


def detect_style(text: str) -> str | None:
    """The main quoting convention of the text, or None when it has no quotation marks."""
    counts = {
        "cjk": text.count("「") + text.count("『"),
        "curly": text.count("“"),
        "double": text.count('"') // 2,
        "backtick": text.count("`"),
        "curly_single": text.count("‘"),
        "single": len(_SINGLE_OPEN.findall(text)),
    }
    best = max(STYLES, key=lambda s: (counts[s], -STYLES.index(s)))
    return best if counts[best] > 0 else None


def _is_word(ch: str) -> bool:
    return ch.isalnum()


def _closes_single(p: str, i: int) -> bool:
    """Is the ' or ’ at i a closing quote rather than an apostrophe inside a word?"""
    nxt = p[i + 1] if i + 1 < len(p) else ""
    prv = p[i - 1] if i > 0 else ""
    if nxt and _is_word(nxt):
        return False               # don't, Dinah'll, 'tis inside a quote
    if not prv or prv.isspace():
        return bool(prv) and not p[i + 1:].strip()  # `…you are the '` ending the paragraph: speech broken off
    return True


# the only characters `_scan_paragraph` acts on, per style: it jumps from one to the next
_MARKS = {style: re.compile("[" + re.escape(chars) + "]") for style, chars in
          {"double": '"', "curly": '“”"', "cjk": "「『」』", "backtick": "`'’", "curly_single": "‘’", "single": "'"}.items()}


def _scan_paragraph(p: str, style: str) -> tuple[list[tuple[int, int]], bool, bool]:
    """Quote content spans (relative to p); whether p opens with a quote; whether the last stays open."""
    spans: list[tuple[int, int]] = []
    opened_at: int | None = None
    depth = 0
    n = len(p)
    i = 0
    first_open = False
    marks = _MARKS[style]
    while i < n:
        m = marks.search(p, i)
        if m is None:
            break
        i = m.start()
        ch = p[i]
        if style == "double":
            if ch == '"':
                if opened_at is None:
                    opened_at = i + 1
                    first_open = first_open or not spans and not p[:i].strip()
                else:
                    spans.append((opened_at, i))
                    opened_at = None
        elif style == "curly":
            if ch == "“":
                if opened_at is not None:  # missing closer: the new opener ends the previous quote
                    spans.append((opened_at, i))
                opened_at = i + 1
                first_open = first_open or not spans and not p[:i].strip()
            elif ch in "”\"" and opened_at is not None:  # a “ closed by an ASCII " (common in Chinese e-texts)
                spans.append((opened_at, i))
                opened_at = None
        elif style == "cjk":
            if ch in "「『":
                if opened_at is None:
                    opened_at = i + 1
                    depth = 1
                    first_open = first_open or not spans and not p[:i].strip()
                else:
                    depth += 1
            elif ch in "」』" and opened_at is not None:
                depth -= 1
                if depth <= 0:
                    spans.append((opened_at, i))
                    opened_at = None
                    depth = 0
        else:
            openers = {"backtick": "`", "curly_single": "‘", "single": "'"}[style]
            closers = {"backtick": "'’", "curly_single": "’", "single": "'"}[style]
            if opened_at is None and ch in openers:
                prv = p[i - 1] if i else ""
                nxt = p[i + 1] if i + 1 < n else ""
                if style != "single" or ((not prv or not _is_word(prv)) and nxt and not nxt.isspace()):
                    j = i + 1
                    if style == "backtick" and nxt == "`":  # ``double opener
                        j += 1
                    opened_at = j
                    first_open = first_open or not spans and not p[:i].strip()
                    i = j
                    continue
            elif opened_at is not None and ch in closers and _closes_single(p, i) and i > opened_at:
                spans.append((opened_at, i))
                opened_at = None
                if i + 1 < n and p[i + 1] in closers:  # ''double closer
                    i += 1
            elif opened_at is not None and style == "backtick" and ch == "`":
                spans.append((opened_at, i))  # missing closer
                opened_at = i + 1
        i += 1
    left_open = opened_at is not None
    if left_open:
        spans.append((opened_at, len(p.rstrip())))
    spans = [(s, e) for s, e in spans if p[s:e].strip()]
    return spans, first_open, left_open


# a tag between two parts of one utterance: short, no sentence inside that starts a new speaker
_MAX_JOIN_GAP = 160


def find_quotes(text: str, paragraphs: list[tuple[int, int]], style: str | None = None,
                gender_of: Callable[[str], str | None] | None = None) -> list[Quote]:
    """All utterances in reading order (see the module docstring). `gender_of` (a name -> "male"/"female"
    or None) lets a name tag and a pronoun tag of different genders part two quotes (`handover`)."""
    style = style or detect_style(text)
    if style is None:
        return []
    quotes: list[Quote] = []
    carry: Quote | None = None  # a quote left open at the end of the previous paragraph
    for pi, (ps, pe) in enumerate(paragraphs):
        p = text[ps:pe]
        spans, first_open, left_open = _scan_paragraph(p, style)
        if spans:  # `the word "inquest."`, `旗上大书“天公将军”`: a mention is narration, not an utterance
            last = len(spans) - 1
            spans = [sp for k, sp in enumerate(spans) if (left_open and k == last) or not is_mention(p, *sp)]
        if not spans:
            carry = None
            continue
        abs_spans = [(ps + s, ps + e) for s, e in spans]
        para_quotes: list[Quote] = []
        for k, (s, e) in enumerate(abs_spans):
            o_s = s - 1 if s > ps else s
            o_e = e + 1 if e < pe and text[e] in "\"”」』'’" else e
            if k == 0 and carry is not None and first_open:
                carry.spans.append((s, e))
                carry.outer.append((o_s, o_e))
                carry.paras.append(pi)
                para_quotes.append(carry)
                continue
            prev = para_quotes[-1] if para_quotes else None
            between = text[prev.outer[-1][1]:o_s] if prev is not None else ""
            if prev is not None and len(prev.spans) == 1 and _handover(_pre_text(text, ps, para_quotes), between, gender_of):
                q = Quote([(s, e)], [(o_s, o_e)], pi, [pi], handover=True)
                quotes.append(q)
                para_quotes.append(q)
                continue
            if prev is not None and s - prev.outer[-1][1] <= _MAX_JOIN_GAP and (_tag_like(between) or _goes_on(between, text[s:e])) \
                    and not _own_tag(between, text[o_e:min(pe, o_e + 80)]):
                prev.spans.append((s, e))
                prev.outer.append((o_s, o_e))
                prev.paras.append(pi)
                continue
            q = Quote([(s, e)], [(o_s, o_e)], pi, [pi])
            quotes.append(q)
            para_quotes.append(q)
        carry = para_quotes[-1] if left_open else None
    return quotes


def _pre_text(text: str, ps: int, para_quotes: list[Quote]) -> str:
    """The narration of the paragraph right before its last quote so far (after the quote before it)."""
    last = para_quotes[-1]
    start = para_quotes[-2].outer[-1][1] if len(para_quotes) > 1 else ps
    return text[start:last.outer[0][0]] if not last.paras or last.paras[0] == last.paras[-1] else ""


_SUBJ = r"(?P<{}>he|she|(?:(?:Mr|Mrs|Miss|Ms|Dr|Lady|Sir)\.?\s+)?[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)"
_REPLIES = r"answered|replied|returned|retorted|rejoined|responded"
_SAY = r"(?:said|exclaimed|cried|asked|began|called|whispered|murmured|observed|remarked|" + _REPLIES + ")"
_REPLY = re.compile(_REPLIES)
# `…, and Margaret said, ` / `Then she said: ` / `as May exclaimed:  `: a tag before the first part (subject, verb, end)
_PRE_SAID = re.compile(r"(?:^|[.!?;,]\s+|\b(?i:and|as|when|then|so|but|while)\s+)" + _SUBJ.format("s1")
                       + r"(?:\s+\w+ly)?\s+(?P<v1>" + _SAY + r")\b[^.!?;:\"“”]{0,60}[,:]\s*$")
# ` he answered, ` / `  To which Miss Louisa answered, ` / ` she answered placidly: `: a tag of the next part
_MID_SAID = re.compile(r"\s*(?:(?:and|then|but|to\s+which)\s+)*" + _SUBJ.format("s2")
                       + r"(?:\s+\w+ly)?\s+(?P<v2>" + _SAY + r")\b[^.!?;:\"“”()]{0,60}[,:.]\s*", re.I)
_PRON_GENDER = {"he": "male", "she": "female"}


def _handover(pre: str, between: str, gender_of: Callable[[str], str | None] | None) -> bool:
    """`…and Margaret said, "Q1" he said, "Thank you,"` / `as May exclaimed: "Medora?" she answered placidly: "So…"`:
    the first part has a tag before it, so a subject-first tag between the parts is the next part's, from
    another speaker when its verb is a reply (answered, replied, …) or its subject's gender is not the first's."""
    m1, m2 = _PRE_SAID.search(pre), _MID_SAID.fullmatch(between)
    if m1 is None or m2 is None:
        return False
    s1, s2 = m1.group("s1"), m2.group("s2")
    if not s2[0].isupper() and s2.lower() not in _PRON_GENDER or s2 == s1:
        return False
    if _REPLY.fullmatch(m2.group("v2").lower()):
        return True
    g1, g2 = (_PRON_GENDER.get(x.lower()) or (gender_of(x) if gender_of else None) for x in (s1, s2))
    return g1 is not None and g2 is not None and g1 != g2


_SENT_BREAK = re.compile("[" + SENTENCE_END_MARKS + r"]\s+[A-Z\u4e00-\u9fff]")


def _own_tag(between: str, after: str) -> bool:
    """`"Hello," said Rosalind. "Good day," said Orlando.`: a tag that ends its sentence, then a part
    with a tag of its own — two utterances, not one. So is `"…," said X. "…"  "…," said Y` with nothing
    between the last two parts (a text that lost its paragraph breaks)."""
    if between.strip() and not re.search(r"[.!?]\s*$", between.strip()):
        return False
    return _TAG_OPENING.match(after) is not None


_VERB = r"(?:" + VERBS_EN + r")\b"
_NAME_VERB = r"[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}\s+" + _VERB
# text that opens with a speech tag naming its speaker (`said Oliver`, `Mr. Jackson continued`), and one that may
# also describe it (`said the mariner`, `remarked skeptical Anne`)
_NAME_TAG_OPENING = re.compile(r"[\s,]*(?:" + _VERB + r"\s+(?:the\s+)?[A-Z]|" + _NAME_VERB + ")")
_TAG_OPENING = re.compile(r"[\s,]*(?:" + _VERB + r"\s+(?:(?:the|a|an|his|her|their)\s+[a-z]|the\s+[A-Z]|(?:" + ADJ_BARE.pattern
                          + r")?[A-Z])|(?:the\s+)?" + _NAME_VERB + ")")


# `"…" and a Canary called out …, "…"` / `"…"; and Beaufort retorted: "…"` / `"…"  To which Miss Louisa
# answered, "…"`: a new clause with its own named subject and speech verb opens another utterance (a tag of the
# first part has no `and` before it)
_NEW_SPEAKER = re.compile(r"(?:^[\W_]*|[;,—]\s*)(?:and|but|while|whereupon|then|To\s+which|And\s+when)\s+"
                          r"(?:(?:the|a|an|one|old|young|little|poor)\s+)*"
                          r"[A-Z][\w.'-]*(?:\s+(?:van|de|der|von|[A-Z][\w.'-]*))*(?:\s+(?:\w+ly\s+)?(?:" + VERBS_EN + r"|[a-z]{3,}ed(?=[,:]))\b|"
                          r"(?:'s|’s)\s+(?:[a-z]+\s+){0,2}voice\b)")

_VOICE = re.compile(r"\b[A-Z][\w.-]*(?:'s|’s)\s+(?:[a-z]+\s+){0,2}voice\b")  # `… and after an interval May's voice:`


def _goes_on(between: str, words: str) -> bool:
    """`"I hope," said Oliver, when Mrs. Maylie returned, "that nothing …"`: a part that opens in lower case
    goes on with the sentence of the part before, whatever the clause between says."""
    return _NAME_TAG_OPENING.match(between) is not None and words.lstrip()[:1].islower() \
        and not _SENT_BREAK.search(_untitled(between))


def _untitled(b: str) -> str:
    """`Mrs. Maylie` -> `Mrs Maylie`: a title's full stop ends no sentence."""
    return re.sub(r"\b(Mr|Mrs|Ms|Dr|St|Capt|Col)\.", r"\1", b)


def _tag_like(between: str) -> bool:
    """Text between two quotes of a paragraph that reads as the speech tag of the first part
    (`, said she, ` / `, Alice replied, ` / `, looking at Darcy, `): the parts are one utterance.
    A full sentence of narration, or a second speech verb (a new speaker's tag), separates them."""
    b = between.strip()
    if not b:
        return True
    if re.search(r"[\u4e00-\u9fff]", b):
        return False  # Chinese narration between two quotes: two utterances (X曰：“…”Y曰：“…”)
    b2 = _untitled(b)
    b2 = re.sub(r"\([^()\"“”]*\)", "", b2)  # `"Then," Mr. Jackson continued (and Archer saw …), "then …"`: an aside
    if _SENT_BREAK.search(b2) or len(b) > _MAX_JOIN_GAP:
        return False
    verbs = re.findall(r"\b(?:" + VERBS_EN + r")\b", b2)
    if len(verbs) >= 2 or _NEW_SPEAKER.search(b2) or _VOICE.search(b2):
        return False
    words = re.sub(r"^[\W_]+", "", b2)
    if len(words) <= 30:
        return True
    return re.match(r"(?:[\w.'’-]+\s+){0,4}?(?:" + VERBS_EN + r")\b", words) is not None
