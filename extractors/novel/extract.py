"""Novel -> line records: decode, split chapters and paragraphs, find quotes, attribute speakers.

`extract_novel` is the one entry point. Offsets (`extra.start`/`extra.end`, and `extra.spans`
for every part of an interrupted quote) are Python character offsets into the decoded text
of the file *before* newline normalisation (a CRLF file keeps its offsets), which is what
PDNC's `quoteByteSpans` use.

A quotation's `name` is its speaker as the tag writes them (`Cohn`, `允`), on one line; `extra.display` is the
person's one full name when it differs (`Robert Cohn`, `王允`: a story labels every line of a person with it), and
`extra.said_by` the words of a tag naming someone outside the cast on a quotation nobody is given (`the chauffeur`).
A part heading (`PART II`) is the title of its unit, not a narration line.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Callable

from extractors.characters import Character
from extractors.errors import InputError
from extractors.records import Line
from extractors.text import mask_gutenberg
from extractors.textio import read_text

from .analysis import analyse
from .attribution.attributor import Attribution
from .cast.others import mark_narrator
from .text.quotes import Quote, uncovered

log = logging.getLogger(__name__)


def read_novel(path: str | Path, encoding: str | None = None) -> str:
    """Decoded text with every line ending turned into `\n` *without changing offsets*
    (`\r\n` becomes ` \n`, a lone `\r` becomes `\n`), and a Project Gutenberg licence header and footer
    blanked (its quoted terms are nobody's lines)."""
    return mask_gutenberg(read_text(path, encoding, keep_offsets=True))


def detect_language(text: str) -> str:
    sample = text[:200000]
    cjk = sum(1 for ch in sample if "\u4e00" <= ch <= "\u9fff")
    letters = sum(1 for ch in sample if ch.isalpha())
    return "zh" if letters and cjk / letters > 0.3 else "en"


def _clean(s: str, language: str) -> str:
    return "".join(s.split()) if language == "zh" else " ".join(s.split())


def _has_words(s: str) -> bool:
    return any(ch.isalnum() for ch in s)


def _events(text: str, paras: list[tuple[int, int]], quotes: list[Quote]) -> list[tuple[int, int, str, object]]:
    """Quotations and the narration/action pieces between them, in reading order: (start, rank, kind, payload)."""
    events: list[tuple[int, int, str, object]] = []
    q_paras: dict[int, list[Quote]] = {}
    for i, q in enumerate(quotes):
        events.append((q.start, 1, "q", i))
        for p in dict.fromkeys(q.paras):
            q_paras.setdefault(p, []).append(q)
    for pi, (ps, pe) in enumerate(paras):
        cuts = sorted(o for q in q_paras.get(pi, []) for o, pp in zip(q.outer, q.paras) if pp == pi)
        pieces = uncovered(ps, pe, cuts)
        kind = "action" if cuts else "narration"
        for s, e in pieces:
            if _has_words(text[s:e]):
                events.append((s, 0, kind, (pi, s, e)))
    events.sort(key=lambda ev: (ev[0], ev[1]))
    return events


def _unit(ch) -> str:
    return ch.title or ("front matter" if ch.number == 0 else str(ch.number))


def _quote_line(text: str, work: str, src: str, index: int, q: Quote, a: Attribution, ch, names: dict,
                language: str) -> Line:
    words = _clean(" ".join(text[s:e] for s, e in q.spans), language)
    extra = {"start": q.start, "end": q.end, "chapter": ch.number, "paragraph": q.para}
    if len(q.spans) > 1:
        extra["spans"] = [[s, e] for s, e in q.spans]
    if a.rule:
        extra["rule"] = a.rule
    name = a.surface if a.speaker and a.evidence == "explicit-verb" and a.rule and "pron" not in a.rule else None
    if a.speaker and not name:
        name = names[a.speaker].name if a.speaker in names else None
    name = _clean(name, language) if name else name  # `the ⏎ young Crab`: a tag broken over two lines
    if a.speaker:  # the person's one label in a story, whatever the tag calls them (`Cohn`, `Robert`; `允` -> 王允)
        display = names[a.speaker].name if a.speaker in names else a.speaker
        if display and display != name:
            extra["display"] = display
    elif a.outsider and not a.nobody and a.surface:  # `said the chauffeur`: nobody in the cast, named as the text does
        extra["said_by"] = _clean(a.surface, language)
    return Line(work=work, source=src, unit=_unit(ch), index=index, kind="dialogue",
                text=words, speaker=a.speaker, name=name,
                confidence=round(a.confidence, 3) if a.speaker else None,
                evidence=a.evidence if a.speaker else None, extra=extra)


def _llm_pass(lines: list[Line], text: str, chars: list[Character], llm, llm_kwargs: dict | None,
              held: dict[int, str], keep: str) -> list[Line]:
    """The LLM for the quotes the rules left unresolved. `keep`: `agree` keeps a speaker the model names only
    where it is the rules' own held guess for that line (`held`: line number -> speaker id), `all` every one.
    What is not kept stays unattributed, and the held guess is never given back alone: it is below the hold by
    definition (measured with the 1.5B local model: docs/llm.md)."""
    from .llm.kor import llm_attribute

    kw = dict(llm_kwargs or {})
    cache_dir = kw.pop("cache_dir", Path(".cache/rolecorpus/llm"))
    out = llm_attribute(lines, text, chars, llm, cache_dir, **kw)
    if keep == "all":
        return out
    return [new if new.evidence != "llm" or held.get(n) == new.speaker else old
            for n, (old, new) in enumerate(zip(lines, out))]


def extract_novel(path: str | Path, work: str, characters: list[Character] | dict[str, Character],
                  language: str | None = None, encoding: str | None = None, llm=None,
                  llm_kwargs: dict | None = None, progress: Callable[[int], None] | None = None,
                  text: str | None = None, min_confidence: float | None = None,
                  others: set[str] | frozenset[str] = frozenset(), llm_keep: str = "agree") -> list[Line]:
    """Line records of a novel: `dialogue` for each quotation (speaker by the rules, then by the
    LLM when `llm` is given), `narration`/`action` for the text between.

    `others`: ids among `characters` who are attributed like anyone but are nobody the user configured
    (`cast.others`): their lines come out with no speaker, only the `name` the text gives them (and the
    confidence and evidence of that name).

    `min_confidence` is the hold: rule guesses below it are not emitted (None: the calibrated
    default `attribution.DEFAULT_MIN_CONFIDENCE`; 0: every guess). With an LLM, held quotes are
    sent to it; `llm_keep` says which of its answers are kept (`_llm_pass`), the rest stay unattributed.

    An English text told in the first person gets its narrator among `characters` marked when none is
    (`cast.others.mark_narrator`: `said I` is theirs).

    Raises InputError for an empty or undecodable file and for a text without quotations."""
    path = Path(path)
    chars = list(characters.values()) if isinstance(characters, dict) else list(characters)
    if text is None:
        text = read_novel(path, encoding)
    language = language or detect_language(text)
    if language not in ("en", "zh"):
        raise InputError(f"language must be en or zh, not {language!r}")
    if language == "en":  # `said I` goes to the narrator, configured or not (`Hastings` in a list without the flag)
        chars = mark_narrator(chars, text, language)
    chapters, paras, para_ch, quotes, attrs = analyse(text, chars, language, min_confidence)
    if not quotes:
        raise InputError(f"no quotations found in {len(paras)} paragraph(s); is this a novel with dialogue?", path)
    names = {c.id: c for c in chars}
    held: dict[int, str] = {}  # line number -> the rules' guess held back for it (the LLM's keep rule)
    lines: list[Line] = []
    for n, (_pos, _, kind, payload) in enumerate(_events(text, paras, quotes)):
        if kind == "q":
            q = quotes[payload]
            if attrs[payload].held:
                held[len(lines)] = attrs[payload].held[0]
            lines.append(_quote_line(text, work, path.name, len(lines), q, attrs[payload],
                                     chapters[para_ch[q.para]], names, language))
        else:
            pi, s, e = payload
            ch = chapters[para_ch[pi]]
            if ch.part and s < ch.head_end:  # `PART II`: the unit's title, no narration (a paragraph to the rules)
                rest = text[ch.head_end:e]
                if not rest.strip():
                    continue
                s = ch.head_end + len(rest) - len(rest.lstrip())
            lines.append(Line(work=work, source=path.name, unit=_unit(ch), index=len(lines), kind=kind,
                              text=_clean(text[s:e], language),
                              extra={"start": s, "end": e, "chapter": ch.number, "paragraph": pi}))
        if progress and n % 500 == 0:
            progress(n)
    if llm is not None:
        lines = _llm_pass(lines, text, chars, llm, llm_kwargs, held, llm_keep)
    if others:
        lines = [replace(ln, speaker=None) if ln.speaker in others else ln for ln in lines]
    return lines


def summarise(lines: list[Line]) -> dict:
    """Counts for a one-line report."""
    dia = [ln for ln in lines if ln.kind == "dialogue"]
    att = [ln for ln in dia if ln.speaker]
    by_ev: dict[str, int] = {}
    for ln in att:
        by_ev[ln.evidence or "?"] = by_ev.get(ln.evidence or "?", 0) + 1
    guesses = [ln.confidence for ln in att if ln.evidence in ("explicit-verb", "turn-taking") and ln.confidence is not None]
    return {"lines": len(lines), "quotes": len(dia), "attributed": len(att), "by_evidence": by_ev,
            "least_kept": round(min(guesses), 3) if guesses else None}
