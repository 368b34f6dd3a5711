"""Word error rate for measuring ASR, with the two usual normalisations, and STM references.

- `plain`: lowercase, punctuation stripped (apostrophes kept), whitespace collapsed.
- `whisper`: openai-whisper's `EnglishTextNormalizer`, the normalisation the Whisper paper reports
  its WER with (contractions expanded, numbers and British spellings standardised, fillers such
  as "uh"/"um" dropped, punctuation removed). Needs openai-whisper (the `asr` extra).

`wer(ref, hyp)` is (substitutions + deletions + insertions) / reference words, from jiwer's
word-level alignment (`jiwer.process_words`) of the normalised texts.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import jiwer

from ..errors import InputError

NORMALISERS = ("plain", "whisper")


def normalise_plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


@functools.lru_cache(maxsize=1)
def _whisper_normaliser():
    try:
        from whisper.normalizers import EnglishTextNormalizer
    except ImportError:
        raise InputError("the whisper normalisation needs openai-whisper: pip install 'rolecorpus[asr]'") from None
    return EnglishTextNormalizer()


def normalise_whisper(text: str) -> str:
    return " ".join(_whisper_normaliser()(text).split())


def normalise(text: str, how: str = "whisper") -> str:
    if how == "plain":
        return normalise_plain(text)
    if how == "whisper":
        return normalise_whisper(text)
    raise InputError(f"normalisation must be one of {', '.join(NORMALISERS)}, not {how!r}")


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Word-level Levenshtein distance (substitutions + deletions + insertions), by jiwer."""
    if not ref:
        return len(hyp)
    out = jiwer.process_words(" ".join(ref), " ".join(hyp))
    return out.substitutions + out.deletions + out.insertions


def wer(reference: str, hypothesis: str, normalisation: str = "whisper") -> float:
    ref = normalise(reference, normalisation).split()
    hyp = normalise(hypothesis, normalisation).split()
    if not ref:
        raise InputError("the reference transcript has no words")
    return float(jiwer.wer(" ".join(ref), " ".join(hyp)))


def read_stm(path: str | Path) -> list[dict]:
    """Rows of a NIST STM file: {file, channel, speaker, start, end, text}; `;;` comments skipped."""
    path = Path(path)
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith(";;"):
            continue
        parts = line.split(None, 5)
        try:
            start, end = float(parts[3]), float(parts[4])
        except (IndexError, ValueError):
            raise InputError("an STM row is: file channel speaker start end words", path, n) from None
        text = parts[5] if len(parts) > 5 else ""
        text = re.sub(r"^<[^>]*>\s*", "", text)  # optional <label> field
        rows.append({"file": parts[0], "channel": parts[1], "speaker": parts[2], "start": start, "end": end,
                     "text": text})
    if not rows:
        raise InputError("the STM file has no rows", path)
    return rows


def words_in_span(transcript: dict, start: float, end: float, margin: float = 0.3) -> str:
    """The transcript's words whose middle lies in [start - margin, end + margin] (what a reference covers)."""
    return " ".join(w["w"] for s in transcript["segments"] for w in s.get("words", [])
                    if start - margin <= (w["s"] + w["e"]) / 2 <= end + margin)


def compare_lines(a: list, b: list, tolerance: float = 0.1) -> dict:
    """How close two transcriptions' lines are (e.g. faster-whisper's and openai-whisper's of one file).

    `a` and `b` are lines with `text`, `start`, `end` (extractors.records.Line). Returns `wer` (b's words
    as the reference, plain normalisation), `lines_a` / `lines_b`, and `boundaries`: the share of all line
    starts and ends (both sides) that have one on the other side within `tolerance` seconds (1.0 = the same
    segmentation), with `max_shift`, the largest such difference in seconds.
    """
    ref = " ".join(ln.text for ln in b)
    hyp = " ".join(ln.text for ln in a)
    ta = sorted(t for ln in a for t in (ln.start, ln.end))
    tb = sorted(t for ln in b for t in (ln.start, ln.end))

    def near(ts, others):
        return [min((abs(t - o) for o in others), default=float("inf")) for t in ts]

    d = near(ta, tb) + near(tb, ta)
    hit = [x for x in d if x <= tolerance]
    return {"wer": wer(ref, hyp, "plain"), "lines_a": len(a), "lines_b": len(b),
            "boundaries": len(hit) / len(d) if d else 1.0, "max_shift": round(max(hit, default=0.0), 3)}
