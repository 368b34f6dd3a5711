"""Rule-based speaker attribution for the quotations of a novel (no network, deterministic).

Stages (docs/novel.md, "The attribution's stages"): speech tags (`attribution/explicit_tags.py`), pronoun and noun tags,
turn-taking over each exchange (`attribution/turns.py`, `attribution/conversation.py`), leftover pronoun tags, then the hold: a guess below
`min_confidence` (by default the book's own, `calibration.book_hold`) keeps speaker None and goes to the LLM pass
when there is one. Each attributed quote carries a calibrated confidence and an evidence tag.
"""

from __future__ import annotations

import re

from extractors.characters import normalize_name

from .calibration import book_hold, calibrate, own_hold_ceiling
from .kinship import KIN_NOUNS, Kinship
from ..cast.names import Mention, NameIndex
from ..text.quotes import Quote, uncovered
from ..text.speech_tags import NOUN_GENDER, VERBS_EN  # noqa: F401  (VERBS_EN re-exported: the speech verbs)
from .speaker_guess import Attribution
from .conversation import SUGGEST, Weights
from .turns import NAME_RULES
from . import explicit_tags, pronouns, turns, zh

# forms of address that are not names (some character lists carry "Sir" or "Madam" as characters)
ADDRESS_WORDS = {"sir", "madam", "madame", "ma am", "maam", "miss", "mister", "lady", "lord", "my lord", "my lady",
                 "master", "mistress", "father", "mother", "papa", "mamma", "mama", "uncle", "aunt", "sister",
                 "brother", "child", "boy", "girl", "dear", "love", "darling", "your majesty", "your ladyship",
                 "your honour", "your honor", "gentlemen", "ladies", "sire", "dame"}

# The default hold (see 5. above), over confidences calibrated on the twelve PDNC dev novels (attribution/calibration.py): stricter
# than the lowest hold that keeps precision >= 0.92 on every one of them, so that a held-out book stays near 0.95 and
# the stories a user holds stay pure (figures: docs/benchmarks.md, `benchmarks/novel_calibrate.py`). It is also the
# ceiling of a discovered cast's own hold (`calibration.book_hold`, the default when no hold is given; a configured
# cast's starts lower, `calibration.CONFIGURED_CEILING`).
DEFAULT_MIN_CONFIDENCE = 0.88

# A discovered cast member named fewer than THIN_MENTIONS times in the text is thin: its turn-taking guesses
# are scaled by THIN_SCALE (a 0.99 guess becomes 0.84, held by the fixed hold; a lower hold, or a book's own
# hold below it, emits it, counted at that confidence).
THIN_MENTIONS = 30
THIN_SCALE = 0.85


# a name tag holds even where the quote also names its speaker (`"Come, Tom," said Tom to himself`; `金俊武…，无可奈何地
# 对金俊山说：“…你金俊武小子算老几？…”`: what others say of him)
_NAME_TAGS = frozenset({"verb-name", "name-verb", "zh-name-verb", "zh-other-verb", "zh-post-name-verb", "zh-post-other-verb",
                        "zh-name-clause", "zh-name-skip"})


class Attributor:
    # the turn model's settings (`turns`): its weights (None: conversation.Weights()), the weight of each kind of
    # pronoun-resolver suggestion (`conversation.load_weights`), and a list that collects each decoded exchange when
    # not None; benchmarks set them on the class or on one instance
    weights: Weights | None = None
    SUGGEST = dict(SUGGEST)
    debug: list | None = None

    def __init__(self, text: str, paragraphs: list[tuple[int, int]], quotes: list[Quote], index: NameIndex,
                 language: str = "en", min_confidence: float | None = None, para_chapter: list[int] | None = None):
        if min_confidence is not None:
            self.min_confidence = min_confidence
        elif language == "zh":
            from . import zh_model  # the hold fitted with the Chinese turn model (`zh_model.hold`)

            self.min_confidence = zh_model.hold() or self.min_confidence
        # no hold given: an English book's own (`calibration.book_hold`, at most the fixed one); Chinese the fitted one
        self.own_hold = min_confidence is None and language != "zh"
        self.hold = self.min_confidence
        # chapter of each paragraph: an exchange never runs across a chapter heading
        self.para_ch = para_chapter if para_chapter is not None else [0] * len(paragraphs)
        self.text, self.paras, self.quotes, self.index, self.lang = text, paragraphs, quotes, index, language
        self.by_para: dict[int, list[int]] = {}
        for i, q in enumerate(quotes):
            for p in dict.fromkeys(q.paras):
                self.by_para.setdefault(p, []).append(i)
        self.kin = Kinship(list(index.characters.values()), index.gender, text, index.lookup) if language != "zh" else None
        self.kin_mentions: list[Mention] = []
        self.narr_mentions = self._narration_mentions()
        if self.kin:
            self.kin_mentions = self._narration_kin_mentions()
            for m in self.kin_mentions:
                self.narr_mentions.setdefault(m.para, []).append(m)
            for ms in self.narr_mentions.values():
                ms.sort(key=lambda m: m.start)
        self._kin_starts = [m.start for m in self.kin_mentions]

    # ---- helpers -------------------------------------------------------------------------
    def _para_gaps(self, p: int) -> list[tuple[int, int]]:
        """Narration pieces of paragraph p (outside every quote)."""
        ps, pe = self.paras[p]
        cuts = sorted(o for i in self.by_para.get(p, []) for o, pp in zip(self.quotes[i].outer, self.quotes[i].paras) if pp == p)
        return uncovered(ps, pe, cuts)

    def _narration_mentions(self) -> dict[int, list[Mention]]:
        out: dict[int, list[Mention]] = {}
        for p in range(len(self.paras)):
            ms = []
            for s, e in self._para_gaps(p):
                ms.extend(self.index.mentions(self.text, s, e))
            out[p] = ms
        return out

    _KIN_NP = re.compile(r"\b([Hh]is|[Hh]er|[Tt]heir)\s+(?:own\s+|dear\s+|poor\s+|eldest\s+|youngest\s+|elder\s+|younger\s+)?("
                         + "|".join(KIN_NOUNS) + r")\b(?![-‐]in[-‐]law)")  # `his mother-in-law` is someone else

    def _narration_kin_mentions(self) -> list[Mention]:
        """`her father`, `his wife` in the narration, as mentions of the one relative they can be
        (the possessor: a character of that gender named in this paragraph before it, or in the
        two paragraphs before)."""
        out = []
        for p in range(len(self.paras)):
            for s, e in self._para_gaps(p):
                for km in self._KIN_NP.finditer(self.text, s, e):
                    g = {"his": "male", "her": "female"}.get(km.group(1).lower())
                    owners = [m.cid for pp in range(max(0, p - 2), p) for m in self.narr_mentions.get(pp, [])]
                    owners += [m.cid for m in self.narr_mentions.get(p, []) if m.start < km.start()]
                    rel: set[str] = set()
                    for c in dict.fromkeys(owners):
                        if g is None or self.index.gender.get(c) == g:
                            rel |= self.kin.relatives(km.group(2).lower(), c)
                    if len(rel) == 1:
                        m = Mention(km.start(), km.end(), next(iter(rel)), km.group(0))
                        m.para = p
                        out.append(m)
        return out

    def mentions(self, s: int, e: int) -> list[Mention]:
        """Character mentions in text[s:e]: names and aliases, and resolved `her father`-like phrases."""
        ms = self.index.mentions(self.text, s, e)
        if self.kin_mentions:
            import bisect
            k = bisect.bisect_left(self._kin_starts, s)
            extra = []
            while k < len(self.kin_mentions) and self.kin_mentions[k].start < e:
                if self.kin_mentions[k].end <= e:
                    extra.append(self.kin_mentions[k])
                k += 1
            if extra:
                ms = sorted(ms + extra, key=lambda m: m.start)
        return ms

    def _quote_text_mentions(self, q: Quote) -> list[Mention]:
        """The names inside quote q (asked for each quote by `vocatives` and again by every turn of its
        paragraph: found once; callers only read them)."""
        memo = self.__dict__.setdefault("_quote_mentions_memo", {})
        key = tuple(q.spans)
        ms = memo.get(key)
        if ms is None:
            ms = memo[key] = []
            for s, e in q.spans:
                ms.extend(self.index.mentions(self.text, s, e))
        return ms

    def _addressed(self, ms: list[Mention]) -> set[str]:
        """The characters that the vocatives `ms` address: never the quote's speaker."""
        out = set()
        for m in ms:
            out.add(m.cid)
            if self.kin:  # `Miss Bennet` said to any of the unmarried Bennet women, `Mr. Emerson` to either Emerson
                out |= self.kin.shared_miss(m.surface) | self.kin.shared_mr(m.surface)
        return out

    def _vocative_mentions(self, q: Quote) -> list[Mention]:
        """The names inside the quote that address someone (`"Lizzy, …"`, `"…, Mr. Darcy?"`)."""
        out = []
        for m in self._quote_text_mentions(q):
            if normalize_name(m.surface) in ADDRESS_WORDS:
                continue
            if self.lang == "zh":
                out.append(m)  # a name inside a Chinese quote is almost never the speaker himself
                continue
            before = self.text[max(0, m.start - 25):m.start]
            after = self.text[m.end:m.end + 2]
            seg_start = any(m.start - s <= 1 for s, _ in q.spans)
            if (seg_start or re.search(r"(?:[,!?;]|\b(?:my|dear|dearest|oh|O|pray|yes|no|well))\s*(?:my\s+)?(?:dear(?:est)?\s+)?$", before, re.I)) \
                    and (after[:1] in (",", "!", "?", ";", ".", "") or after.startswith("--") or m.end >= q.spans[-1][1] - 1):
                out.append(m)
        return out

    def _unlisted_description(self, a: Attribution) -> None:
        """`said the painter` / `said the lad` naming a list entry of no gender (a bare description, as PDNC lists
        `The Painter` beside Basil Hallward): the description is the speaker's epithet, so the tag is a noun-phrase
        tag (its noun's gender, if any) and turn-taking finds the person; the entry itself is rarely the speaker."""
        if a.speaker and a.rule in ("verb-descr/role-spread", "verb-descr/generic") and self.index.gender.get(a.speaker) is None:
            head = (a.surface or "").lower().split()[-1:] or [""]
            a.speaker, a.confidence, a.evidence = None, None, None
            a.pron_tag, a.want_gender = True, NOUN_GENDER.get(head[0])

    # ---- the whole pass ------------------------------------------------------------------
    def run(self) -> list[Attribution]:
        n = len(self.quotes)
        res = [explicit_tags.tag(self, i) or Attribution() for i in range(n)]
        for i, q in enumerate(self.quotes):
            ms = self._vocative_mentions(q)
            res[i].vocatives = self._addressed(ms) | res[i].addressees
            res[i].address_forms = {normalize_name(m.surface) for m in ms}
            if res[i].speaker in res[i].vocatives and res[i].rule not in _NAME_TAGS:
                res[i] = Attribution(vocatives=res[i].vocatives, address_forms=res[i].address_forms)
            self._unlisted_description(res[i])
            if res[i].rule in ("verb-noun", "noun-verb", "pre-noun-verb") and res[i].surface:
                km = re.match(r"(his|her|their)\s+(?:[a-z\-]+\s+)*?(" + "|".join(KIN_NOUNS) + r")$", res[i].surface.strip())
                if km:
                    res[i].kin = ({"his": "male", "her": "female"}.get(km.group(1)), km.group(2))
        self.runs, self.run_of = turns.find_runs(self)
        self.turn_of: dict[int, tuple[int, int]] = {}
        for r, run in enumerate(self.runs):
            for k, i in enumerate(run):
                for j in self.by_para[self.quotes[i].para]:
                    if self.quotes[j].para == self.quotes[i].para:
                        self.turn_of.setdefault(j, (r, k))
        if self.lang == "zh":
            return zh.run(self, res)  # Chinese: its own stages
        self._same_paragraph(res)
        turns.conversations(self, res)
        pronouns.leftover_pronouns(self, res)
        self._same_paragraph(res, any_evidence=True)
        self._handovers(res)
        calibrate(res, NAME_RULES)
        self._thin_members(res)
        return self._hold_unsure(res)

    def _thin_members(self, res: list[Attribution]) -> None:
        """A turn-taking guess for a discovered cast member the text names fewer than `THIN_MENTIONS` times
        has its confidence scaled by `THIN_SCALE` (below the default hold): with the discovered cast such
        guesses are right far less often than those for members named more often (docs/benchmarks.md).
        A configured character (`mentions` None) is never thin."""
        chars = self.index.characters
        for a in res:
            n = getattr(chars.get(a.speaker), "mentions", None) if a.speaker else None
            if a.evidence == "turn-taking" and n is not None and n < THIN_MENTIONS and a.confidence is not None:
                a.confidence *= THIN_SCALE

    def _handovers(self, res: list[Attribution]) -> None:
        """A quote the narration handed to someone else (`quotes.Quote.handover`: `X said, "…" he answered, "…"`)
        is not by the speaker of the quote before it: when both got the same speaker, the handed-over quote's
        guess is dropped (the first part's instead when only the second has a name tag)."""
        for i, q in enumerate(self.quotes):
            if not q.handover or not i or not res[i].speaker or res[i].speaker != res[i - 1].speaker:
                continue
            named = ["name" in (res[j].rule or "") and "pronoun" not in (res[j].rule or "") for j in (i - 1, i)]
            j = i - 1 if named == [False, True] else i
            res[j].speaker = res[j].confidence = res[j].evidence = None

    def _hold_unsure(self, res: list[Attribution]) -> list[Attribution]:
        """Guesses below the hold (`min_confidence`, or the book's own: `own_hold`) are not emitted (speaker None;
        the rule stays for diagnostics). The guess is kept in `held`: the LLM pass decides those quotes, and the
        guess is only used for a quote the LLM leaves unresolved."""
        if self.own_hold:
            ceiling = own_hold_ceiling(self.index.characters.values(), self.hold)
            self.hold = book_hold([a.confidence for a in res if a.speaker and a.confidence is not None], ceiling)
        for a in res:
            if a.speaker and (a.confidence or 0.0) < self.hold - 1e-9:
                a.held = (a.speaker, a.confidence, a.evidence)
                a.speaker = a.confidence = a.evidence = None
        return res

    # ---- conversations ---------------------------------------------------------------------
    # The hold (class default; an instance takes the `min_confidence` given to the constructor).
    min_confidence = DEFAULT_MIN_CONFIDENCE

    def _same_paragraph(self, res: list[Attribution], any_evidence: bool = False) -> None:
        """Quotes of one paragraph without a tag share the paragraph's attributed speaker."""
        for p, idx in self.by_para.items():
            known = [res[j] for j in idx if res[j].speaker and (any_evidence or res[j].evidence == "explicit-verb")]
            if not known:
                continue
            spk = known[0]
            if any(r.speaker and r.speaker != spk.speaker for r in known):
                continue
            # the family of the rule it copies: a name tag (`same-paragraph:name`) is surer than a guess
            kind = "name" if spk.rule in NAME_RULES else ("pronoun" if spk.pron_tag else "guess")
            first = min(j for j in idx if res[j] is spk)
            alone = all(m.cid == spk.speaker for m in self.narr_mentions.get(p, []))
            for j in idx:
                if res[j].speaker is None and not res[j].pron_tag and spk.speaker not in res[j].vocatives:
                    res[j].speaker, res[j].confidence, res[j].evidence = spk.speaker, min(0.85, spk.confidence or 0.85), spk.evidence
                    # `"A," said X. "B."` with nobody else in the paragraph: B goes on X's turn
                    res[j].rule = "same-paragraph:" + kind + self._after(idx, first, j, alone, spk.speaker)

    def _after(self, idx: list[int], first: int, j: int, alone: bool, speaker: str) -> str:
        """How quote j of a paragraph follows the one whose speaker it copies: `:after-alone` (nobody else
        named in the paragraph's narration), `:after-tag` (`"A," said X, glancing at Y. "B."`: j comes
        right after the tagged quote and the narration between them is its tag sentence, naming nobody else),
        `:after-tag+` (the same, with further sentences between), '' otherwise."""
        if j <= first:
            return ""
        if alone:
            return ":after-alone"
        if idx[idx.index(first) + 1:idx.index(first) + 2] != [j]:
            return ""
        gs, ge = self.quotes[first].outer[-1][1], self.quotes[j].outer[0][0]
        gap = self.text[gs:ge].strip()
        if not gap or not gap[0].islower():  # the tag does not follow the first quote mid-sentence
            return ""
        if any(m.cid != speaker and re.search(r"\b(?:and|but|when|while|till|until)\s+$", self.text[gs:m.start])
               for m in self.mentions(gs, ge)):  # `cried the Gryphon, and the Mock Turtle had ...`: another subject
            return ""
        return ":after-tag" if not re.search(r"[.!?]['\u2019\"]?\s+[A-Z]", gap[:-1]) else ":after-tag+"
