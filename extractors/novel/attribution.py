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
4. turn-taking: in a run of quote paragraphs, untagged quotes alternate between the two
   people of the exchange (A B A B), and the person a quote addresses by name answers it
   -> 0.6–0.7, `turn-taking`.

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
from .quotes import Quote

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
        out, pos = [], ps
        for s, e in cuts:
            if s > pos:
                out.append((pos, s))
            pos = max(pos, e)
        if pos < pe:
            out.append((pos, pe))
        return out

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
                                   rule="verb-pronoun")
            npm = _NP_AFTER_VERB.match(t, pos, e)
            if npm and npm.group(1) in NOUN_GENDER:
                return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                                   rule="verb-noun")
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
                               rule="pronoun-verb")
        npm = _NP_BEFORE_VERB.match(t, s, e)
        if npm and npm.group(1) in NOUN_GENDER:
            return Attribution(want_gender=NOUN_GENDER[npm.group(1)], pron_tag=True, surface=npm.group(0),
                               rule="noun-verb")
        return None

    _PREP = re.compile(r"(?:\b(?:to|at|with|of|for|on|by|from|upon|towards?|than|like|about|after|before|behind|beside|near|into|addressing|seeing)\s+(?:the\s+|poor\s+|dear\s+)?)$", re.I)

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
        return Attribution(want_gender=gender, pron_tag=True, surface=surface, rule="pre-pronoun-verb")

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
            res[i].vocatives = self.vocatives(q)
            if res[i].speaker in res[i].vocatives and res[i].rule not in ("verb-name", "name-verb"):
                res[i] = Attribution(vocatives=res[i].vocatives)
        self.runs, self.run_of = self._runs()
        # pronoun / noun-phrase tags, in reading order
        for i in range(n):
            a = res[i]
            if a.pron_tag and a.speaker is None:
                cid, conf = self._resolve_pronoun(i, a.want_gender, res)
                if cid:
                    a.speaker, a.confidence, a.evidence = cid, conf, "explicit-verb"
        # narration subject in the same paragraph
        for i in range(n):
            if res[i].speaker is None and not res[i].pron_tag:
                cid = self._narration_subject(i, res)
                if cid:
                    res[i].speaker, res[i].confidence, res[i].evidence, res[i].rule = cid, 0.75, "alias", "narration-subject"
        if self.lang == "zh":
            return res  # Chinese paragraphs hold whole exchanges: tags only, no paragraph/turn guesses
        self._same_paragraph(res)
        for run in self.runs:
            self._alternate(run, res)
        self._same_paragraph(res, any_evidence=True)
        return res

    # ---- conversations ---------------------------------------------------------------------
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

    def _resolve_pronoun(self, i: int, gender: str | None, res: list[Attribution]) -> tuple[str | None, float]:
        if gender is None:
            return None, 0.0
        q = self.quotes[i]
        voc = res[i].vocatives
        ps, pe = self.paras[q.para]
        # 1. an antecedent in the same paragraph, before the quote ends
        same = [m for m in self._subject_mentions(ps, q.outer[-1][1], gender) if m.cid not in voc
                and not any(s <= m.start < e for s, e in q.outer)]
        same = [m for m in same if not any(self.quotes[j].outer[0][0] <= m.start < self.quotes[j].outer[-1][1]
                                            for j in self.by_para.get(q.para, []))]
        if same:
            return same[0].cid, 0.85
        j = self._prev_quote_para(i)
        prev_speaker = None
        if j is not None and self.quotes[j].paras[-1] >= q.para - 2 and res[j].speaker:
            prev_speaker = res[j].speaker
        # 2. the people of this exchange
        parts = [c for c in self._participants(i, res) if self.index.gender.get(c) == gender and c not in voc]
        if len(parts) == 1:
            return parts[0], 0.85
        others = [c for c in parts if c != prev_speaker]
        if len(parts) > 1 and len(others) == 1:
            return others[0], 0.75
        # 3. the subject of the narration paragraph just before
        if q.para > 0 and not self.by_para.get(q.para - 1):
            s0, e0 = self.paras[q.para - 1]
            ms = [m for m in self._subject_mentions(s0, e0, gender) if m.cid not in voc]
            if ms:
                return ms[0].cid, 0.75
        # 4. whoever the previous quote addressed answers
        if j is not None and self.quotes[j].paras[-1] >= q.para - 2:
            for cid in res[j].vocatives:
                if self.index.gender.get(cid) == gender and cid != prev_speaker and cid not in voc:
                    return cid, 0.7
        for cid in self._recent_candidates(i, res, gender):
            if cid != prev_speaker and cid not in voc:
                return cid, 0.6
        return None, 0.0

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

    def _alternate(self, run: list[int], res: list[Attribution]) -> None:
        """Untagged quotes of an exchange: A B A B, the addressee answers, two people take turns."""
        def spk(k):
            return res[run[k]].speaker if 0 <= k < len(run) else None

        changed = True
        while changed:
            changed = False
            parts = self._participants(run[0], res)
            for k, i in enumerate(run):
                if res[i].speaker is not None:
                    continue
                voc = res[i].vocatives
                cand = None
                conf = 0.0
                # the person the previous quote addressed answers
                if k >= 1 and res[run[k - 1]].vocatives:
                    vs = [c for c in res[run[k - 1]].vocatives if c != spk(k - 1) and c not in voc]
                    if len(vs) == 1:
                        cand, conf, why = vs[0], 0.7, "addressee"
                if cand is None and spk(k - 1) and spk(k - 2) and spk(k - 1) != spk(k - 2):
                    cand, conf, why = spk(k - 2), 0.65, "alternation"
                elif cand is None and spk(k + 1) and spk(k + 2) and spk(k + 1) != spk(k + 2):
                    cand, conf, why = spk(k + 2), 0.6, "alternation-back"
                elif cand is None and len(parts) == 2 and (spk(k - 1) in parts or spk(k + 1) in parts):
                    other = spk(k - 1) if spk(k - 1) in parts else spk(k + 1)
                    cand, conf, why = [c for c in parts if c != other][0], 0.6, "two-people"
                if cand is None or cand in voc or cand == spk(k - 1) or cand == spk(k + 1):
                    continue
                res[i].speaker, res[i].confidence, res[i].evidence, res[i].rule = cand, conf, "turn-taking", why
                changed = True
