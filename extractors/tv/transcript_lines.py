"""Whisper transcripts to dialogue lines: one line per sentence, a sentence Whisper cut in two joined again."""

from __future__ import annotations

import re

from ..records import Line

_SENTENCE_END = re.compile(r"[.?!。？！…]['\"”’)]*$")
_NEW_SENTENCE = re.compile(r"(?!I\b|I')[\"“‘(]*[A-Z]")  # a capital that is not the pronoun I


def _split_on_pauses(seg: dict, pause: float) -> list[dict]:
    """Split a segment after sentence-final words followed by a gap of at least `pause` s (None: never).

    A change of speaker almost always falls at a sentence end, often with no audible gap (the sample
    call's turns are 40 ms apart), so the default splits at every sentence end.
    """
    words = seg.get("words") or []
    if pause is None or len(words) < 2:
        return [seg]
    pieces, cur = [], []
    for i, w in enumerate(words):
        cur.append(w)
        nxt = words[i + 1] if i + 1 < len(words) else None
        if nxt is not None and _SENTENCE_END.search(w["w"]) and nxt["s"] - w["e"] >= pause:
            pieces.append(cur)
            cur = []
    if cur:
        pieces.append(cur)
    if len(pieces) == 1:
        return [seg]
    return [_piece(seg, ws) for ws in pieces]


def _piece(seg: dict, words: list[dict]) -> dict:
    text = " ".join(w["w"] for w in words).strip()
    return {**seg, "start": words[0]["s"], "end": words[-1]["e"], "text": text, "words": words}


def _join_broken_sentences(pieces: list[dict], gap: float = 0.3) -> list[dict]:
    """Rejoin a sentence Whisper cut at a segment boundary ("... At" | "least, you know ...").

    The next piece must follow within `gap` s and start in lower case; "... heard a beep" | "This is"
    stays two lines.
    """
    out: list[dict] = []
    for p in pieces:
        prev = out[-1] if out else None
        if (prev is not None and prev.get("words") and p.get("words") and p is not prev
                and not _SENTENCE_END.search(prev["words"][-1]["w"]) and p["start"] - prev["end"] < gap
                and not _NEW_SENTENCE.match(p["words"][0]["w"])):  # Whisper capitalises a new sentence
            out[-1] = _piece(prev, prev["words"] + p["words"])
        else:
            out.append(p)
    return out


def transcript_to_lines(transcript: dict, work: str, source: str, unit: str, *, split_pause: float | None = 0.0) -> list[Line]:
    """One dialogue line per sentence (split at sentence ends with a gap >= split_pause); speaker unknown."""
    pieces = [piece for seg in transcript["segments"] for piece in _split_on_pauses(seg, split_pause)]
    lines: list[Line] = []
    for piece in _join_broken_sentences(pieces):
        if not piece["text"]:
            continue
        lines.append(Line(
            work=work, source=source, unit=unit, index=len(lines), kind="dialogue", text=piece["text"],
            start=piece["start"], end=piece["end"],
            extra={"asr": {"backend": transcript["backend"], "model": transcript["model"],
                           "language": transcript.get("language"),
                           "avg_logprob": round(piece.get("avg_logprob", 0.0), 4),
                           "no_speech_prob": round(piece.get("no_speech_prob", 0.0), 4)},
                   "words": piece.get("words", [])},
        ))
    return lines
