"""Personal names of a modern Chinese novel found from the text itself: the full names it writes often (a
surname and a two-character given name that jieba reads as one person's name, `孙少平`, `田福堂`) and the given
names it also writes alone (`少平`, `福堂`), which jieba often splits (`少` `安`) or misreads (`少平` as a number).

A speech tag's subject is then the longest such form opening its clause (`少平马上说`, `少安亲热地对她说`), where
cutting at the first predicate character would keep what follows the name (`少平马`) or lose it altogether.
No list of any book's names: a full name qualifies by its frequency and jieba's reading of it alone; titles and
kinship words (`王夫人`, `刘姥姥`) are not given names.
"""

from __future__ import annotations

import re
from collections import Counter

from .lexicon import _NAME_FINAL, _PRED, SURNAME, _SURNAMES, is_word, plain_surname, pos_tags, title_or_kin
from .names import has_compound_surname

# a full name is written at least this often (a person who speaks is named more than a handful of times)
MIN_FULL = 5
# a surname that is also a common verb or adverb (`顾`, `向`) starts a full name only this often or more: `顾养民`
MIN_FULL_AMBIGUOUS = 20
# its given name alone at least this many times besides the full name, to count as a form of its own
MIN_GIVEN = 3

_FULL = re.compile("(?=([" + _SURNAMES + "][\u4e00-\u9fff]{2}))")
_THING_MEASURE = "朵丛叢棵株枝束盆片颗顆"  # `一朵马兰花`: a flower, not 马兰花
_FULL2 = re.compile("(?=([" + _SURNAMES + "][\u4e00-\u9fff]))")
# a two-character full name (`苗凯`, `金富`): written at least this often on its own, opening a clause at least this
# share of those times (the subject of what follows); a surname and one character is often a word's start otherwise
MIN_FULL2, FULL2_OPENS = 10, 0.2
_OPENS = "，。！？；：\n“”「」"


def name_forms(text: str) -> dict[str, str]:
    """form -> full name, for every full name written at least `MIN_FULL` times (the form itself) and its given
    name where the text writes it alone at least `MIN_GIVEN` more times and no other full name shares it."""
    counts = Counter(m.group(1) for m in _FULL.finditer(text) if m.start() == 0 or text[m.start() - 1] not in _THING_MEASURE)
    full = []
    for f, n in counts.items():
        if n < MIN_FULL or not plain_surname(f[0]) and n < MIN_FULL_AMBIGUOUS or f[-1] in "家氏的" or title_or_kin(f) or title_or_kin(f[1:]) \
                or title_or_kin(f[:2]) or f[-1] in _PRED - _NAME_FINAL:
            continue  # `王夫人`, `贾母笑` (贾母 laughs): a title or a kin word, or a name and its predicate
        if f[-1] == "人" and is_word(f[:-1]):
            continue  # `庄稼人` (a peasant), `城里人`: a word and 人, someone of that kind, which jieba may read as a name
        tags = pos_tags(f)
        if len(tags) != 1 or not tags[0][1].startswith("nr"):
            continue  # `石圪节` (a place), `马上就`, `明白了`: no one's name to jieba (`李向前` is `nrfg`, a name)
        full.append(f)
    out = {f: f for f in full}
    owners = Counter(f[1:] for f in full)
    for f in full:
        given = f[1:]
        if owners[given] > 1 or has_compound_surname(f):
            continue  # two people share it; or `马懿` of `司马懿` (a given name opening with a surname is one: `明川`)
        if is_word(given) and not pos_tags(given)[0][1].startswith("nr"):
            continue  # `向前` (forward) in `李向前`: a common word wherever it stands alone
        if text.count(given) - counts[f] >= MIN_GIVEN:
            out[given] = f
    for f in _two_character_names(text, set(full)):
        out.setdefault(f, f)
    return out


def _two_character_names(text: str, full: set[str]) -> list[str]:
    """Surname-and-one-character names (`苗凯`, `金富`) jieba reads as a person's name, counted where they stand
    alone: not the start or the end of a three-character full name (`田润叶`, `郝红梅`), not a word's start
    (`田主任`, `曹书记`: the second character makes a word with the next), not a household (`周瑞家的`: his wife), not
    a title's place (`陈留王`)."""
    counts = Counter(m.group(1) for m in _FULL2.finditer(text))
    out = []
    for f, n in counts.items():
        if n < MIN_FULL2 or not plain_surname(f[0]) or f[-1] in "家氏的" or title_or_kin(f) \
                or any(g.endswith(f) for g in full):
            continue
        tags = pos_tags(f)
        if len(tags) != 1 or not (tags[0][1].startswith("nr") or tags[0][1] == "nz"):
            continue  # `金黄`, `明白`: no one's name to jieba (`金富` is `nz`)
        at = [m.start() for m in re.finditer(re.escape(f), text)]
        at = [k for k in at if text[k:k + 3] not in full and not is_word(text[k + 1:k + 3]) and text[k + 2:k + 3] not in "家氏"
              and not title_or_kin(text[k:k + 3])]
        opens = sum(k == 0 or text[k - 1] in _OPENS for k in at)
        if len(at) >= MIN_FULL2 and opens >= FULL2_OPENS * len(at):
            out.append(f)
    return out


def name_at(clause: str, forms: dict[str, str]) -> str | None:
    """The longest name form opening the clause, when something follows it (the predicate), or None."""
    for n in (3, 2):
        if len(clause) > n and clause[:n] in forms:
            return clause[:n]
    return None
