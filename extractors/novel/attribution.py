"""Rule-based speaker attribution for the quotations of a novel (no network, deterministic).

Rules, strongest first; each attributed quote carries a confidence and an evidence tag:

1. explicit tag with a name next to the quote, either order (`said Alice`, `Alice said`,
   `the Hatter went on`, `Mr. Bennet replied, "…"`, `玄德曰：「…」`, `张飞笑道：“…”`) -> 0.95,
   `explicit-verb`;
2. pronoun or noun-phrase tag (`said she`, `he replied`, `said his lady`, `他道：`) resolved to
   the most recent character of that gender in the paragraph, else among the recent
   speakers and people mentioned (not the one who spoke the paragraph before, not
   someone the quote addresses by name) -> 0.8, `explicit-verb`;
3. a character named as the subject of the narration in the same paragraph
   (`Elizabeth smiled. "…"`) -> 0.75, `alias`;
4. turn-taking: in a run of quote paragraphs, each gap of untagged turns is filled A B A B
   from the attributed turns before it and, independently, after it; both chains must be
   consistent with known turns, vocatives, `said to X` addressees and pronoun genders.
   Both ends agreeing -> up to 0.85 (`alternation-both`), one end -> 0.6–0.75, ends that
   disagree -> split at 0.5–0.55; the person a turn addresses by name answers it -> 0.7;
   a last weak A B A B pass -> 0.55 (`alternation-weak`), `turn-taking`.

Pronoun tags are resolved in order: a subject in the same paragraph, the previous speaker
for `she added`/`he went on`, the character the narration just before is about, the
person the previous turn addressed, the speaker of two turns before, the only participant
of that gender; the anchors and the turn-taking are iterated until nothing changes.
Use `--min-confidence 0.6` (or higher) to trade coverage for precision.

Vocatives (`"My dear Lizzy, …"`) are never taken for the speaker. A quote with no
defensible speaker keeps speaker None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from extractors.characters import normalize_name

from .names import Mention, NameIndex

# forms of address that are not names (some character lists carry "Sir" or "Madam" as characters)
ADDRESS_WORDS = {"sir", "madam", "madame", "ma am", "maam", "miss", "mister", "lady", "lord", "my lord", "my lady",
                 "master", "mistress", "father", "mother", "papa", "mamma", "mama", "uncle", "aunt", "sister",
                 "brother", "child", "boy", "girl", "dear", "love", "darling", "your majesty", "your ladyship",
                 "your honour", "your honor", "gentlemen", "ladies", "sire", "dame"}
from .quotes import Quote, uncovered

VERBS_EN = (
    "said|says|say|saying|replied|replies|reply|cried|cries|answered|answers|returned|observed|added|continued|"
    "exclaimed|asked|asks|inquired|enquired|remarked|thought|thinks|began|begun|repeated|whispered|shouted|called|"
    "screamed|muttered|murmured|interrupted|rejoined|resumed|pursued|protested|declared|insisted|urged|"
    "pleaded|sobbed|sighed|laughed|growled|roared|yelled|persisted|explained|retorted|spoke|went\\s+on|"
    "recollected|suggested|ventured|stammered|faltered|moaned|shrieked|sneered|grumbled|panted|gasped|argued|"
    "agreed|concluded|demanded|hinted|promised|reasoned|reflected|reminded|sang|snapped|squeaked|warned|"
    "wondered|yawned|joined\\s+in|put\\s+in|struck\\s+in|broke\\s+in|broke\\s+out|burst\\s+out|called\\s+out|"
    "cried\\s+out|said\\s+aloud|read\\s+out|read|bawled|chuckled|giggled|groaned|howled|hissed|lisped|"
    "mused|nodded|ordered|prompted|quoth|responded|retorted|scolded|shouted|smiled|stormed|told|urged|"
    "wailed|went\\s+on\\s+saying|whimpered|wept|cautioned|commanded|confessed|corrected|interposed|"
    "exclaiming|crying|replying|answering|returning|adding|continuing|observing|thinking|muttering|"
    "whispering|repeating|calling|shouting|screaming|remarking|asking|inquiring|enquiring|said\\s+to\\s+(?:him|her|it)self"
)
_V = r"(?:" + VERBS_EN + r")\b"
_ADV = r"(?:\s+(?:\w+ly|again|then|now|at\s+last|at\s+length|at\s+once|aloud|out|only|still|too|also|quickly|soon|instantly))*"
_LEAD = r"[\s,;:.!?\-—–)(_*]*"
PRON_GENDER = {"he": "male", "him": "male", "she": "female", "her": "female", "it": None, "i": None, "they": None}
NOUN_GENDER = {
    **{w: "female" for w in ("lady", "mother", "wife", "sister", "aunt", "daughter", "girl", "woman", "niece",
                             "cousin's wife", "ladyship", "mistress", "housekeeper", "queen", "duchess", "child")},
    **{w: "male" for w in ("father", "husband", "brother", "uncle", "son", "boy", "man", "gentleman", "nephew",
                           "lordship", "master", "friend's father", "king", "duke", "servant", "fellow")},
}

_AFTER_VERB = re.compile(_LEAD + r"(?:and\s+)?" + _V + _ADV + r"\s+(?:(?:poor|little|old|young|dear)\s+)?")
_PRON_AFTER_VERB = re.compile(r"(he|she|it|I)\b", re.I)
_NP_AFTER_VERB = re.compile(r"(?:his|her|the|their|its|my|our)\s+(?:[a-z\-]+\s+){0,2}?([a-z\-]+)\b")
_PRON_BEFORE_VERB = re.compile(_LEAD + r"(he|she|it|I)" + _ADV + r"\s+(?:had\s+|was\s+)?" + _V, re.I)
_NP_BEFORE_VERB = re.compile(_LEAD + r"(?:his|her|the|their|its)\s+(?:[a-z\-]+\s+){0,2}?([a-z\-]+)" + _ADV + r"\s+" + _V)
_CONTINUE = re.compile(r"\b(?:added|adding|continued|continuing|went\s+on|resumed|pursued|persisted|repeated)\b")
_VERB_ONLY = re.compile(r"\s*(?:,\s*[^,\"]{0,60},\s*)?" + r"(?:\w+ly\s+|then\s+|at\s+last\s+|again\s+|now\s+|only\s+|had\s+|was\s+|still\s+|soon\s+)*" + _V)
_SENT_END = re.compile(r"(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)[.!?;]\s|[.!?;]$|—\s*$")

ZH_VERBS = "曰|道|说|問|问|答|叫|喝|叹|嘆|笑|喊|骂|罵|告|言|云|谓|謂|应|應|吼|嚷|劝|勸|奏|禀|稟|请|請|呼|唱"
_ZH_TAG_END = re.compile(r"(?:" + ZH_VERBS + r")[^，。！？；“”「」『』]{0,2}[：:，,]?\s*$")
_ZH_PRON = {"他": "male", "她": "female"}


@dataclass
class Attribution:
    speaker: str | None = None
    confidence: float | None = None
    evidence: str | None = None
    rule: str | None = None
    surface: str | None = None
    want_gender: str | None = None     # tag found but with a pronoun/noun phrase of this gender
    pron_tag: bool = False
    vocatives: set = field(default_factory=set)
    verb: str | None = None            # the speech verb of a pronoun/noun-phrase tag
    addressees: set = field(default_factory=set)  # `said to Jane`: never the speaker
    held: tuple | None = None          # (speaker, confidence, evidence) of a guess below the hold


class Attributor:
    def __init__(self, text: str, paragraphs: list[tuple[int, int]], quotes: list[Quote], index: NameIndex,
                 language: str = "en"):
        self.text, self.paras, self.quotes, self.index, self.lang = text, paragraphs, quotes, index, language
        self.by_para: dict[int, list[int]] = {}
        for i, q in enumerate(quotes):
            for p in dict.fromkeys(q.paras):
                self.by_para.setdefault(p, []).append(i)
        self.narr_mentions = self._narration_mentions()

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

    def _quote_text_mentions(self, q: Quote) -> list[Mention]:
        ms = []
        for s, e in q.spans:
            ms.extend(self.index.mentions(self.text, s, e))
        return ms

    def vocatives(self, q: Quote) -> set[str]:
        """Characters addressed by name inside the quote: never its speaker."""
        out = set()
        for m in self._quote_text_mentions(q):
            if normalize_name(m.surface) in ADDRESS_WORDS:
                continue
            if self.lang == "zh":
                out.add(m.cid)  # a name inside a Chinese quote is almost never the speaker himself
                continue
            before = self.text[max(0, m.start - 25):m.start]
            after = self.text[m.end:m.end + 2]
            seg_start = any(m.start - s <= 1 for s, _ in q.spans)
            if (seg_start or re.search(r"(?:[,!?;]|\b(?:my|dear|dearest|oh|O|pray|yes|no|well))\s*(?:my\s+)?(?:dear(?:est)?\s+)?$", before, re.I)) \
                    and (after[:1] in (",", "!", "?", ";", ".", "") or after.startswith("--") or m.end >= q.spans[-1][1] - 1):
                out.add(m.cid)
        return out

    # ---- rule 1/2: tags ------------------------------------------------------------------
    def _post_tag(self, s: int, e: int) -> Attribution | None:
        """A tag right after a closing quote mark (or between two parts of one utterance)."""
        t = self.text
        m = _AFTER_VERB.match(t, s, e)
        if m:
            pos = m.end()
            nm = self.index.regex.match(t, pos, e) if self.index.regex else None
            if nm and (nm.group(1)[:1].isupper() or re.match(r"the\s", nm.group(0))):
                cid = self.index.lookup(nm.group(1))
                if cid:
                    return Attribution(cid, 0.95, "explicit-verb", "verb-name", nm.group(0))
            pm = _PRON_AFTER_VERB.match(t, pos, e)
            if pm:
                return Attribution(want_gender=PRON_GENDER.get(pm.group(1).lower()), pron_tag=True, surface=pm.group(1),
                                   rule="verb-pronoun", verb=m.group(0), addressees=self._addressees(pm.end(), e))
            npm = _NP_AFTER_VERB.match(t, pos, e)
            if npm and npm.group(1) in NOUN_GENDER:
                return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                                   rule="verb-noun", verb=m.group(0), addressees=self._addressees(npm.end(), e))
        lead = re.match(_LEAD, t[s:e]).end() + s
        nm = self.index.regex.match(t, lead, e) if self.index.regex else None
        if nm and nm.group(1)[:1].isupper():
            vm = _VERB_ONLY.match(t, nm.end(), e)
            cid = self.index.lookup(nm.group(1))
            if vm and cid:
                return Attribution(cid, 0.95, "explicit-verb", "name-verb", nm.group(0))
        pm = _PRON_BEFORE_VERB.match(t, s, e)
        if pm:
            return Attribution(want_gender=PRON_GENDER.get(pm.group(1).lower()), pron_tag=True, surface=pm.group(1),
                               rule="pronoun-verb", verb=pm.group(0), addressees=self._addressees(pm.end(), e))
        npm = _NP_BEFORE_VERB.match(t, s, e)
        if npm and npm.group(1) in NOUN_GENDER:
            return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                               rule="noun-verb", verb=npm.group(0), addressees=self._addressees(npm.end(), e))
        return None

    def _addressees(self, s: int, e: int) -> set:
        """`… to Jane` / `… to Miss Bennet` right after a speech verb: the person spoken to."""
        m = re.match(r"[\w\s]{0,30}?\bto\s+", self.text[s:min(e, s + 60)])
        if not m or self.index.regex is None:
            return set()
        nm = self.index.regex.match(self.text, s + m.end(), e)
        cid = self.index.lookup(nm.group(1)) if nm and nm.group(1)[:1].isupper() else None
        return {cid} if cid else set()

    _PREP = re.compile(r"(?:\b(?:to|at|with|of|for|on|in|by|from|upon|towards?|than|like|about|after|before|behind|beside|near|into|addressing|seeing)\s+(?:the\s+|poor\s+|dear\s+)?)$", re.I)

    _SUBORD = re.compile(r"\b(?:what|who|whom|whose|when|whenever|as|that|while|though|although|if|till|until|because|"
                         r"since|which|where|whether|than|before|after)\s+(?:[a-z]+\s+)?$", re.I)

    def _tag_subjects(self, a: int, b: int) -> list[tuple[int, str | None, str | None, str]]:
        """Possible subjects of a speech verb in text[a:b]: names and he/she that are neither objects
        of a preposition, possessives, nor inside a subordinate clause."""
        t = self.text
        cands = []
        for nm in self.index.mentions(t, a, b):
            before = t[max(a, nm.start - 16):nm.start]
            if self._PREP.search(before) or self._SUBORD.search(before) or t[nm.end:nm.end + 2] in ("'s", "’s"):
                continue
            cands.append((nm.start, nm.cid, None, nm.surface))
        for pm in re.finditer(r"\b(he|she)\b", t[a:b], re.I):
            pos = a + pm.start()
            before = t[max(a, pos - 16):pos]
            if self._PREP.search(before) or self._SUBORD.search(before):
                continue
            cands.append((pos, None, PRON_GENDER[pm.group(1).lower()], pm.group(1)))
        return cands

    def _pre_tag(self, s: int, e: int, full_stop: bool = False) -> Attribution | None:
        """A tag in the narration just before an opening quote mark: `Mr. Bennet replied, "…`,
        `Lady Catherine approached, and, after listening for a few minutes, said to Darcy,`."""
        t = self.text
        seg = t[s:e].rstrip()
        if full_stop and seg.endswith("."):
            seg = seg[:-1]
        if not seg.strip() or not re.search(r"(?:[,:\-—]|" + _V + r")\s*$", seg):
            return None
        e = s + len(seg)
        # the last speech verb, close to the quote, with nothing after it but a short complement
        vm = None
        for m in re.finditer(r"\b" + _V, t[max(s, e - 140):e]):
            vm = m
        if vm is None:
            return None
        v_start = max(s, e - 140) + vm.start()
        tail = t[v_start + len(vm.group(0)):e]
        if re.search(r"[.!?;]\s", tail) or len(tail) > 70:
            return None
        # the clause holding the verb (cut at ; too), else the whole sentence
        cut = sent = s
        for m in _SENT_END.finditer(t, s, v_start):
            if m.end() <= v_start:
                cut = m.end()
                if m.group(0)[0] in ".!?":
                    sent = m.end()
        cands = self._tag_subjects(cut, v_start)
        for nm in self.index.mentions(t, cut, v_start):  # `…, when Elizabeth called out,`: the name right before the verb
            if re.fullmatch(r"\s+(?:(?:\w+ly|then|now|again|at\s+last|at\s+once|instantly|immediately)\s+)*", t[nm.end:v_start]) \
                    and t[nm.end:nm.end + 2] not in ("'s", "’s") and not self._PREP.search(t[max(cut, nm.start - 16):nm.start]):
                cands = [(nm.start, nm.cid, None, nm.surface)]
        if not cands and sent < cut:
            cands = self._tag_subjects(sent, v_start)
        if not cands:
            by = re.match(r"\s+by\s+", tail)
            nm = self.index.regex.match(t, v_start + len(vm.group(0)) + by.end(), e) if by and self.index.regex else None
            if nm and self.index.lookup(nm.group(1)):  # `thus accosted by Miss Bingley,`
                return Attribution(self.index.lookup(nm.group(1)), 0.9, "explicit-verb", "pre-by-name", nm.group(0))
            return None
        pos, cid, gender, surface = max(cands)
        if cid:
            return Attribution(cid, 0.9, "explicit-verb", "pre-name-verb", surface)
        return Attribution(want_gender=gender, pron_tag=True, surface=surface, rule="pre-pronoun-verb",
                           verb=vm.group(0), addressees=self._addressees(v_start + len(vm.group(0)), e))

    def _zh_tag(self, s: int, e: int) -> Attribution | None:
        """`玄德曰：“`, `张飞大叫：“`, `植谓玄德曰：“` (the first name of the clause before the verb)."""
        t = self.text
        seg = t[s:e]
        if not _ZH_TAG_END.search(seg):
            return None
        cut = s
        for m in re.finditer(r"[。！？；，,：:”」』]", t[s:e].rstrip("：:，, \n\t")):
            cut = s + m.end()
        while cut < e and t[cut].isspace():
            cut += 1
        ms = self.index.mentions(t, cut, e)
        if ms and ms[0].start == cut:  # the name opens the clause: it is the subject
            return Attribution(ms[0].cid, 0.95, "explicit-verb", "zh-name-verb", ms[0].surface)
        pm = re.match(r"\s*([他她])", t[cut:e])
        if pm:
            return Attribution(want_gender=_ZH_PRON[pm.group(1)], pron_tag=True, surface=pm.group(1), rule="zh-pronoun")
        return None

    def tag(self, i: int) -> Attribution | None:
        q = self.quotes[i]
        t = self.text
        p = q.para
        ps, pe = self.paras[p]
        # narration before this quote within its paragraph
        prev_end = ps
        for j in self.by_para.get(p, []):
            if j < i:
                prev_end = max(prev_end, self.quotes[j].outer[-1][1])
        pre = (prev_end, q.outer[0][0])
        mids = [(q.outer[k][1], q.outer[k + 1][0]) for k in range(len(q.outer) - 1) if q.paras[k] == q.paras[k + 1]]
        lp = q.paras[-1]
        lps, lpe = self.paras[lp]
        nxt = lpe
        for j in self.by_para.get(lp, []):
            if j > i:
                nxt = min(nxt, self.quotes[j].outer[0][0])
        post = (q.outer[-1][1], nxt)
        if self.lang == "zh":
            a = self._zh_tag(*pre)
            if a:
                return a
            for s, e in mids + [post]:
                # “……”玄德道。 — a tag after the quote that ends its sentence
                m = re.match(r"[\s，,]*([^。！？“”「」，,：:]{1,8}?)(?:" + ZH_VERBS + r")[。！？]", t[s:e])
                if m:
                    ms = self.index.mentions(t, s + m.start(1), s + m.end(1))
                    if ms:
                        return Attribution(ms[0].cid, 0.9, "explicit-verb", "zh-post-name-verb", ms[0].surface)
            return None
        for s, e in mids + [post]:
            a = self._post_tag(s, min(e, s + 200))
            if a:
                return a
        a = self._pre_tag(*pre)
        if a is None and not t[pre[0]:pre[1]].strip() and p > 0 and prev_end == ps:
            # the tag ends the previous narration paragraph: `Mr. Bennet coolly observed,`
            pp = p - 1
            pps, ppe = self.paras[pp]
            last = pps
            for j in self.by_para.get(pp, []):
                last = max(last, self.quotes[j].outer[-1][1])
            if last < ppe and re.search(r"[,:\-—]\s*$", t[last:ppe]):
                a = self._pre_tag(last, ppe)
            elif last < ppe and re.search(r"\b" + _V + r"(?:\s+[\w' ]{0,30})?\.\s*$", t[last:ppe]):
                a = self._pre_tag(last, ppe, full_stop=True)  # `…, began scolding one of her daughters.`
                if a:
                    a.rule = "prev-" + (a.rule or "")
        return a

    # ---- the whole pass ------------------------------------------------------------------
    def run(self) -> list[Attribution]:
        n = len(self.quotes)
        res = [self.tag(i) or Attribution() for i in range(n)]
        for i, q in enumerate(self.quotes):
            res[i].vocatives = self.vocatives(q) | res[i].addressees
            if res[i].speaker in res[i].vocatives and res[i].rule not in ("verb-name", "name-verb"):
                res[i] = Attribution(vocatives=res[i].vocatives)
        self.runs, self.run_of = self._runs()
        self.turn_of: dict[int, tuple[int, int]] = {}
        for r, run in enumerate(self.runs):
            for k, i in enumerate(run):
                for j in self.by_para[self.quotes[i].para]:
                    if self.quotes[j].para == self.quotes[i].para:
                        self.turn_of.setdefault(j, (r, k))
        if self.lang == "zh":
            for i in range(n):
                a = res[i]
                if a.pron_tag and a.speaker is None:
                    cid, conf, _ = self._resolve_pronoun(i, a.want_gender, res, final=True)
                    if cid:
                        a.speaker, a.confidence, a.evidence = cid, conf, "explicit-verb"
            return res  # Chinese paragraphs hold whole exchanges: tags only, no paragraph/turn guesses
        self._same_paragraph(res)
        if self.use_hmm:
            self._conversations(res)
            self._leftover_pronouns(res)
            self._same_paragraph(res, any_evidence=True)
            return self._hold_unsure(res)
        # pronoun / noun-phrase tags and turn-taking, strongest evidence first, until nothing changes
        for final in (False, False, True):
            changed = True
            while changed:
                changed = False
                for i in range(n):
                    a = res[i]
                    if a.pron_tag and a.speaker is None:
                        cid, conf, why = self._resolve_pronoun(i, a.want_gender, res, final=final)
                        if cid:
                            a.speaker, a.confidence, a.evidence = cid, conf, "explicit-verb"
                            a.rule = f"{a.rule}/{why}"
                            changed = True
                self._same_paragraph(res)
                for run in self.runs:
                    changed |= self._alternate(run, res)
        # last resort, low confidence: plain A B A B from the two turns before (or after)
        for run in self.runs:
            self._weak_alternate(run, res)
        # narration subject in the same paragraph
        for i in range(n):
            if res[i].speaker is None and not res[i].pron_tag:
                cid = self._narration_subject(i, res)
                if cid:
                    res[i].speaker, res[i].confidence, res[i].evidence, res[i].rule = cid, 0.75, "alias", "narration-subject"
        self._same_paragraph(res, any_evidence=True)
        return res

    def _hold_unsure(self, res: list[Attribution]) -> list[Attribution]:
        """Guesses below `min_confidence` are not emitted (speaker None; the rule stays for diagnostics).
        The guess is kept in `held`: the LLM pass decides those quotes, and the guess is only used
        for a quote the LLM leaves unresolved."""
        for a in res:
            if a.speaker and (a.confidence or 0.0) < self.min_confidence - 1e-9:
                a.held = (a.speaker, a.confidence, a.evidence)
                a.speaker = a.confidence = a.evidence = None
        return res

    # ---- conversations ---------------------------------------------------------------------
    use_hmm = True
    # Default precision knob: turn-taking and pronoun guesses below this posterior are left for the
    # LLM (or unresolved). 0.85 keeps precision >= 0.90 on both PDNC dev books; set 0 for every guess.
    min_confidence = 0.85
    debug: list | None = None
    NAME_RULES = ("verb-name", "name-verb", "pre-name-verb", "pre-by-name", "prev-pre-name-verb")
    SUGGEST = {"narr-recent": 2.5, "same-subj": 2.0, "continue": 1.5, "narr-before": 1.0, "same-any": 1.0}
    min_posterior = 0.4
    scene_paras = 6
    leads_per_gender = 0

    def _para_quotes(self, p: int) -> list[int]:
        return [j for j in self.by_para.get(p, []) if self.quotes[j].para == p]

    def _narr_subjects(self, p: int, exclude: set) -> tuple[list[str], str | None]:
        """Characters named (not after a preposition, not possessive) in the narration of paragraph p,
        and the gender of a sentence-initial he/she there."""
        out: list[str] = []
        g = None
        for s, e in self._para_gaps(p):
            for m in self._subject_mentions(s, e, None):
                if m.cid not in exclude and m.cid not in out:
                    out.append(m.cid)
            if g is None:
                pm = re.search(r"(?:^|[.!?;]\s+|[\"”'’]\s*)(He|She)\b", self.text[s:e])
                if pm:
                    g = PRON_GENDER[pm.group(1).lower()]
        return out, g

    _ADDRESS = re.compile(r"(?:^|[,!?;]\s*|\b(?:yes|no|oh|pray|dear|well)\s+)(sir|madam|ma'am|ma’am|my\s+lord|my\s+lady|your\s+ladyship|"
                          r"your\s+lordship)(?=\s*(?:[,!?;.]|--|—|$))", re.I)

    def _address_gender(self, idx: list[int]) -> str | None:
        """`Yes, Sir`, `Madam,` inside the quotes of a turn: the gender of whoever it addresses."""
        found = set()
        for j in idx:
            for s, e in self.quotes[j].spans:
                for m in self._ADDRESS.finditer(self.text, s, e):
                    w = m.group(1).lower()
                    found.add("male" if w in ("sir", "my lord", "your lordship") else "female")
        return found.pop() if len(found) == 1 else None

    def _narr_recent(self, i: int, gender: str, exclude: set, max_paras: int = 2) -> str | None:
        """The nearest character of `gender` named as a possible subject in the narration before
        quote i: its own paragraph first, then up to `max_paras` narration-only paragraphs before it."""
        q = self.quotes[i]
        p = q.para
        segs = [(s, e) for s, e in self._para_gaps(p) if e <= q.outer[0][0]]
        for pp in range(p - 1, max(-1, p - 1 - max_paras), -1):
            if self.by_para.get(pp):
                break
            segs.insert(0, self.paras[pp])
        loose = None
        for s, e in reversed(segs):
            ms = [m for m in self._subject_mentions(s, e, gender) if m.cid not in exclude]
            for m in reversed(ms):
                if self._CLAUSE_START.search(self.text[max(s, m.start - 30):m.start]) or m.start == s:
                    return m.cid
            if ms and loose is None:
                loose = ms[-1].cid
        return loose if self.narr_recent_loose else None

    narr_recent_loose = False
    _CLAUSE_START = re.compile(r"(?:^|[.!?;:]\s*|--\s*|\b(?:and|but|when|while|as|where|till|until|before|after|though|although|that|"
                               r"then|so|yet|which|who)\s+|,\s*)(?:(?:however|then|now|at\s+last|at\s+length|immediately|instantly),?\s+)?$")

    def _leftover_pronouns(self, res: list[Attribution]) -> None:
        """Pronoun tags the conversation model did not settle (a second quote of a paragraph, or a
        turn it left open): the paragraph's own speaker when the gender fits, else the resolver."""
        for i, a in enumerate(res):
            if not a.pron_tag or a.speaker or not a.want_gender:
                continue
            q = self.quotes[i]
            mates = [j for j in self._para_quotes(q.para) if j != i and res[j].speaker]
            mates.sort(key=lambda j: (j > i, abs(j - i)))
            for j in mates:
                c = res[j].speaker
                if self.index.gender.get(c) == a.want_gender and c not in a.vocatives:
                    a.speaker, a.confidence, a.evidence, a.rule = c, 0.85, "explicit-verb", f"{a.rule}/para-speaker"
                    break
            if a.speaker:
                continue
            cid, conf, why = self._resolve_pronoun(i, a.want_gender, res, final=True)
            if cid:
                a.speaker, a.confidence, a.evidence, a.rule = cid, conf, "explicit-verb", f"{a.rule}/{why}"

    def _conversations(self, res: list[Attribution]) -> None:
        from .conversation import OTHER, Turn, decode

        spoke: dict[str, int] = {}
        for a in res:
            if a.speaker and a.rule in self.NAME_RULES:
                spoke[a.speaker] = spoke.get(a.speaker, 0) + 1
        self._leads = []
        for g in ("female", "male"):
            self._leads += [c for c in sorted(spoke, key=lambda c: -spoke[c]) if self.index.gender.get(c) == g][:self.leads_per_gender]
        for r, run in enumerate(self.runs):
            turns: list[Turn] = []
            counts: dict[str, float] = {}
            prev_p = None
            for k, i in enumerate(run):
                p = self.quotes[i].para
                idx = self._para_quotes(p)
                t = Turn()
                for j in idx:
                    t.vocatives |= res[j].vocatives
                for j in idx:
                    a = res[j]
                    if a.speaker and a.rule in self.NAME_RULES:
                        t.fixed = t.fixed or a.speaker
                    elif a.pron_tag and t.gender is None:
                        t.gender = a.want_gender
                        if a.want_gender:
                            cid, why = self._narr_recent(j, a.want_gender, a.vocatives), "narr-recent"
                            if cid is None:
                                cid, conf, why = self._resolve_pronoun(j, a.want_gender, res, final=False)
                            if cid and why in self.SUGGEST:
                                t.suggestion, t.suggestion_weight = cid, self.SUGGEST[why]
                            t.sug_why = why
                t.narr_subj, t.soft_gender = self._narr_subjects(p, t.vocatives)
                t.addr_gender = self._address_gender(idx)
                lo = (prev_p + 1) if prev_p is not None else max(0, p - 1)
                if lo < p:
                    if prev_p is not None:
                        t.gap_before = True
                    for g in range(lo, p):
                        if not self.by_para.get(g):
                            for c in self._narr_subjects(g, set())[0]:
                                if c not in t.narr_before:
                                    t.narr_before.append(c)
                prev_p = self.quotes[i].paras[-1]
                if t.fixed:
                    counts[t.fixed] = counts.get(t.fixed, 0) + 3
                for c in t.narr_subj:
                    counts[c] = counts.get(c, 0) + 1.5
                for c in t.narr_before:
                    counts[c] = counts.get(c, 0) + 1
                if t.suggestion:
                    counts[t.suggestion] = counts.get(t.suggestion, 0) + 1
                turns.append(t)
            if all(t.fixed for t in turns):
                continue
            voc_count: dict[str, int] = {}
            for t in turns:
                for c in t.vocatives:
                    voc_count[c] = voc_count.get(c, 0) + 1
            for c, n in voc_count.items():
                if c in counts or n >= 2:
                    counts[c] = counts.get(c, 0) + 0.5 * n
            prior: dict[str, float] = {}
            for rank, c in enumerate(self._recent_candidates(run[0], res, None)[:3]):
                counts[c] = counts.get(c, 0) + 0.5
                prior[c] = 0.6 - 0.2 * rank
            if r > 0:  # scene continuity: who spoke in the exchange just before
                prev_run = self.runs[r - 1]
                if self.quotes[run[0]].para - self.quotes[prev_run[-1]].paras[-1] <= self.scene_paras:
                    for j in prev_run[-4:]:
                        c = res[j].speaker
                        if c:
                            counts[c] = counts.get(c, 0) + 0.3
            cands = sorted(counts, key=lambda c: -counts[c])[:6]
            for c in self._leads:  # the book's leading speakers of each gender, always possible
                if c not in cands:
                    cands.append(c)
            core = {t.fixed for t in turns if t.fixed} | {c for t in turns for c in t.narr_subj + t.narr_before}
            post = decode(turns, cands, self.index.gender, prior, core=core)
            if self.debug is not None:
                self.debug.append((run, turns, cands, post))
            for k, i in enumerate(run):
                t = turns[k]
                if t.fixed:
                    continue
                best = max(post[k], key=post[k].get)
                pr = post[k][best]
                if best == OTHER or pr < self.min_posterior:
                    continue
                for j in self._para_quotes(self.quotes[i].para):
                    a = res[j]
                    if a.speaker or best in a.vocatives:
                        continue
                    a.speaker, a.confidence = best, round(min(0.9, pr), 3)
                    a.evidence = "explicit-verb" if a.pron_tag else "turn-taking"
                    a.rule = ((a.rule or "") + "/conv") if a.pron_tag else "conv"

    def _runs(self) -> tuple[list[list[int]], dict[int, int]]:
        """Runs of quote paragraphs (one quote per paragraph: its first) with at most one short
        narration paragraph between them: the exchanges where turn-taking applies."""
        runs: list[list[int]] = []
        for p in sorted(self.by_para):
            idx = [j for j in self.by_para[p] if self.quotes[j].para == p]
            if not idx:
                continue
            if runs:
                prev_p = self.quotes[runs[-1][-1]].paras[-1]
                gap = range(prev_p + 1, p)
                gap_len = sum(self.paras[g][1] - self.paras[g][0] for g in gap)
                if len(gap) <= self.max_gap_paras and gap_len < self.max_gap_chars:
                    runs[-1].append(idx[0])
                    continue
            runs.append([idx[0]])
        run_of = {}
        for r, run in enumerate(runs):
            for i in run:
                for j in self.by_para[self.quotes[i].para]:
                    run_of.setdefault(j, r)
        return runs, run_of

    max_gap_paras = 1
    max_gap_chars = 600

    def _participants(self, i: int, res: list[Attribution]) -> list[str]:
        """Speakers named by explicit tags in the exchange of quote i, in order of first turn."""
        r = self.run_of.get(i)
        if r is None:
            return []
        out: list[str] = []
        for k in self.runs[r]:
            for j in self.by_para[self.quotes[k].para]:
                a = res[j]
                if a.speaker and a.evidence == "explicit-verb" and a.speaker not in out:
                    out.append(a.speaker)
        return out

    def _recent_candidates(self, i: int, res: list[Attribution], gender: str | None, window_paras: int = 8) -> list[str]:
        """Characters by recency before quote i: speakers of earlier quotes and narration mentions."""
        q = self.quotes[i]
        events: list[tuple[int, str]] = []
        lo = max(0, q.para - window_paras)
        for p in range(lo, q.para + 1):
            for m in self.narr_mentions.get(p, []):
                if m.start < q.outer[0][0]:
                    events.append((m.start, m.cid))
        for j in range(i - 1, -1, -1):
            if self.quotes[j].para < lo:
                break
            if res[j].speaker:
                events.append((self.quotes[j].start, res[j].speaker))
        events.sort(reverse=True)
        out = []
        for _, cid in events:
            if cid not in out and (gender is None or self.index.gender.get(cid) == gender):
                out.append(cid)
        return out

    def _prev_quote_para(self, i: int) -> int | None:
        j = i - 1
        while j >= 0 and self.quotes[j].para == self.quotes[i].para:
            j -= 1
        return j if j >= 0 else None

    def _subject_mentions(self, s: int, e: int, gender: str | None) -> list[Mention]:
        """Mentions in text[s:e] that are not objects of a preposition nor possessives."""
        out = []
        for m in self.index.mentions(self.text, s, e):
            if gender and self.index.gender.get(m.cid) != gender:
                continue
            if self._PREP.search(self.text[max(s, m.start - 16):m.start]) or self.text[m.end:m.end + 2] in ("'s", "’s"):
                continue
            out.append(m)
        return out

    def _turn_speaker(self, r: int, k: int, res: list[Attribution]) -> str | None:
        """Speaker of turn k of run r (the first attributed quote of that paragraph)."""
        run = self.runs[r]
        if not 0 <= k < len(run):
            return None
        p = self.quotes[run[k]].para
        for j in self.by_para[p]:
            if self.quotes[j].para == p and res[j].speaker:
                return res[j].speaker
        return None

    def _turn_vocatives(self, r: int, k: int, res: list[Attribution]) -> set:
        run = self.runs[r]
        if not 0 <= k < len(run):
            return set()
        p = self.quotes[run[k]].para
        out = set()
        for j in self.by_para[p]:
            if self.quotes[j].para == p:
                out |= res[j].vocatives
        return out

    def _narration_before(self, i: int) -> bool:
        """Is quote i the first of its paragraph with narration (not a quote) just before it?"""
        q = self.quotes[i]
        return q.para > 0 and not self.by_para.get(q.para - 1)

    def _resolve_pronoun(self, i: int, gender: str | None, res: list[Attribution],
                         final: bool = False) -> tuple[str | None, float, str | None]:
        if gender is None:
            return None, 0.0, None
        q = self.quotes[i]
        voc = res[i].vocatives
        ps, pe = self.paras[q.para]
        # 1. an antecedent in the same paragraph, before the quote ends
        same = [m for m in self._subject_mentions(ps, q.outer[-1][1], gender) if m.cid not in voc
                and not any(s <= m.start < e for s, e in q.outer)]
        same = [m for m in same if not any(self.quotes[j].outer[0][0] <= m.start < self.quotes[j].outer[-1][1]
                                            for j in self.by_para.get(q.para, []))]
        if same:
            return same[0].cid, 0.85, "same-subj"
        rk = self.turn_of.get(i)
        # `she added`, `he went on`: the speaker of the turn before goes on
        if rk and res[i].verb and _CONTINUE.search(res[i].verb):
            prev = self._turn_speaker(rk[0], rk[1] - 1, res)
            if prev and self.index.gender.get(prev) == gender and prev not in voc:
                return prev, 0.8, "continue"
        # any mention of that gender in the paragraph (possessives too)
        same = [m for m in self.index.mentions(self.text, ps, q.outer[0][0])
                if self.index.gender.get(m.cid) == gender and m.cid not in voc
                and not self._PREP.search(self.text[max(ps, m.start - 16):m.start])
                and not any(self.quotes[j].outer[0][0] <= m.start < self.quotes[j].outer[-1][1]
                            for j in self.by_para.get(q.para, []))]
        if same:
            return same[-1].cid, 0.75, "same-any"
        # 2. a new exchange after narration: the character of that gender the narration is about
        if self._narration_before(i):
            s0, e0 = self.paras[q.para - 1]
            ms = [m for m in self._subject_mentions(s0, e0, gender) if m.cid not in voc]
            if ms:
                cnt: dict[str, int] = {}
                for m in ms:
                    cnt[m.cid] = cnt.get(m.cid, 0) + 1
                best = max(cnt, key=lambda c: (cnt[c], -[m.cid for m in ms].index(c)))
                return best, 0.8, "narr-before"
        if rk is None:
            return None, 0.0, None
        r, k = rk
        p1, p2 = self._turn_speaker(r, k - 1, res), self._turn_speaker(r, k - 2, res)
        # 4. whoever the previous turn addressed answers
        pv = [c for c in self._turn_vocatives(r, k - 1, res) if self.index.gender.get(c) == gender and c != p1 and c not in voc]
        if len(pv) == 1:
            return pv[0], 0.8, "prev-addressee"
        # 3. in an exchange: the one who spoke two turns before, when the gender fits
        if p2 and p2 != p1 and p2 not in voc and self.index.gender.get(p2) == gender and (p1 or final):
            return p2, 0.8, "p2"
        parts = [c for c in self._participants(i, res) if self.index.gender.get(c) == gender and c not in voc]
        if p1 and p1 in parts:
            others = [c for c in parts if c != p1]
            if len(others) == 1:
                return others[0], 0.75, "other-part"
        elif p1 and len(parts) == 1:
            return parts[0], 0.8, "only-part"
        if not final:
            return None, 0.0, None
        if len(parts) == 1 and parts[0] != p1:
            return parts[0], 0.65, "only-part-final"
        for cid in self._recent_candidates(i, res, gender):
            if cid != p1 and cid not in voc:
                return cid, 0.6, "recent"
        return None, 0.0, None

    def _narration_subject(self, i: int, res: list[Attribution]) -> str | None:
        """A character who is the subject of a narration sentence of the quote's paragraph."""
        q = self.quotes[i]
        p = q.para
        if len(self.by_para.get(p, [])) > 1 and self.by_para[p][0] != i:
            return None
        t = self.text
        ps, pe = self.paras[p]
        for m in self.narr_mentions.get(p, []):
            # sentence-initial (paragraph start, after a quote, or after . ! ?) and followed by a verb-like word
            before = t[max(ps, m.start - 3):m.start]
            at_start = m.start == ps or re.search(r"(?:[.!?\"”'’—:;]|--|^)\s*$", before) is not None
            if not at_start:
                continue
            if m.cid in res[i].vocatives:
                continue
            if re.match(r"(?:'s\b)", t[m.end:m.end + 2]):
                continue
            if re.match(r",?\s+(?:[a-z]+ly\s+)?(?:was|were|had|could|would|looked|smiled|laughed|coloured|blushed|"
                        r"turned|took|made|felt|did|gave|came|went|got|sat|stood|shook|nodded|hesitated|paused|"
                        r"raised|rose|began|then|instantly|immediately|however|now|only|still|again|could|"
                        r"[a-z]+ed)\b", t[m.end:m.end + 40]):
                return m.cid
        return None

    def _same_paragraph(self, res: list[Attribution], any_evidence: bool = False) -> None:
        """Quotes of one paragraph without a tag share the paragraph's attributed speaker."""
        for p, idx in self.by_para.items():
            known = [res[j] for j in idx if res[j].speaker and (any_evidence or res[j].evidence == "explicit-verb")]
            if not known:
                continue
            spk = known[0]
            if any(r.speaker and r.speaker != spk.speaker for r in known):
                continue
            for j in idx:
                if res[j].speaker is None and not res[j].pron_tag and spk.speaker not in res[j].vocatives:
                    res[j].speaker, res[j].confidence, res[j].evidence, res[j].rule = spk.speaker, min(0.85, spk.confidence or 0.85), spk.evidence, "same-paragraph"

    def _partner(self, r: int, k: int, res: list[Attribution], parts: list[str]) -> str | None:
        """The other person of a two-person exchange around turn k: the one turn k addresses
        by name, else the other of exactly two known participants."""
        me = self._turn_speaker(r, k, res)
        vs = [c for c in self._turn_vocatives(r, k, res) if c != me]
        if len(vs) == 1:
            return vs[0]
        others = [c for c in parts if c != me]
        if len(parts) == 2 and len(others) == 1:
            return others[0]
        return None

    def _alternate(self, run: list[int], res: list[Attribution]) -> bool:
        """Untagged turns of an exchange: two people take turns (A B A B), anchored on the
        attributed turns before and after the gap; when both ends exist the chain must reach
        the other end consistently, otherwise the gap is left alone."""
        r = self.run_of[run[0]]
        m = len(run)
        spk = [self._turn_speaker(r, k, res) for k in range(m)]
        conf = [self._turn_conf(r, k, res) for k in range(m)]
        parts = self._participants(run[0], res)
        changed = False
        k = 0
        while k < m:
            if spk[k] is not None:
                k += 1
                continue
            g0 = k
            while k < m and spk[k] is None:
                k += 1
            g1 = k - 1  # the gap is g0..g1
            fwd = bwd = None
            if g0 >= 1:
                a1 = spk[g0 - 1]
                a2 = spk[g0 - 2] if g0 >= 2 else None
                if a2 is None or a2 == a1:
                    a2 = self._partner(r, g0 - 1, res, parts)
                if a2 and a2 != a1:
                    fwd = {g0 + j: (a2 if j % 2 == 0 else a1) for j in range(g1 - g0 + 3) if g0 + j < m}
                    fwd_conf = min(conf[g0 - 1], conf[g0 - 2] if g0 >= 2 and spk[g0 - 2] == a2 else 0.8)
            if g1 + 1 < m:
                b1 = spk[g1 + 1]
                b2 = spk[g1 + 2] if g1 + 2 < m else None
                if b2 is None or b2 == b1:
                    b2 = self._partner(r, g1 + 1, res, parts)
                if b2 and b2 != b1:
                    bwd = {g1 - j: (b2 if j % 2 == 0 else b1) for j in range(g1 - g0 + 3) if g1 - j >= 0}
                    bwd_conf = min(conf[g1 + 1], conf[g1 + 2] if g1 + 2 < m and spk[g1 + 2] == b2 else 0.8)

            def ok(prop, pair):
                """Consistent with the known turns (a newcomer outside the pair may end the chain),
                vocatives, pronoun genders and addressees; also: is it confirmed by a known turn?"""
                confirmed = False
                for kk, c in prop.items():
                    if spk[kk] is not None:
                        if spk[kk] == c:
                            confirmed = True
                            continue
                        if spk[kk] in pair or not (kk < g0 or kk > g1):
                            return False, False
                        continue
                    i = run[kk]
                    if c in self._turn_vocatives(r, kk, res):
                        return False, False
                    if res[i].pron_tag and res[i].want_gender and self.index.gender.get(c) != res[i].want_gender:
                        return False, False
                    pv = [v for v in self._turn_vocatives(r, kk - 1, res) if v != prop.get(kk - 1, spk[kk - 1])] if kk else []
                    if len(pv) == 1 and pv[0] != c:
                        return False, False
                return True, confirmed

            fwd_ok, fwd_conf_by = ok({kk: c for kk, c in fwd.items() if kk >= g0}, set(fwd.values())) if fwd else (False, False)
            bwd_ok, bwd_conf_by = ok({kk: c for kk, c in bwd.items() if kk <= g1}, set(bwd.values())) if bwd else (False, False)
            agree = fwd_ok and bwd_ok and all(fwd[kk] == bwd[kk] for kk in range(g0, g1 + 1))
            if agree:
                prop, base, why = fwd, min(fwd_conf, bwd_conf) + 0.1, "alternation-both"
            elif fwd_ok and bwd_ok:
                if fwd_conf_by and not bwd_conf_by:
                    prop, base, why = fwd, fwd_conf - 0.1, "alternation"
                elif bwd_conf_by and not fwd_conf_by:
                    prop, base, why = bwd, bwd_conf - 0.15, "alternation-back"
                elif not fwd_conf_by and not bwd_conf_by:
                    prop, base, why = fwd, fwd_conf - 0.25, "alternation-newcomer"
                else:  # both confirmed but different: trust each end for its nearer half, low confidence
                    half = (g0 + g1) // 2
                    prop = {kk: (fwd[kk] if kk <= half else bwd[kk]) for kk in range(g0, g1 + 1)}
                    base, why = min(fwd_conf, bwd_conf) - 0.3, "alternation-split"
            elif fwd_ok:
                prop, base, why = fwd, fwd_conf - (0.1 if fwd_conf_by else 0.2), "alternation"
            elif bwd_ok:
                prop, base, why = bwd, bwd_conf - (0.15 if bwd_conf_by else 0.25), "alternation-back"
            else:
                # no chain: only the person the previous turn addressed by name answers
                if g0 >= 1:
                    vs = [c for c in self._turn_vocatives(r, g0 - 1, res) if c != spk[g0 - 1]]
                    i = run[g0]
                    if len(vs) == 1 and vs[0] not in self._turn_vocatives(r, g0, res) and not (
                            res[i].pron_tag and res[i].want_gender and self.index.gender.get(vs[0]) != res[i].want_gender) \
                            and (g0 + 1 >= m or spk[g0 + 1] != vs[0]):
                        res[i].speaker, res[i].confidence, res[i].rule = vs[0], 0.7, "addressee"
                        res[i].evidence = "explicit-verb" if res[i].pron_tag else "turn-taking"
                        spk[g0] = vs[0]
                        changed = True
                continue
            for kk in range(g0, g1 + 1):
                i = run[kk]
                c = min(0.85, base)
                if why != "alternation-both":
                    c -= 0.02 * (abs(g1 - kk) if why == "alternation-back" else abs(kk - g0))
                res[i].speaker, res[i].confidence, res[i].rule = prop[kk], round(max(c, 0.5), 3), why
                res[i].evidence = "explicit-verb" if res[i].pron_tag else "turn-taking"
                spk[kk] = prop[kk]
                changed = True
        return changed

    def _turn_conf(self, r: int, k: int, res: list[Attribution]) -> float:
        run = self.runs[r]
        if not 0 <= k < len(run):
            return 0.0
        p = self.quotes[run[k]].para
        for j in self.by_para[p]:
            if self.quotes[j].para == p and res[j].speaker:
                return res[j].confidence or 0.0
        return 0.0

    def _weak_alternate(self, run: list[int], res: list[Attribution]) -> None:
        """Gaps the consistent chains left: the speaker two turns before (or after) when the two
        neighbouring turns differ (confidence 0.55: below any usual --min-confidence)."""
        r = self.run_of[run[0]]
        m = len(run)
        spk = [self._turn_speaker(r, k, res) for k in range(m)]
        for back in (False, True):
            order = range(m - 1, -1, -1) if back else range(m)
            for k in order:
                i = run[k]
                if spk[k] is not None or res[i].pron_tag:
                    continue
                d = 1 if back else -1
                n1, n2 = k + d, k + 2 * d
                if not (0 <= n2 < m) or not spk[n1] or not spk[n2] or spk[n1] == spk[n2]:
                    continue
                cand = spk[n2]
                if cand in self._turn_vocatives(r, k, res) or (0 <= k - d < m and spk[k - d] == cand):
                    continue
                res[i].speaker, res[i].confidence, res[i].evidence, res[i].rule = cand, 0.55, "turn-taking", "alternation-weak"
                spk[k] = cand
