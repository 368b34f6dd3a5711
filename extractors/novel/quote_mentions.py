"""Quotation marks that quote a word, not a speech: `the word "inquest."`, `a "life-preserver"`, `too "different"`.

English narration puts short phrases in quotes to mention them (scare quotes, titles, labels, a term someone uses).
Such a phrase is no utterance: it must not become a dialogue line, take a turn in the conversation, or end up in a
character's stories. A closed quotation is a mention when all of these hold:
- its opening mark follows a word and a space (`the word "`, `a "`), not a comma, colon or the paragraph start;
- no speech verb ends the narration before it (`shouting "Stop thief!"`) or opens the narration after it
  (`"Please shut that door," said Mr. Cuss`), and the word before it is not an utterance noun (`cries of`);
- it has at most `MAX_WORDS` words and does not end with `!` or `?` (`a sulky "Good night, father!"` is said).
On the twelve PDNC dev novels these rules mark 393 quotations, 378 of which PDNC does not annotate as speech
(0.962; every book >= 0.83); the 15 it does are short asides such as `a sharp "Come in"` or `declaring that she
"simply must,"`.
"""

from __future__ import annotations

import re

from .speech_tags import VERBS_EN

MAX_WORDS = 4
_VERB = r"(?:" + VERBS_EN + r"|shouting|announcing|gasped|calling|call|cries|cry)\b"
_SPEECH_BEFORE = re.compile(_VERB + r"[^.!?]{0,30}$", re.I)
_SPEECH_AFTER = re.compile(r"[\W_]*(?:[\w.'’-]+\s+){0,3}" + _VERB, re.I)
_UTTERANCE_NOUN = re.compile(r"\b(?:cr(?:y|ies)|exclamations?|chorus|shouts?|screams?|calls?|voices?|murmurs?|"
                             r"whispers?|yells?|answer|reply)\s+(?:of\s+)?$", re.I)
_AFTER_WORD = re.compile(r"[A-Za-z]\s+$")


def is_mention(p: str, s: int, e: int) -> bool:
    """Whether the closed quotation with content `p[s:e]` (its opening mark right before `s`) is a mention."""
    before = p[:s].rstrip("\"“‘'`")
    words = p[s:e].split()
    if not _AFTER_WORD.search(before) or not words or len(words) > MAX_WORDS:
        return False
    if re.search(r"[!?][\W_]*$", p[s:e]):
        return False
    after = p[e + 1:e + 60]
    return not (_SPEECH_BEFORE.search(before) or _SPEECH_AFTER.match(after) or _UTTERANCE_NOUN.search(before))
