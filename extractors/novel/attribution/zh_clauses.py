"""The clause reading of Chinese attribution: where a clause starts, a colon that opens speech with no speech verb,
adverbs and places jieba reads after a name, and the confidence of a subject by where it was found (`_CONF`)."""

from __future__ import annotations

import re

from extractors.characters import slug
from extractors.text import ZH_FULL_STOPS

from ..cast.zh.lexicon import _SURNAMES, OFFICES, plain_surname, pos_tags
from ..cast.zh.tags import _PERSON_END, _POST_ASKS, _POST_DONE, _POST_VERB, _SPEECH, _TRANSPARENT, CLAUSE_MARK
from .speaker_guess import Attribution

_TOWARD = re.compile(r"[对對向给給朝跟冲衝问問和与與同叫找]")
_SENDS = re.compile(r"(?:使|命|令|叫|遣|打发|打發|派)(?:了)?(?:人|个人|個人)")
# a subject-less tag that goes on with the same speaker: `又道`, `说着，又问`, `复笑道`
_GOES_ON = re.compile(r"又|复|復|再|还|還|说着|說著|说毕|說畢|说罢|說罷|接着|接著")
_FULL_STOP = ZH_FULL_STOPS
_TERM = re.compile(r"[\u4e00-\u9fff]{1,10}")
# a sentence opened by `因` / `遂` / `便` / `乃` / `又` that names nobody before its tag goes on from the subject
# that opened the sentence before (`士隐听了，不便再问．因笑道：`, `…泼了茜雪一裙子的茶．又跳起来问着茜雪道：`)
_LEAD_ON = re.compile(r"因|遂|便|乃|又")


def _clause_start(t: str, s: int, k: int) -> int:
    """Start of the clause ending at k, not before s; a short quoted term inside narration is part of
    its clause (`取"文星和合"之意`, `不知所云"蠢物"系何东西`)."""
    while k > s:
        if t[k - 1] == '"':
            j = t.rfind('"', max(s, k - 12), k - 1)
            if j < 0 or not _TERM.fullmatch(t, j + 1, k - 1):
                return k
            k = j
        elif CLAUSE_MARK.match(t[k - 1]):
            return k
        else:
            k -= 1
    return k

# where the subject was found (the worst step back taken) -> confidence, by kind of subject:
# verb: the tag's own clause; clause: an earlier clause of the sentence, past clauses that open with
# their predicate; skip: past a clause that opens with no subject (`并不推辞`); sentence: one full stop
# back; noun: past a clause that opens with a noun that is no person (`此石听了`, `身体面庞虽怯弱`)
_WHERE = ("verb", "clause", "skip", "sentence", "noun")
# (0.8 and below: held by the fitted hold of Chinese books, `zh_model.hold()`; why each: docs/novel.md)
_CONF = {"cast": dict(verb=0.95, clause=0.93, skip=0.92, sentence=0.8, noun=0.8),
         "other": dict(verb=0.9, clause=0.9, skip=0.9, sentence=0.8, noun=0.75),
         "kin": dict(verb=0.9, clause=0.8, skip=0.8, sentence=0.75, noun=0.7),
         "names": dict(verb=0.9, clause=0.9, skip=0.8, sentence=0.8, noun=0.75)}
_CONF["narrator"] = _CONF["cast"]  # `我说`, `我问道` with a first-person narrator in the cast
_KIND_RULE = {"cast": "name", "other": "other", "kin": "other", "names": "names", "narrator": "narrator"}
_LEAD_ON_CONF = 0.9  # as a subject-less `又道` that goes on (4 of 4 right on 红楼梦 1-8)
_GOES_ON_CONF = dict(verb=0.9, clause=0.9, skip=0.9, sentence=0.8, noun=0.8)
_PRONOUN_CONF = 0.6
# alternation in a two-person exchange: held by default (strict alternation between two name-tagged people
# gives the right speaker 0.90 of the time on the 12 English dev novels; 红楼梦 has few such exchanges)
_TURN_CONF = 0.85
_NAME_TAG_RULES = {f"zh-{post}{kind}-{w}" for post in ("", "post-") for kind in ("name", "other") for w in ("verb", "clause", "skip")}
_COLON_CONF = 0.9
# a colon after these introduces writing, a verse or a list, not speech
_WRITTEN = re.compile(r"写|寫|书|書|题|題|刻|是|诗|詩|词|詞|对联|對聯|如下|下面|上面|道着|道著|曰|云|有")
_ALL = re.compile(r"都|皆|齐|齊|俱")
# `问左右，答曰`: a reply whose subject is not written, after someone asks: the one asked answers
_REPLY_TAG = re.compile(r"(?:答|对|對|应|應|回)(?:曰|道|说|說)?$")
_ASKS = re.compile(r"问|問|询|詢")  # opening the clause right before the reply (`问左右，答曰`)
_TOGETHER = re.compile(_ALL.pattern + r"|同|共")  # two names then this: both speak (`尤氏秦氏都说道`)
_SOUND = re.compile(r"(?:笑|喊|叫|哭|人|呼|嚷)(?:声|聲)")
_HEAR = re.compile(r"(?:忽然|忽|又|只|但|却|卻|猛|正|一面|一壁)?(?:听|聽|闻|聞)(?!了|说|說|知|言)")


def _colon_clause(t: str, s: int, e: int) -> int | None:
    """Start of the last clause of narration that ends in a colon with no speech verb, the colon
    opening what someone says or thinks (`贾母一一指与黛玉：`, `黛玉心中正疑惑着：`); None for an
    inscription or a verse (`上面写着：`, `正是：`)."""
    seg = t[s:e].rstrip()
    if not seg.endswith(("：", ":")):
        return None
    body = seg.rstrip("：: ")
    cut = _clause_start(t, s, s + len(body))
    if cut >= s + len(body) or _WRITTEN.search(t, cut, s + len(body)):
        return None
    return cut


def _written_colon(t: str, s: int, e: int) -> bool:
    """Whether the narration ends in a colon that opens an inscription or a verse (`上面写着：`, `正是：`)."""
    seg = t[s:e].rstrip()
    body = seg.rstrip("：: ")
    if not seg.endswith(("：", ":")) or not body:
        return False
    cut = _clause_start(t, s, s + len(body))
    return cut < s + len(body) and bool(_WRITTEN.search(t, cut, s + len(body)))


def _adverb_at(t: str, p: int, end: int) -> bool:
    """Whether jieba reads the character at p, in its clause, as an adverb or adjective (`罕问道`) or as
    the verb of a verb word with the speech verb (`劝道`, `催道`)."""
    w, f = pos_tags(t[p:min(end, p + 4)])[0]
    return len(w) == 1 and f in ("a", "ad", "d") or len(w) == 2 and f == "v" and w[1] in _SPEECH


def _place_after(t: str, k: int, end: int) -> bool:
    """Whether a name is the place someone else comes from: a two-character place word after it and then
    a noun or someone emerging (`吕布背后一人…曰`, `玄德背后转出张飞`; not `警幻后面追来`, `心中暗喜`)."""
    if end - k < 4 or _TRANSPARENT.match(t, k, end):
        return False
    words = pos_tags(t[k:min(end, k + 6)])
    if len(words) < 2 or len(words[0][0]) != 2 or words[0][1] not in ("f", "s"):
        return False
    w, f = words[1]
    return f[:1] in ("n", "m") or f[:1] == "v" and "出" in t[k + 2:k + 4]


def _title_then_name(first: str, second: str) -> bool:
    """Two cast forms written together that are a title and a name (`谋士贾诩`, `侍中杨琦`, `长史张昭`): the first no
    name of a surname and given name to jieba, the second two or three characters opening with a surname."""
    title = not pos_tags(first)[0][1].startswith("nr") or not plain_surname(first[0])
    if second[0] == second[1:2]:
        return False  # `玄德徐徐曰`: a doubled character is a manner (slowly), whatever jieba tags it
    if second[-1] in _PERSON_END and second[0] not in _SURNAMES:
        return False  # `玉厚老汉`: a name, then the role it is called by (`老汉`, an old man), not a title and a name
    return title and (pos_tags(second)[0] == (second, "nr") or 2 <= len(second) <= 3 and second[0] in _SURNAMES)


_ADVERB_END = "才就也又便却還还都正刚剛只已毫"  # (`毫`: `白元毫不…`, `毫无`)
_ACTS_ON = re.compile(r"(.)了\1|了一[眼下把]")  # `指了指`, `看了一眼`: what follows is the object, not a subject


def _manner(t: str, p: int, core: str) -> bool:
    """Whether the would-be subject is a manner: followed by `地` (`权威地说`), or a doubled word (`支支吾吾`)."""
    k = t.find(core, p)
    return (k >= 0 and t[k + len(core):k + len(core) + 1] == "地") or \
        (len(core) == 4 and core[0] == core[1] and core[2] == core[3])


# a member's parent or spouse written after the name (`少安妈`, `少安他妈`, `少安媳妇`): not the member
_KIN_OF = re.compile(r"[他她]?(?:妈妈|爸爸|媳妇|老婆|女人|男人|丈夫|妻子|妈|爸|爹|娘)")
# kin written after a name that names the member only when the genders agree (`润叶姐`, `少安哥`, `玉亭叔`: the member;
# `少平姐`, `少安嫂`: his sister, his brother's wife)
_KIN_AFTER = re.compile(r"(?:姐姐|姐|妹妹|妹|婶婶|婶|嫂子|嫂)|(?P<m>哥哥|大哥|哥|弟弟|弟|叔叔|叔|伯伯|伯)")


def _kin_of(t: str, k: int, end: int, gender: str | None) -> re.Match | None:
    """The kin word after a member's form at t[k] when it names someone else (`少安妈`; `少平姐`, he being a man), or
    None."""
    m = _KIN_OF.match(t, k, end)
    if m:
        return m
    m = _KIN_AFTER.match(t, k, end)
    return m if m and gender and gender != ("male" if m.group("m") else "female") else None


# a person described, then a kin word (`心虚的女儿…说`): someone the tag names, not anyone further back
_DESCRIBED_KIN = re.compile(r"(?:但|可|而)?[^，。！？：“”对對向给給跟和与與同问問把被让讓叫]{1,4}的(?:女儿|儿子|媳妇|老婆|丈夫|妻子|父亲|母亲)(?!的)")


def _described(t: str, p: int, end: int) -> tuple[str, Attribution] | None:
    """("other", the described person) for a clause opening `…的女儿` (not after a preposition: `对他的女儿`), or None."""
    m = _DESCRIBED_KIN.match(t, p, end)
    return ("other", Attribution(slug(m.group(0)), None, "explicit-verb", None, m.group(0))) if m else None


# a kin word before a name in apposition (`他儿子润生`, `他媳妇银花`)
_KIN_NOUN = re.compile(r"儿子|女儿|媳妇|老婆|丈夫|妻子|男人|女人|爱人|弟弟|哥哥|姐姐|妹妹|侄子|侄女|孙子|外甥|父亲|母亲|爸爸|妈妈")


def _apposed(core: str) -> str | None:
    """The name after a kin word in apposition (`儿子润生`, `媳妇银花`: 润生, 银花), or None."""
    m = _KIN_NOUN.match(core)
    return core[m.end():] if m and len(core) - m.end() >= 2 else None


_HEARD = re.compile(r"听见|听到|听得")


def _heard(t: str, p: int, end: int, ms: list) -> object | None:
    """The cast mention right after `听见`/`听到` in a tag's own clause (`他还听见孙玉亭在窑里嘟囔说`), not a
    possessive (`听见孙玉亭的话`), or None."""
    h = _HEARD.search(t, p, end)
    m = next((m for m in ms if h and m.start == h.end()), None)
    return m if m and m.end < end and t[m.end] not in "的之家等们們" else None


# an office or a trade ending a title written before a name in apposition (`公社副主任刘志祥`, `饲养员田万江老汉`)
_TITLE_END = re.compile("(?:" + "|".join(sorted(OFFICES, key=len, reverse=True)) + r"|教师|教師|干部|幹部|司机|司機|[员員])$")
_TITLE_FLAGS = ("n", "b", "m", "j", "nt", "ns", "nz", "vn")  # what a title is made of (`公社`, `副`, `一队`, `县委`)


def _named(st, p: int, end: int, ms: list, verb_clause: bool) -> tuple[str, Attribution] | None:
    """A subject named inside text[p:end] past its start: the one heard in a tag's own clause (`他还听见孙玉亭在窑里嘟囔
    说`), or the name after an office in apposition (`公社副主任刘志祥赶忙说`, `小学教师…`, `饲养员田万江老汉还…说`:
    the cast member, or the name jieba reads as one person's), not a possessive (`主任刘志祥的`)."""
    t = st.text
    heard = _heard(t, p, end, ms) if verb_clause else None
    if heard:
        return "cast", Attribution(heard.cid, None, "explicit-verb", None, heard.surface)
    for k in range(p + 2, min(end, p + 9)):
        office = _TITLE_END.search(t, p, k)
        if not office or not any(all(f in _TITLE_FLAGS for _, f in pos_tags(w)) for w in (t[p:k], t[p:office.start()]) if w):
            continue
        m = max((m for m in ms if m.start == k), key=lambda m: m.end, default=None)
        words = pos_tags(t[k:min(end, k + 6)])
        name = m.surface if m else words[0][0] if words and words[0][1] == "nr" and len(words[0][0]) in (2, 3) else None
        if not name or not plain_surname(name[0]) or k + len(name) >= end or t[k + len(name)] in "的之家等们們":
            return None
        return ("cast", Attribution(m.cid, None, "explicit-verb", None, name)) if m else \
            ("other", Attribution(slug(name), None, "explicit-verb", None, name))
    return None


def _nobody() -> Attribution:
    """A tag that names nobody on purpose (the one sent, several, someone unnamed, an inscription): no rule after
    the tags guesses its speaker (rule `zh-nobody`)."""
    return Attribution(rule="zh-nobody")


# a paragraph of narration alone that ends on its speech verb (`曹书记…一把拉住他说。`): the quotation before's tag
_NEXT_TAG_END = re.compile(r"(?:道|说|說|问|問|答|喊|叫|嚷)道?[。．！]$")
_VOICE = re.compile(r"的(?:声音|聲音|喊声|喊聲|叫声|叫聲|说话声|說話聲)[：:]\s*$")


def _voice(st, s: int, e: int) -> Attribution | None:
    """The member whose voice a colon introduces (`院子里传来冯世宽的声音：`, `运生的声音：`), or None: no speech verb,
    yet the one heard speaks (rule `zh-voice`, as sure as a subject in the tag's clause)."""
    v = _VOICE.search(st.text, s, e)
    m = next((m for m in st.index.mentions(st.text, max(s, v.start() - 8), v.start()) if m.end == v.start()), None) if v else None
    return Attribution(m.cid, _CONF["cast"]["clause"], "explicit-verb", "zh-voice", m.surface) if m else None


def post_asks_end(text: str, s: int, k: int) -> int:
    """Where the speech verb of the post tag text[s:k] ends: right after `问` or `回答` when the one asked follows it
    (`”少安问润叶。`, `”田福堂瞪起眼问儿子。`, `”润叶回答他。`), before `完` (`”玉厚说完，`, `”润生说完就…`), else k."""
    done = _POST_DONE.search(text, s, k)
    if done:
        return done.start() + 1
    m = None if _POST_VERB.search(text, s, k) else _POST_ASKS.search(text, s, k)
    return m.end(1) if m else k
