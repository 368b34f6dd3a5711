"""Chinese speaker attribution by speech tags (`玄德曰：「`, `宝玉听了，忙笑道：“`, `“……”玄德道。`), subject-less tags
that carry on the last speaker and pronoun tags resolved in context: stage functions over the attribution's state
(the `Attributor`: text, paragraphs, quotes, name index), `tags` for one quotation and `run` for the book. How
a subject is found and what each finding is worth: docs/novel.md, "Chinese attribution"."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from extractors.characters import slug

from ..cast.zh.names import COMPOUND_SURNAMES
from ..cast.zh.lexicon import _PRED, _SURNAMES, is_word, plain_surname, pos_tags
from ..cast.zh.tags import (_PERSON_END, _PRED2, CLAUSE_MARK, PRONOUNS, _base, _TRANSPARENT, bare_subject, is_group,
                            person_like, post_tag_clause, speaks_directly, strip_opener, tag_clause)
from .speaker_guess import Attribution
from . import zh_model
from .zh_modern import confidences, modern_turns, pronoun_back
from .zh_clauses import (_ALL, _ASKS, _COLON_CONF, _CONF, _FULL_STOP, _GOES_ON, _GOES_ON_CONF, _HEAR, _KIND_RULE,
                         _LEAD_ON, _LEAD_ON_CONF, _NAME_TAG_RULES, _PRONOUN_CONF, _REPLY_TAG, _SENDS, _SOUND,
                         _TOGETHER, _TOWARD, _TURN_CONF, _WHERE, _adverb_at, _clause_start, _colon_clause,
                         _place_after, _title_then_name, _written_colon, _ACTS_ON, _ADVERB_END, _kin_of, _described,
                         _apposed, _named, _manner, _nobody, _VOICE, _voice, _NEXT_TAG_END, post_asks_end)

if TYPE_CHECKING:
    from .attributor import Attributor


def _lookup(st: Attributor, surface: str) -> str | None:
    return st.index.lookup(surface) or st.index.lookup(_base(surface))


def _name_char(st: Attributor, c: str) -> bool:
    """Whether the text writes c as a given name: after a surname at the start of a clause (`王允`)."""
    known = st.__dict__.get("_zh_given")
    if known is None:  # one pass over the text: the character after each clause-opening surname
        pat = re.compile(r"(?:^|[，。．！？；：“”「」\s])[" + _SURNAMES + r"]([\u4e00-\u9fff])")
        known = st.__dict__["_zh_given"] = {m.group(1) for m in pat.finditer(st.text)}
    return c in known


_RECENT_CHARS = 400  # how far back a full name is looked for (a long paragraph; 240, 600 tried on the 三国 sample)


def _recent_full(st: Attributor, p: int, c: str) -> str | None:
    """The full name ending in the one-character given name c written shortly before p, where exactly one
    is (`曹洪` for `洪曰`, `夏侯惇` for `惇曰`; not when `何进` and `乐进` are both near)."""
    window = st.text[max(0, p - _RECENT_CHARS):p]
    pat = "(?:" + "|".join(COMPOUND_SURNAMES) + "|[" + _SURNAMES + "])" + re.escape(c)
    found = {m.group(0) for m in re.finditer(pat, window)}
    found = {f for f in found if (f[:2] in COMPOUND_SURNAMES or plain_surname(f[0]))  # not `于帝`, `谢肃`
             and (not is_word(f) or pos_tags(f)[0][1].startswith("nr"))}  # not `大进`, `连连`
    return next(iter(found)) if len(found) == 1 else None


def _member_subject(st: Attributor, p: int, end: int, ms: list) -> tuple[str, Attribution] | str | None:
    """The subject of a clause that opens with a cast member's form (mentions `ms`, the first at p): that member;
    two members written together when the tag says both speak (`尤氏秦氏都说道`); the name after a title member
    (`谋士贾诩曰`, `部将李堪曰`); for a one-character form, the other person whose full name was just written
    (`李肃…肃曰`); the member's parent or spouse (`少安妈`); "noun" when a place opens the clause; None when the form
    is a possessive (`宝玉的`)."""
    t = st.text
    m = max((m for m in ms if m.start == p), key=lambda m: m.end - m.start)
    # a one-character form inside a word is no second speaker (`孔明大惊`: not 孔明 and a `大`)
    ms = [n for n in ms if n.end - n.start > 1 or not (_PRED2.match(t, n.start) or is_word(t[n.start:n.start + 2]))]
    if _place_after(t, m.end, end):
        return "noun"  # `袁术背后转出骁将俞涉曰`: the place, not the person, opens the clause
    kin = _kin_of(t, m.end, end, st.index.gender.get(m.cid))
    if kin and kin.end() < end:  # `少安妈说`, `少安他妈说`: his mother, someone the cast does not hold
        return "other", Attribution(slug(t[p:kin.end()]), None, "explicit-verb", None, t[p:kin.end()])
    nxt = max((n for n in ms if n.start == m.end), key=lambda n: n.end, default=None) \
        if m.end < end and t[m.end] not in "的之家等们們" else None
    if nxt and _TOGETHER.search(t, m.end, end):
        last = m.end  # `尤氏秦氏都说道`: two people speak together
        while any(n.start == last for n in ms):
            last = max(n.end for n in ms if n.start == last)
        return "names", Attribution(slug(t[p:last]), None, "explicit-verb", None, t[p:last])
    if nxt and _title_then_name(m.surface, nxt.surface):
        m = nxt  # `谋士贾诩曰`, `侍中杨琦曰`: a title the cast holds, then the name (not `玄德聚众将问曰`)
    elif not nxt and m.end < end:
        name = bare_subject(t[m.end:end])
        if name and pos_tags(m.surface) == [(m.surface, "n")] and plain_surname(name[0]) \
                and pos_tags(name)[0] == (name, "nr"):  # a common noun (a title) the cast holds, then a name
            return "other", Attribution(slug(name), None, "explicit-verb", None, name)  # `部将李堪曰`
    if m.end - m.start == 1 and (m.end == end or t[m.end] not in "的之家等们們"):
        full = _recent_full(st, p, m.surface)  # `…金祎…祎曰`: not 费祎, whose `祎` the cast holds
        cid = _lookup(st, full) if full and m.surface != "公" and t.count(full) >= 3 else m.cid  # (`曹公`: a title)
        if cid != m.cid:
            return ("cast", Attribution(cid, None, "explicit-verb", None, m.surface)) if cid else \
                ("other", Attribution(slug(full), None, "explicit-verb", None, m.surface))
    if m.end == end or t[m.end] not in "的之家等们們":
        return "cast", Attribution(m.cid, None, "explicit-verb", None, m.surface)
    return None


def _subject(st: Attributor, p: int, end: int, verb_clause: bool = False) -> tuple[str, Attribution] | str | None:
    """The subject opening text[p:end]: (kind, Attribution) with kind cast / other / kin / names /
    pronoun; "none" when the clause opens with its predicate, "skip" when it opens with no subject,
    "noun" when with a noun that is no person (look further back in these three cases); "nobody" when someone the
    cast does not hold speaks (`帝曰`); None when nothing further back can be its subject."""
    t = st.text
    if p >= end:
        return "none"
    ms = st.index.mentions(t, p, end)
    if ms and ms[0].start == p + 1 and t[p] in "那这這":
        p += 1  # `那仙姑`
    if ms and ms[0].start == p and ms[0].end - p == 1 and p + 2 <= end and (is_word(t[p:p + 2]) or _PRED2.match(t, p, end)):
        ms = ms[1:]  # `飞身下马`, `策马便行`, `大呼曰`: a one-character name that is part of a word here
    if ms and ms[0].start == p:  # a cast member opens the clause: its subject, unless possessive
        got = _member_subject(st, p, end, ms)
        if got is not None:
            return got
    rel = None if re.match("[他她](?![们們])", t[p:p + 2]) else next((m for m in ms if m.start > p + 1 and t[m.start - 1] == "的"), None)
    if rel and rel is ms[0] and rel.end < end and t[rel.end] not in "的之家等们們" and not _SENDS.search(t, p, rel.start) \
            and not _TOWARD.search(t, p, rel.start) and not _ACTS_ON.search(t, p, rel.start):  # not `对身边的金俊山说`, `指了指旁边的兰花`
        got = _member_subject(st, rel.start, end, ms)  # `坐在炕上的金俊山也…说` (not `他忽然看见…的田福高`: he does)
        if isinstance(got, tuple):
            return got
    named = _named(st, p, end, ms, verb_clause)  # the one heard (`他还听见孙玉亭…说`), a name after an office
    if named:
        return named
    if t[p] in _PRED or _PRED2.match(t, p, end) or _TRANSPARENT.match(t, p, end):
        return "none"
    subj = bare_subject(t[p:end])
    if not subj:
        return _described(t, p, end) or "skip"
    if _manner(t, p, subj):  # `权威地说`, `支支吾吾说`: how it is said; who says it comes before, if anyone
        k = t.find(subj, p) + (len(subj) > 1 and subj[0] in "他她")  # `他生气地说`: 他
        subj = bare_subject(t[p:k] + "说") if k > p else None  # `曹书记权威地说`: 曹书记
        if not subj:
            return None
    if subj in PRONOUNS:
        if subj in ("他", "她"):
            return "pronoun", Attribution(want_gender=PRONOUNS[subj], pron_tag=True, surface=subj, rule="zh-pronoun")
        if subj in ("他们", "她们"):
            return "other", Attribution(slug(subj), None, "explicit-verb", None, subj)
        if subj == "我" and st.index.narrator:  # `我说`, `我问道`: the first-person narrator
            return "narrator", Attribution(st.index.narrator, None, "explicit-verb", None, subj)
        return None  # 我 (no narrator in the cast) / 你 / 其
    kin = subj[0] in "他她其" and len(subj) > 1  # `他女儿笑道`
    core = subj[1:] if kin else subj
    apposed = _apposed(core) if kin else None  # `他儿子润生`, `他媳妇银花`: the name after the kin word
    subj, core, kin = (apposed, apposed, False) if apposed else (subj, core, kin)
    if kin and subj[0] in "他她" and (not person_like(core) or pos_tags(core)[0][1].startswith("v")):
        # `他抗议说`, `她央求丈夫说`: the pronoun and its verb, not `他女儿`
        return "pronoun", Attribution(want_gender=PRONOUNS[subj[0]], pron_tag=True, surface=subj[0], rule="zh-pronoun")
    if len(core) == 3 and core[-1] in _ADVERB_END and plain_surname(core[0]) and (_lookup(st, core[:2]) or t.count(core) < 3):
        core = core[:2]  # `石钟才对苗凯说`: a name and the adverb `才` (then); not `侯生才`, a name the text writes often
    if kin and is_group(core):
        return None  # `其人曰`: someone the text has not named
    cid = _lookup(st, core)
    if cid:
        return "cast", Attribution(cid, None, "explicit-verb", None, core)
    if len(core) == 1 and not is_group(core):  # a one-character name the cast does not hold, or a verb
        if _adverb_at(t, p, end) and not _name_char(st, core):
            return "skip"  # `罕问道`: an adverb, and no name the text writes (`王允` for `允`)
        if verb_clause and core in _PERSON_END and speaks_directly(t[p:end], core) \
                and pos_tags(t[p:min(end, p + 4)])[0] in ((core, "n"), (core, "ng")) and not _name_char(st, core):
            return "other", Attribution(slug(core), None, "explicit-verb", None, core)  # `妻曰`, `吏答曰`
        direct = verb_clause and speaks_directly(t[p:end], core)
        full = _recent_full(st, p, core) if direct or _name_char(st, core) else None
        if full and not direct and not pos_tags(full)[0] == (full, "nr"):
            full = None  # in an earlier clause only a name jieba knows as one (`曹操…操闻之`, not `山有`: the hill has)
        if full:  # `…撞着乐进。进曰`, `…曹操…。操闻之，大怒曰`: the given name of the one full name just written
            cid = _lookup(st, full)
            return ("cast", Attribution(cid, None, "explicit-verb", None, core)) if cid else \
                ("other", Attribution(slug(full), None, "explicit-verb", None, core))
        return "nobody" if direct else "skip"  # `帝曰`: someone the cast does not hold speaks
    if not person_like(core) and not apposed and not (verb_clause and speaks_directly(t[p:end], core)):
        return "none" if pos_tags(t[p:end])[0][1] == "v" else "noun"  # `此石听了`: no person; `跳下炕来`: a verb
    return ("kin" if kin else "other"), Attribution(slug(core), None, "explicit-verb", None, core)


def _tag(st: Attributor, s: int, e: int) -> Attribution | None:
    """The speaker named by a tag that ends text[s:e]; an Attribution with rule `zh-goes-on-<where>`
    and no speaker when the narration back to s names nobody, `zh-nobody` when it names nobody on purpose."""
    t = st.text
    cs, colon = tag_clause(t, s, e), False
    if cs is None:
        cs, colon = _colon_clause(t, s, e), True
        if cs is None or _VOICE.search(t, s, e):
            return _voice(st, s, e) or (_nobody() if _written_colon(t, s, e) else None)
    end = e
    while end > cs and t[end - 1] in "：:，, \n\t":  # (no copy of the text before e: this runs per quote)
        end -= 1
    if _SENDS.search(t, cs, end):
        return _nobody()  # `贾政便使人…说`: the one sent speaks
    # people named inside the tag's clause after its start are spoken to (`向凤姐道`, `问香菱`)
    objects = {m.cid for m in st.index.mentions(t, cs, end) if m.start > strip_opener(t, cs, end)}
    where, crossed, lead, cs0, verb_end = 0, False, False, cs, end
    reply = bool(_REPLY_TAG.search(t, cs, end))
    while True:
        p = strip_opener(t, cs, end)
        if cs > s and t[cs - 1] == "、":
            return _nobody()  # `李傕、郭汜、樊稠四人…`: one of a list, no subject of the sentence
        # `忽听X…`: X is the subject of the tag's own clause only; before it, the hearer speaks
        if where and _SOUND.search(t, cs, end):  # `只听后院中有人笑声，说：`: the sound's source speaks
            a = _subject(st, p, end)
            if not isinstance(a, tuple):
                return _nobody()  # `背后喊声震天，大叫：`: someone the text does not name
        else:
            a = "none" if where and _HEAR.match(t, cs, end) else _subject(st, p, end, not where)
        if isinstance(a, tuple):
            kind, a = a
            a.addressees = objects
            if kind == "pronoun":
                return a
            if where and (kind in ("cast", "kin", "narrator") or kind == "other" and not is_group(a.surface)
                          and a.surface[0] not in "二两兩三四五六七八九十几幾") \
                    and _ALL.search(t, cs0, verb_end):
                return _nobody()  # `都道` after one person: several speak
            w = _WHERE[where]
            a.confidence = _CONF[kind][w]
            a.rule = f"zh-{_KIND_RULE[kind]}-{w}"
            if kind == "cast" and w == "sentence" and lead and (cs <= s or t[cs - 1] in _FULL_STOP):
                a.rule, a.confidence = a.rule + "-lead", _LEAD_ON_CONF
            if colon:  # no speech verb: only the subject of the colon's own clause, at most 0.9
                if where or kind not in ("cast", "other", "names", "narrator"):
                    return None
                a.rule, a.confidence = a.rule + "-colon", min(a.confidence, _COLON_CONF)
            return a
        if a is None or a == "nobody":
            return _nobody() if a else None
        if where == 1 and reply and _ASKS.match(t, p, end):
            return _nobody()  # `玄德…问左右，答曰`: who was asked answers, not the asker
        if a in ("skip", "noun"):
            where = max(where, _WHERE.index(a))
        if cs <= s:  # nobody named back to the last quotation (or the paragraph start)
            if colon or _ALL.search(t, cs0, verb_end):
                return _nobody()  # `都道`: several speak
            return Attribution(rule="zh-goes-on-" + _WHERE[where], surface=t[s:e], addressees=objects)
        if t[cs - 1] not in "，,；;" + _FULL_STOP:
            return None
        if t[cs - 1] in _FULL_STOP:
            if crossed:
                return None
            # a sentence that opens with `因`/`遂`/`又` and names nobody before its tag goes on from the one
            # before (not `又引糜竺来见玄德，具言…`: who is brought speaks)
            lead = where <= 2 and bool(_LEAD_ON.match(t, cs, end)) and not st.index.mentions(t, cs, cs0)
            crossed, where = True, max(where, 3)
        end = cs - 1
        cs = _clause_start(t, s, end)
        where = max(where, 1)


def tags(st: Attributor, pre: tuple[int, int], mids: list[tuple[int, int]], post: tuple[int, int]) -> Attribution | None:
    """The tag of one quotation: the narration before it first, then after each of its parts (a pronoun tag there,
    `“……”她急切地问。`, where the narration before names nobody)."""
    t, a, pron = st.text, _tag(st, *pre), None
    if a and a.speaker:
        return a
    for s, e in mids + [post]:
        k = post_tag_clause(t, s, e)  # “……”玄德道。 / “……”张伟笑着说，“……” / “……”少安问润叶。
        b = _tag(st, s, v := post_asks_end(t, s, k)) if k else None
        if b and v < k:  # the one asked is spoken to
            b.addressees = b.addressees | {m.cid for m in st.index.mentions(t, v, k)}
        if b and b.speaker and (b.rule or "").endswith("-verb"):
            b.rule = "zh-post-" + b.rule[3:]
            return b
        pron = pron or (b if b and b.pron_tag else None)
    return a or pron


def _antecedent(st: Attributor, i: int, gender: str | None) -> tuple[str, str] | None:
    """The last cast member of a fitting gender opening a clause in the narration of quote i's
    paragraph before it."""
    q = st.quotes[i]
    ps = st.paras[q.para][0]
    best = None
    for s, e in st._para_gaps(q.para):
        if s >= q.outer[0][0]:
            break
        for m in st.index.mentions(st.text, s, min(e, q.outer[0][0])):
            k = m.start
            while k > s and st.text[k - 1] in "这這那":
                k -= 1
            g = st.index.gender.get(m.cid)
            if gender and g and g != gender:
                continue
            if k == ps or k == s or CLAUSE_MARK.match(st.text[k - 1]):
                best = (m.cid, m.surface)
    return best


def run(st: Attributor, res: list[Attribution]) -> list[Attribution]:
    """After the tags: a subject-less `又道` tag takes the speaker of the quotation before it in the
    paragraph; pronoun tags take the paragraph's last clause-opening person (held); groups stay as written."""
    for i in range(len(st.quotes)):
        a = res[i]
        if (a.rule or "").startswith("zh-goes-on") and a.speaker is None:
            gap, a.surface = a.surface or "", None
            j = i - 1
            if j >= 0 and st.quotes[j].paras[-1] == st.quotes[i].para and res[j].speaker \
                    and (res[j].confidence or 0) >= st.min_confidence and res[j].speaker not in a.vocatives \
                    and _GOES_ON.search(gap):
                a.speaker, a.surface, a.evidence = res[j].speaker, res[j].surface, res[j].evidence
                a.confidence = min(res[j].confidence, _GOES_ON_CONF[a.rule.rsplit("-", 1)[1]])
        if a.pron_tag and a.speaker is None:
            ante, rule = _antecedent(st, i, a.want_gender), "zh-pronoun"
            if not ante:  # none in the paragraph: the paragraphs before (zh_modern.pronoun_back)
                ante, rule = pronoun_back(st, i, a.want_gender, res), "zh-pronoun-back"
            if ante and ante[0] not in a.vocatives:
                if a.want_gender and st.index.gender.get(ante[0]) == a.want_gender:
                    rule += "-gender"  # the pronoun's gender and the member's agree (not merely no clash)
                    if _sole_of_gender(st, i, a.want_gender):
                        rule += "-sole"  # nobody else of that gender named in the paragraph or the one before
                a.speaker, a.evidence, a.rule = ante[0], "explicit-verb", rule
                a.confidence = confidences().get(rule, _PRONOUN_CONF)
        if a.speaker and "-other-" in (a.rule or "") and is_group(a.surface or ""):
            a.confidence = min(a.confidence, 0.9)
        if a.speaker and "-other-" in (a.rule or "") and not a.rule.endswith("-verb") \
                and re.match(re.escape(a.surface or "") + "[，,！!]", st.quotes[i].text(st.text)):
            res[i] = a = Attribution(vocatives=a.vocatives)  # `有的叫道：“孔乙己，…”`: the one addressed
    _next_paragraph_tags(st, res)
    _turns(st, res)
    modern_turns(st, res)  # the untagged turns alternation leaves (attribution/zh_modern.py)
    zh_model.decode(st, res)  # what is still below the hold: the fitted turn model (attribution/zh_model.py)
    return st._hold_unsure(res)


def _next_paragraph_tags(st: Attributor, res: list[Attribution]) -> None:
    """A quotation that ends its paragraph, tagged at the start of the next one: `“……”\n\n田福堂惋惜地说，“……”` (the
    comma: the same speaker goes on; a colon would introduce the next quotation only) or a paragraph of narration
    alone that ends on its speech verb (`“……”\n\n曹书记…一把拉住他说。`), as text set one sentence a line writes a
    tag that followed the quotation."""
    t = st.text
    for i, q in enumerate(st.quotes):
        a, p = res[i], q.paras[-1]
        if a.speaker or a.pron_tag or p + 1 >= len(st.paras) or st.para_ch[p + 1] != st.para_ch[p] \
                or t[q.outer[-1][1]:st.paras[p][1]].strip():
            continue
        ns, ne = st.paras[p + 1]
        nxt = [j for j in st.by_para.get(p + 1, []) if st.quotes[j].para == p + 1]
        if nxt:
            lead_end = st.quotes[nxt[0]].outer[0][0]
            k = post_tag_clause(t, ns, lead_end) if t[ns:lead_end].rstrip().endswith(("，", ",")) else None
        else:
            body = t[ns:ne].rstrip()
            k = ns + len(body) - 1 if _NEXT_TAG_END.search(body) else None
        b = _tag(st, ns, k) if k and k > ns else None
        if b and b.speaker and re.fullmatch(r"zh-\w+-(?:verb|clause|skip)", b.rule or "") and b.speaker not in a.vocatives:
            b.rule, b.vocatives = "zh-next-" + b.rule[3:], a.vocatives
            res[i] = b


def _sole_of_gender(st: Attributor, i: int, gender: str) -> bool:
    """Whether the narration of quote i's paragraph before it and of the paragraph before that names exactly one
    cast member of the gender (the pronoun can then mean no one else the scene has named)."""
    q = st.quotes[i]
    seen = set()
    for p in (q.para - 1, q.para):
        if p < 0 or st.para_ch[p] != st.para_ch[q.para]:
            continue
        seen |= {m.cid for m in st.narr_mentions.get(p, []) if (p < q.para or m.start < q.outer[0][0])
                 and st.index.gender.get(m.cid) in (gender, None)}
    return len(seen) == 1


def _turns(st: Attributor, res: list[Attribution]) -> None:
    """Untagged turns of a two-person exchange by alternation (`_TURN_CONF`, held by the default hold): a
    run of paragraphs that are each one quotation and nothing else (a tag at most), whose name tags give
    exactly two people, each on one parity; a turn that names one of them (a vocative) is not theirs."""
    for run in _bare_runs(st, res):
        tagged = {k: res[i].speaker for k, i in enumerate(run) if res[i].speaker and res[i].rule in _NAME_TAG_RULES
                  and (res[i].confidence or 0) >= st.min_confidence and not is_group(res[i].surface or "")}
        parity: dict[int, str] = {}
        if any(parity.setdefault(k % 2, c) != c for k, c in tagged.items()) or len(set(parity.values())) != 2:
            continue
        surface = {res[run[k]].speaker: res[run[k]].surface for k in tagged}
        for k, i in enumerate(run):
            a, c = res[i], parity.get(k % 2)
            if k not in tagged and not a.speaker and not a.rule and c not in a.vocatives \
                    and surface[c] not in st.quotes[i].text(st.text):
                a.speaker, a.evidence, a.rule, a.surface = c, "turn-taking", "zh-turn", surface[c]
                a.confidence = confidences().get("zh-turn", _TURN_CONF)


def _bare_runs(st: Attributor, res: list[Attribution]) -> list[list[int]]:
    """Runs of at least three consecutive paragraphs holding one quotation each and no narration but a tag."""
    out: list[list[int]] = []
    for p in sorted(st.by_para):
        idx = [j for j in st.by_para[p] if st.quotes[j].para == p]
        if len(idx) != 1 or not _bare(st, idx[0], res):
            continue
        if out and st.quotes[out[-1][-1]].paras[-1] == p - 1:
            out[-1].append(idx[0])
        else:
            out.append([idx[0]])
    return [r for r in out if len(r) >= 3]


def _bare(st: Attributor, i: int, res: list[Attribution]) -> bool:
    """Quote i is its paragraph's only text, but for a name tag of at most 20 characters."""
    q = st.quotes[i]
    if q.paras[0] != q.paras[-1]:
        return False
    ps, pe = st.paras[q.para]
    rest = len(st.text[ps:q.outer[0][0]].strip()) + len(st.text[q.outer[-1][1]:pe].strip())
    return rest == 0 or (res[i].rule in _NAME_TAG_RULES and rest <= 20)
