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

Two more shapes are mentions wherever they stand (`TITLE_WORDS`):
- a title: two to six words in title case after a word and a space, even after a verb that may introduce speech
  (`had read and reread "The Purple Land."`), unless a speech verb opens the narration after it or it starts with a
  form of address (`whispered "Mr. Darcy."` is said);
- a phrase the sentence goes on from, its subject or object (`"The Purple Land" is a very sinister book`): the
  closing mark followed by a verb such as `is`, `was`, `had`, with no comma between.

Chinese (`is_zh_mention`, whatever the quotation marks): a term of at most `ZH_TERM_CHARS` characters without
punctuation, quoted right after a word of the clause that is no speech verb (`旗上大书“天公将军”`).
"""

from __future__ import annotations

import re

from .speech_tags import REPLY_NOUN, VERBS_EN

MAX_WORDS = 4
TITLE_WORDS = 6
_VERB = r"(?:" + VERBS_EN + r"|shouting|announcing|gasped|calling|call|cries|cry)\b"
_SPEECH_BEFORE = re.compile(r"\b" + _VERB + r"[^.!?]{0,30}$", re.I)  # `reread "…"` is no `read "…"`
_SPEECH_AFTER = re.compile(r"[\W_]*(?:[\w.'’-]+\s+){0,3}" + _VERB, re.I)
_UTTERANCE_NOUN = re.compile(r"\b(?:cr(?:y|ies)|exclamations?|chorus|shouts?|screams?|calls?|voices?|murmurs?|"
                             r"whispers?|yells?|answer|reply)\s+(?:of\s+)?$", re.I)
_AFTER_WORD = re.compile(r"[A-Za-z]\s+$")
_SMALL = {"a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "by", "from", "de", "la", "le",
          "von", "van", "der", "du", "des", "y", "et", "über"}
_ADDRESS = re.compile(r"(?:Mr|Mrs|Ms|Miss|Dr|Sir|Lady|Lord|Madam|Madame|Mademoiselle|Monsieur|Master|Mistress|Captain|"
                      r"Aunt|Uncle|Cousin|Father|Mother|Sister|Brother)\b\.?")
# the sentence goes on from the quoted phrase: `"The Purple Land" is a very sinister book` (but `"True" was her
# answer` and `"Nothing," was the reply` are said)
_GOES_ON = re.compile(r"[\"”’'`]?\s+(?:is|was|are|were|has|had|have|seems|seemed|remains|remained|became|becomes|"
                      r"means|meant|tells|told|begins|began|ends|ended|sounds|sounded)\b"
                      r"(?![^.!?;]{0,40}?\b" + REPLY_NOUN + r"\b|\s+(?:his|her|their|my|our|[A-Z][\w.]*(?:'s|’s)\s)|"
                      r"\s+the\s+(?:\w+\s+){0,2}(?:correction|rejoinder|retort|reply|answer|response)\b)")


def _title_case(words: list[str]) -> bool:
    """`The Purple Land`, `War and Peace`, `Forest Scenes`: every word capitalised but the small ones inside."""
    core = [w.strip(".,;:'\"“”‘’()") for w in words]
    if not 2 <= len(core) <= TITLE_WORDS or not core[0][:1].isupper():
        return False
    return all(w[:1].isupper() or (k and w.lower() in _SMALL) for k, w in enumerate(core) if w)


# Chinese: a short term quoted inside a clause (`旗上大书“天公将军”`, `号为“大贤良师”`): no punctuation inside, the
# character before the opening mark a word of the clause, not a speech verb or a colon (`曰：“…”`, `笑道“…”`)
_ZH_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_ZH_SPEECH = set("曰道云说說问問答叫呼喊喝骂罵笑叹嘆歎吟唱言告谓謂应應对對嚷")
ZH_TERM_CHARS = 8


def is_zh_mention(p: str, s: int, e: int) -> bool:
    """Whether the closed quotation with Chinese content `p[s:e]` is a term quoted inside narration."""
    words = p[s:e].strip()
    if not 0 < len(words) <= ZH_TERM_CHARS or re.search(r"[\s。！？，、；：!?,;:…—]", words):
        return False
    before = p[s - 2] if s >= 2 else ""
    return bool(_ZH_CHAR.match(before)) and before not in _ZH_SPEECH


def is_mention(p: str, s: int, e: int) -> bool:
    """Whether the closed quotation with content `p[s:e]` (its opening mark right before `s`) is a mention."""
    if _ZH_CHAR.search(p[s:e]):
        return is_zh_mention(p, s, e)
    before = p[:s].rstrip("\"“‘'`")
    words = p[s:e].split()
    if not words or re.search(r"[!?][\W_]*$", p[s:e]):
        return False
    after = p[e + 1:e + 60]
    if len(words) <= TITLE_WORDS and not re.search(r"[,;:—–-][\s\"'’”]*$", p[s:e]) and _GOES_ON.match(p, e + 1) \
            and not _SPEECH_AFTER.match(after):
        return True
    if not _AFTER_WORD.search(before):
        return False
    if _title_case(words) and not _ADDRESS.match(words[0]) and not _SPEECH_AFTER.match(after) \
            and not _UTTERANCE_NOUN.search(before):
        return True
    if len(words) > MAX_WORDS:
        return False
    return not (_SPEECH_BEFORE.search(before) or _SPEECH_AFTER.match(after) or _UTTERANCE_NOUN.search(before))
