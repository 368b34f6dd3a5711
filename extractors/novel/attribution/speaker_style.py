"""How each speaker of one book talks, learnt from that book alone: a multinomial naive Bayes over the words of the
quotations a name tag gives a speaker (`"…," said Sikes`), used to compare the two most likely speakers of an
untagged turn; and how long their turns are (`LengthModel`). Dialect and habit carry it (`wot`, `ain't`, `my dear`,
`I say`). It never decides on its own: the turn model takes each candidate's centred log-likelihood as a weak
emission (`Turn.style`, `Weights.style`), and the calibration reads its verdict on the guess against the runner-up
(`turn_evidence.style_llr`, as `llr` gives it for one text; `style_agrees`/`style_disagrees`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable

MIN_LENGTHS = 8   # tagged quotations a speaker needs before their turn lengths are modelled
MIN_LINES = 15     # tagged quotations a speaker needs before their style is modelled
ALPHA = 0.5        # additive smoothing of the word counts
STRONG = 3.0       # |log-likelihood ratio| that counts as the style model agreeing or disagreeing
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|[!?;—]")


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


class StyleModel:
    """Per-speaker word counts over a shared vocabulary; `llr` compares two speakers on one text."""

    def __init__(self, counts: dict[str, Counter]):
        self.vocab = len(set().union(*counts.values())) if counts else 0
        self.counts = counts
        self.totals = {s: sum(c.values()) for s, c in counts.items()}

    @classmethod
    def fit(cls, lines: Iterable[tuple[str, str]]) -> "StyleModel":
        """From (speaker, text) pairs: a model for every speaker with at least MIN_LINES of them."""
        by: dict[str, list[str]] = {}
        for speaker, text in lines:
            by.setdefault(speaker, []).append(text)
        return cls({s: Counter(t for x in texts for t in tokens(x)) for s, texts in by.items() if len(texts) >= MIN_LINES})

    def __contains__(self, speaker: str) -> bool:
        return speaker in self.counts

    def loglik(self, words: list[str], speaker: str) -> float:
        """log P(words | speaker), `words` as `tokens` gives them; the speaker must have a model."""
        c, n = self.counts[speaker], self.totals[speaker] + ALPHA * (self.vocab + 1)
        return sum(math.log((c.get(w, 0) + ALPHA) / n) for w in words)

    def llr(self, text: str, a: str, b: str) -> float | None:
        """log P(text | a) - log P(text | b); None when either has no model or the text no word."""
        words = tokens(text)
        if a not in self or b not in self or not words:
            return None
        return self.loglik(words, a) - self.loglik(words, b)


class LengthModel:
    """How long each speaker's turns are: a normal over log(1 + words) of the quotations a name tag gives them (their
    own mean, the book's spread); a weak emission of the turn model (`Weights.length`): the one telling a long story
    (Griffin to Kemp in The Invisible Man) speaks in long turns."""

    def __init__(self, means: dict[str, float], spread: float):
        self.means, self.spread = means, spread

    @classmethod
    def fit(cls, lines: Iterable[tuple[str, str]]) -> "LengthModel":
        """From (speaker, text) pairs: a mean for every speaker with at least MIN_LENGTHS of them."""
        by: dict[str, list[float]] = {}
        for speaker, text in lines:
            by.setdefault(speaker, []).append(math.log1p(len(text.split())))
        every = [v for vs in by.values() for v in vs]
        mu = sum(every) / max(1, len(every))
        spread = math.sqrt(sum((v - mu) ** 2 for v in every) / max(1, len(every))) or 1.0
        return cls({s: sum(vs) / len(vs) for s, vs in by.items() if len(vs) >= MIN_LENGTHS}, spread)

    def __contains__(self, speaker: str) -> bool:
        return speaker in self.means

    def loglik(self, words: int, speaker: str) -> float:
        """log-density (up to a constant shared by every speaker) of a turn of `words` words by `speaker`."""
        return -0.5 * ((math.log1p(words) - self.means[speaker]) / self.spread) ** 2
