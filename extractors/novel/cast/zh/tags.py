"""The Chinese speech-tag grammar: `tag_clause` finds the clause ending in a speech verb right before a quotation,
`post_tag_clause` the one right after it, `bare_subject` the subject written at the start of a clause
(`宝玉听了，便笑道` -> `宝玉`; `众人都笑说` -> `众人`; `一个丫鬟进来笑道` -> `丫鬟`), `tag_subjects` every speaker a text's
tags name. Cast discovery (`discover.py`) and Chinese attribution (`attribution/zh.py`) both read tags with it.

A speaker is a subject of a speech tag: the start of the tag's clause, cut where the predicate begins (adverbs,
speech and motion verbs; not at a locative inside a place phrase, `二门上小厮们`; after a determiner, where jieba's noun
ends, `那原告道`), at most five characters, not a pronoun, place or time word (jieba's part-of-speech tags check the
last), not a group (`众人`, `二人`, `X们`, `X等`); a name the first predicate character would cut is whole where jieba
reads it so (`马道婆道`, `冷子兴听了`).
"""

from __future__ import annotations

import re

from .lexicon import _FEMALE, _MALE, _NAME_FINAL, _PRED, OFFICES, SURNAME, is_word, plain_surname, pos_tags, title_or_kin
from .names import has_compound_surname, name_word_end

# speech verbs that end a tag (simplified and traditional forms)
_VERB = (r"(?:道|说|說|曰|云|問|问|答|回|报|報|叫|喝|嚷|骂|罵|念|叹|嘆|谓|謂|言|吟|哭|笑|劝|勸|告|喊|啐|应|應|"
         r"命|吩咐|嘱咐|囑咐|让|讓|想|忖|唤|喚|催|止|奏|谏|諫|禀|稟|谕|諭)")
# verbs that tag speech or thought only before a colon (`刘陶大呼：`, `十常侍共议：`, `陈宫寻思：`; not `口呼"万岁"`)
_COLON_VERB = r"(?:呼|议|議|寻思|尋思|称|稱)"
# a tag ends in a speech verb and at most one more character before a comma or colon (`笑道：`,
# `说着，`), or in a verb and its object before a colon (`又问香菱：`, `因吩咐小丫头子们：`)
_TAG_END = re.compile(_VERB + r"(?:[^，。．！？；：“”「」\"]?[：:，,]?|[^，。．！？；：“”「」\"\s]{2,7}[：:])\s*$|"
                      + _COLON_VERB + r"[^，。．！？；：“”「」\"\s]{0,7}[：:]\s*$")
# a clause ends at these marks (commas too); a sentence at the first group only
CLAUSE_MARK = re.compile(r"[，,、。．！？；：:“”「」『』\"\n…—]")
SENT_MARK = re.compile(r"[。．！？；“”「」『』\"\n]")
_PRED_CHARS = "".join(sorted(_PRED))
# two-character predicate starts whose first character also begins names (`张飞大叫` but `焦大道`)
_PRED2 = re.compile(r"大(?:叫|喝|笑|怒|惊|驚|喜|哭|骂|罵|呼|声|聲)|高声|高聲|厉声|厲聲|齐声|齊聲|低头|低頭|点头|點頭|"
                    r"回头|回頭|进来|進來|出来|出來|自言|自思|暗想|暗道|马上|馬上|扭头|扭頭|扭过|扭過|转过|轉過|回过|回過|"
                    r"开口|開口|寻思|尋思|赌气|賭氣|插嘴|接口|接话|接話|搭话|搭話|抢着|搶著|抗议|抗議|反问|反問|追问|追問|质问|質問|"
                    r"[\u4e00-\u9fff][声聲](?=[叫说說道问問喊嚷笑骂罵答应應])")  # `尖声叫道`: a voice is a manner
# clause openers that are not subjects
_OPENER = re.compile(r"(?:(?:忽然|忽|又|只|但|却|卻|猛|正|一面|一壁)?(?:听|聽)(?:得|见|見)|(?:忽然|忽|又|只|但|却|卻|猛|正)(?:听|聽|闻|聞)|闻|聞|一面|一壁|一边|一邊|(?:吓|嚇|唬|喜|急|慌|气|氣|羞|臊)(?:得|的)|过了一会儿?|過了一會兒?|过了一阵|過了一陣|就|早|只见|只見|只听|只聽|忽见|忽見|又见|又見|恰值|且兼|不免|彼时|彼時|却说|卻說|且说|且說|话说|話說|于是|於是|当下|當下|此时|此時|"
                     r"因此|因而|所以|一时|一時|这里|這裡|那里|那裡|谁知|誰知|随后|隨後|随即|隨即|然后|然後|接着|接著|这时候|這時候|这时|這時|"
                     r"同时|同時|最后|最後|后来|後來|倒是|可是|但是|不过|不過|然而|原来|原來|忽然|忽|但|便|又|因|遂|乃|时|時|这|這)+")
_LOCATIVE = set("上中里裡内內")
_SPEECH = set("道说說曰云问問答叹嘆谓謂言奏谏諫禀稟谕諭")
# adverbs and manners between a subject and its speech verb (`急曰`, `大怒曰`, `冷笑道`)
_MANNER = set("忙便又也因乃遂方才即就亦都皆齐齊只却卻还還仍先再复復连連急笑冷含陪叹嘆怒喜惊驚大厉厲高低微叱喝哭泣密")
_SENT_OUT = re.compile(r"(?:使|令|差|遣|命|叫)(?:了)?(?:人|个人|個人)")
_COUNT = re.compile(r"有?(?:一个|一個|一位|一名|几个|幾個|两个|兩個|一(?![一二三四五六七八九十]))")
PRONOUNS = {"他": "male", "她": "female", "他们": None, "她们": None, "我": None, "你": None, "其": None}
# body parts and inner speech: a clause like `口内说` takes its subject from the clause before
_TRANSPARENT = re.compile(r"(?:满面|滿面|满脸|滿臉|口内|口內|口中|心中|心内|心內|心下|心里|心裡|嘴里|嘴裡|手内|手中|自己|独自|獨自|自|私)")
_GROUP = re.compile(r"^(?:众|眾|大家|二人|两人|兩人|三人|几|幾|诸|諸|那些|这些|這些|许多|許多|有人|人$|左右$)|们$|們$|等$|诗$|詩$")


def tag_clause(text: str, s: int, e: int) -> int | None:
    """Start of the clause that ends text[s:e] in a speech verb (`…，宝玉笑道：`), or None when
    the narration before a quotation is no speech tag."""
    seg = text[s:e].rstrip()
    if not seg or not _TAG_END.search(seg):
        return None
    body = seg.rstrip("：:，, ")
    cut = 0
    for m in CLAUSE_MARK.finditer(body):
        cut = m.end()
    return s + cut


_POST_END = re.compile(r"[，,。．！？]")
# after a quotation only a plain speech verb tags it: `宝玉只答应着` (a reply) does not; `曹书记说着，` (said, going on to act) does
_HEARD = re.compile(r"听|聽|闻|聞")
_SAYING = re.compile(r"[其之此所这這那][说說言道]$")
_POST_VERB, _POST_DONE = re.compile(r"(?:道|说|說|曰|云|问|問|答|叹|嘆|喊|叫|嚷)道?$"), re.compile(r"(?:说|說)(?:完|着$|著$)")  # `”玉厚说完，`


def post_tag_clause(text: str, s: int, e: int) -> int | None:
    """End of a speech tag right after a closing quotation mark (`”王建国问道。`, `”张伟笑着说，“`): the
    first clause of text[s:e] when it ends in a speech verb and then a comma or a full stop, or None.
    A clause ending in a colon (`”黛玉笑道：“`) is the next quotation's tag, not this one's."""
    p, e = s, min(e, len(text))  # a text may end right after the quotation
    while p < e and text[p] in " \t\u3000":
        p += 1
    m = CLAUSE_MARK.search(text, p, min(e, p + 16))
    if m is None or p == m.start() or not _POST_END.match(m.group(0)):
        return None
    if _HEARD.search(text, p, m.start()) or _SAYING.search(text, p, m.start()):
        return None  # `”那李嬷嬷听如此说，`: who hears it; `”刘焉然其说，`: `其说` is what was said, no verb
    if _POST_VERB.search(text, p, m.start()) or _POST_DONE.search(text, p, m.start()):  # (`润生说完就…`: he said it)
        return m.start()
    asked = _POST_ASKS.search(text, p, m.start())  # `”润叶问她二爸。`: a question and the one asked
    ok = asked and (asked.group(1) == "回答" or not is_word(text[asked.start():asked.start() + 2]))  # not `问题`
    return m.start() if ok and text[m.start()] in "。．" else None


# `问` and who is asked, ending a clause after a quotation (not `问题`, a question: a word of its own)
_POST_ASKS = re.compile(r"(?<=[\u4e00-\u9fff])(问|問|回答)(?:[他她你]|[他她][的]?[\u4e00-\u9fff]{1,3}|[\u4e00-\u9fff]{2,3})$")


def strip_opener(text: str, pos: int, end: int) -> int:
    m = _OPENER.match(text, pos, end)
    p = m.end() if m else pos
    c = _COUNT.match(text, p, end)
    return c.end() if c else p


def _word_at(clause: str, k: int) -> tuple[int, str, str, str]:
    """(start, word, flag, flag of the word before) of jieba's word that covers clause[k]."""
    pos, prev = 0, "v"
    for w, f in pos_tags(clause[:k + 3]):
        if pos + len(w) > k:
            return pos, w, f, prev
        pos, prev = pos + len(w), f
    return pos, "", "x", prev


def _subject_end(clause: str, k: int) -> tuple[int, bool]:
    """Where the predicate begins, from k on: the first predicate character, past a locative that jieba
    reads as one (`二门上小厮们回说`: `上` is no verb here) and past the end of a name jieba reads across
    the cut (`湘云道`: `云` is no verb here); and whether the subject ends with such a name."""
    named = -1
    while True:
        while k < len(clause) and (clause[k] not in _PRED or clause[k:k + 2] in ("道人", "道士")) \
                and not _PRED2.match(clause, k) and not _TRANSPARENT.match(clause, k):
            k += 1
        if k in (1, 2) and len(clause) > k + 1 and clause[k] in _NAME_FINAL and not _PRED2.match(clause, k):
            end = name_word_end(pos_tags(clause[:6]), k, _MANNER | _SPEECH, SURNAME)
            if end > k:
                k = named = end
                continue
        if 0 < k < len(clause) - 1:  # `副将翟元曰`, `贾先生道`, `大将军曰`: `将`, `先` inside a word for a person
            pos, w, f, _ = _word_at(clause, k)
            if len(w) >= 2 and w[-1] in _PERSON_END and f.startswith("n") and pos + len(w) < len(clause):
                k = pos + len(w)
                continue
        if not (k + 1 < len(clause) and clause[k] in _LOCATIVE and clause[k + 1] not in _PRED):
            return k, k == named
        pos, w, f, prev = _word_at(clause, k)
        place = pos + len(w) == k + 1 and (f == "s" and pos < k or f == "f" and pos == k and prev[:1] in ("n", "s", "m"))
        if not place:
            return k, k == named  # `呈上密书`: after a verb, `上` is its complement
        k += 1


def _determined(clause: str) -> int:
    """`那原告道`, `那僧托于掌上`: a determiner and the noun jieba reads after it (the subject ends
    there); 0 when the clause opens otherwise (`那里`, `这些`: a word of their own)."""
    if len(clause) < 3 or clause[0] not in "那这這" or is_word(clause[:2]):
        return 0
    w, f = pos_tags(clause[1:9])[0]
    if f[:1] != "n" or f.startswith("nr") and len(w) > 2 or not 1 + len(w) < len(clause):
        return 0
    return 1 + len(w)


# predicate characters that often end a given name (`湘云`, `赵云`, `法正`, `何进`, `慕容复`); not the verbs and
# adverbs that follow a name (`卓笑曰`, `袁术闻说`, `郦答曰`, `洪奏曰`), which jieba may read into it


def _compound_name(w: str) -> bool:
    """A two-character surname and a given name (`诸葛亮`, `呼延灼`, `上官婉儿`), not an office and a name
    (`司马潘隐`: the 司马 潘隐, his surname 潘)."""
    return has_compound_surname(w) and len(w) <= 4 and not (len(w) == 4 and w[2] in SURNAME)


def _whole_name(clause: str, subj: str, k: int, named: bool) -> str | None:
    """The subject clause[:k] (or a character more) when it is a whole name that the trimming by jieba's tags of
    the subject alone would cut; else None. `named`: it ends with a name `_subject_end` read across the cut."""
    if named:
        return subj  # `法正曰`, `湘云道`: a name holding a predicate character, as jieba reads the clause
    if k == 1 and clause[0] in SURNAME and clause[1:2] in _NAME_FINAL and speaks_directly(clause, clause[:2]):
        return clause[:2]  # `柴进道`, `史进道`: a surname alone never speaks; its name ends in `进`
    if len(subj) == 2 and subj[0] in SURNAME and speaks_directly(clause, subj) and not is_word(subj):
        return subj  # `时迁道`, `高俅道`: a surname and a character jieba knows no word of, then the speech verb
    if _compound_name(subj):
        return subj  # `呼延灼道`: jieba may read the given name as a verb
    tags = pos_tags(subj)
    if len(subj) == 2 and len(tags) == 2 and tags[0][1][:1] == "t" and pos_tags(subj + "道")[0] == (subj, "nr"):
        return subj  # `春燕道`: a name to jieba before 道, a season and a swallow alone
    return None


_WIFE = re.compile(r"([\u4e00-\u9fff]{2})家的(?=[" + _PRED_CHARS + "])")


def _surname_word(clause: str) -> str | None:
    """The name jieba reads at the start of a clause when it opens with a surname and holds a character that
    elsewhere begins a predicate (`冷子兴听了`, `马道婆道`, `王一贴笑道`): a person-name word of three characters (a
    manner jieba glues to it dropped), then the predicate. Not when the name would end in a verb (`袁术闻说`), nor
    two characters (jieba's names include `齐声`, in unison, and `云辞`, 云 declined)."""
    if len(clause) < 3 or clause[0] not in SURNAME or not plain_surname(clause[0]):
        return None
    w, f = pos_tags(clause[:6])[0]
    while len(w) > 2 and w[-1] in _MANNER | _SPEECH:
        w = w[:-1]
    if not f.startswith("nr") or len(w) != 3 or w[-1] in _MANNER | _SPEECH or len(w) >= len(clause):
        return None
    if w[-1] in _PRED and w[-1] not in _NAME_FINAL:
        return None
    inner = [c for c in w[1:-1] if c in _PRED]  # `马道婆`, `沙和尚`: a word for a person after the surname; `王一贴`
    if inner and inner != ["一"] and not (len(pos_tags(w[1:])) == 1 and pos_tags(w[1:])[0][1][:1] == "n"):
        return None  # `卓问肃曰`: 卓 asks 肃
    rest = clause[len(w):]
    return w if rest[0] in _PRED or _PRED2.match(rest) else None


def _uncut_subject(clause: str) -> str | None:
    """A subject that cutting at the first predicate character would break: a three-character name holding one
    (`马道婆道`), the attendants (`左右曰`: a locative to jieba), `X家的` after a predicate character (`来旺家的道`)."""
    name = _surname_word(clause)
    if name and any(c in _PRED for c in name):
        return name
    if clause.startswith("左右") and (clause[2:3] in _PRED or _PRED2.match(clause, 2)):
        return "左右"
    wife = _WIFE.match(clause)
    if wife and clause[0] in _PRED and not any(c in _MANNER for c in wife.group(1)) and not is_word(wife.group(1)):
        return wife.group(0)  # the wife of 来旺, not a clause that opens with `来`
    return None


def bare_subject(clause: str) -> str | None:
    """The subject written at the start of a clause (already past its opener), or None:
    characters up to where the predicate begins, 1-5 of them, person-like."""
    whole = _uncut_subject(clause)
    if whole or clause[:1] in "他她" and [(w == clause[0], f[:1]) for w, f in pos_tags(clause)[:2]] in _PRON_THEN:
        return whole or clause[0]  # `他压住满肚子的不高兴`: the pronoun, whatever follows a `的` in the object
    compound = has_compound_surname(clause)
    if not clause or clause[0] in _PRED and clause[:2] not in ("道人", "一僧") and not compound \
            or _PRED2.match(clause) or _SENT_OUT.match(clause):
        return None  # `笑道`, `高声叫道`, `使人来说`: no subject written (or the one sent speaks)
    det = _determined(clause)
    k, named = (det, False) if det else _subject_end(clause, 3 if compound else 1)  # `令狐冲道`: surname + 1 at least
    if not det and 3 <= k < len(clause) and clause[k] not in _SPEECH:  # `家人飞报`: jieba's word across the cut ends the subject
        pos, w, f, _ = _word_at(clause, k)
        if not pos and f in ("i", "l"):
            return None  # `仰天大笑曰`: an idiom opens the clause, no subject
        glued = f.startswith("nr") and all(c in _MANNER for c in w[k - pos:])  # `侍中杨琦密奏`: jieba's `杨琦密`
        if pos >= 2 and (f[:1] in ("n", "v") or f in ("i", "l")) and not glued:  # `宝琴红了脸`: an idiom ends it too
            k, named = pos, False
    subj = clause[:k]
    de = max(subj.rfind("的"), subj.rfind("之"))
    if de == 1 and subj[1] == "之" and subj[0] in SURNAME:
        de = -1  # `林之孝`: a surname and a given name holding 之, not a possessive
    if de >= 0 and 1 <= len(subj) - de - 1 <= 5:  # `穿红袄的丫鬟`, `贾赦之妻邢氏`, `宝玉的奶母李嬷嬷`
        subj = subj[de + 1:]
    if len(subj) >= 3 and subj[0] in "那这這" and subj[1] not in "些":
        subj = subj[1:]
    if k >= len(clause) or not 1 <= len(subj) <= 7 or not re.fullmatch(r"[\u4e00-\u9fff]+", subj):
        return None
    if _TRANSPARENT.match(subj) or _POEM.search(subj):
        return None  # `后人有诗叹曰`: a poem, no speaker
    if subj in PRONOUNS:
        return subj
    if subj.endswith("家的"):
        return subj if len(subj) <= 5 else None
    whole = None if det else _whole_name(clause, subj, k, named)
    if whole:
        return whole
    tags = pos_tags(subj)  # trim what jieba reads as no part of a noun phrase (`许多人乱`, `地下众人`)
    if len(subj) == 1:  # `允曰`, `操大怒曰`: a one-character name, unless a function word (`故问`, `且说`)
        return subj if tags[0][1][:1] not in ("c", "d", "p", "u", "r", "m", "q", "f", "t", "s", "y", "e", "o") else None
    # a place phrase before the subject: `后院中有人`, `二门上小厮们`
    cut = max((i + 1 for i, (_, f) in enumerate(tags[:-1]) if f[:1] in ("s", "f")), default=0)
    place = cut and [w for w, _ in tags[cut:]] == ["人"] and len(tags[cut - 1][0]) == 2
    tags = tags[cut - 1:] if place else tags[cut:]  # `外面人`: a bare `人` keeps the place that tells who
    while len(tags) > 1 and tags[0][1][:1] in ("c", "d", "p", "s", "f", "t") and not place:
        tags.pop(0)
    if len(tags) > 1 and tags[0][1][:1] == "v" and tags[0][0] not in ("有人",) \
            and (len(tags[0][0]) >= 2 or any(f.startswith("nr") or f == "r" for _, f in tags[1:])):
        return None  # `口吐人言`: a verb opens the clause, no subject written
    plural = tags.pop()[0] if len(tags) > 1 and tags[-1][0] in ("们", "們", "等") else ""
    n = len(tags)
    while tags and (not _nominal(*tags[-1]) or tags[-1][0] in ("那里", "那裡", "这里", "這裡", "哪里", "哪裡")):
        tags.pop()
    if plural and len(tags) < n:
        return None  # `李傕等` read as `李` + a verb: no clean plural subject
    if not tags or tags[-1][1] in ("t", "s", "f"):
        return None
    if len(tags) > 1 and tags[-1][1].startswith("nr") and (tags[-2][1] in ("n", "ng", "nz") or len(tags[-1][0]) >= 2):
        tags = tags[-1:]  # `妻邢氏`, `太尉杨彪`, `行军从事满宠`: a title or relation and the name
    w, f = tags[-1]
    if len(tags) == 1 and f.startswith("nr") and len(w) >= 3 and w[0] not in SURNAME and not _compound_name(w):
        for i in range(2 if has_compound_surname(w) else 1, len(w) - 1):  # `尉黄琬`, `司徒王允`: jieba joins a title
            if w[i] in SURNAME and len(w) - i <= 3 and not title_or_kin(w[i + 1:]):  # not `祥林嫂` -> `林嫂`
                tags = [(w[i:], f)]
                break
    out = "".join(w for w, _ in tags) + plural
    if out in ("那", "这", "這", "此"):  # `那怪道`: jieba reads `怪道` as one word; the determiner alone is no one
        return subj if len(subj) == 2 else None
    return out if len(out) <= 5 else None


_PRON_THEN = [[(True, "r"), (False, f)] for f in "vpd"]  # `他压住…`, `他用微弱的声音…说`, `她又…`: the pronoun
# the last character of a word for a person (`丫鬟`, `小厮`, `家人`, `老嬷嬷`, `道士`)
_PERSON_END = set("人儿兒子头頭鬟娘婆妈媽姐妹嫂姨僧尼士官兵将將吏者客生女母父亲親妇婦嬷嬤童厮廝仆僕奴婢卒使公爷爺叔伯"
                  "兄弟哥侄姪孙孫王帝后妃臣侯主师師仙姑丁汉漢们們等氏郎翁夫监監役贼賊军軍众眾辈輩友宾賓娃")


def speaks_directly(clause: str, subj: str) -> bool:
    """Whether nothing but adverbs and the speech verb follow the subject in the tag's clause
    (`孔融急曰`, `那原告道`): then the subject speaks, whatever jieba makes of it."""
    rest = clause[clause.find(subj) + len(subj):] if subj in clause else ""
    return bool(rest) and rest[-1] in _SPEECH and all(c in _MANNER or c in _SPEECH for c in rest)


# what stands before `子` in a word for a person (`儿子`, `妻子`, `婆子`, `小子`, `汉子`, `公子`, `瞎子`, `伙子`)
_PERSON_ZI = set("儿兒孩妻娘婆小汉漢老公太弟女男君夫瞎疯瘋胖傻厨廚骗騙舅嫂婶嬸侄姪孙孫妮崽伙夥贩販探浪戏戲庄莊孔孟荀墨")
_BODY_PART = re.compile(r"(?:指|舌|眉|拳|额|額|骨|心)[头頭]$")


def person_like(subj: str) -> bool:
    """Whether a subject that is no cast member reads as a person: a group, a word ending in a
    person morpheme (`小厮`, `那僧`), a name by jieba (`nr`), or a surname and one or two characters
    that jieba reads as no verb, adverb or time word (`封肃`)."""
    if is_group(subj):
        return True
    tags = pos_tags(subj)
    if any(f[:1] == "v" for _, f in tags[1:]):
        return False  # `静引诸子`: a verb inside
    if subj[-1] == "子" and len(subj) >= 2 and subj[-2] not in _PERSON_ZI and tags != [(subj, "nr")]:
        return False  # `车子`, `下子`, `土台子`: a thing's noun suffix (not `儿子`, `婆子`, `小伙子`, `安锁子`)
    if _BODY_PART.search(subj):
        return False  # `手指头抠着脚指头，说`: the hand is no speaker (a stone may be: 红楼梦's `石头`)
    if subj[-1] in _PERSON_END or _FEMALE.search(subj) or _MALE.search(subj) or subj[0] in SURNAME and subj[1:] in OFFICES:
        return True  # (`曹书记`: a surname and an office)
    if len(tags) == 1 and tags[0][1].startswith("nr") or len(tags) == 2 and tags[1][1].startswith("nr") and len(tags[1][0]) >= 2:
        return True
    return _surname_name(subj, tags)


def _nominal(w: str, flag: str) -> bool:
    """A word that can end a subject: a noun or pronoun to jieba, or a word for a person or a name that
    jieba mistags (`平儿` as a measure word, `焦大` as an adjective)."""
    return flag[:1] in ("n", "r") or (len(w) >= 2 and w[-1] in _PERSON_END) or _surname_name(w, [(w, flag)])


def _surname_name(subj: str, tags: list[tuple[str, str]]) -> bool:
    """A surname and one or two characters that jieba reads as one word, neither a common noun nor a
    verb, adverb or time word (`封肃` is an adjective to jieba)."""
    return 2 <= len(subj) <= 3 and subj[0] in SURNAME and len(tags) == 1 \
        and tags[0][1] in ("a", "nz", "x", "j", "l", "ng", "i", "z")  # `王熙凤` is an idiom to jieba


def is_group(surface: str) -> bool:
    """`众人`, `诸将`, `丫鬟们`: several people (`诸葛亮` is one: `诸葛` a surname)."""
    return bool(_GROUP.search(surface)) and not has_compound_surname(surface)


_POEM = re.compile(r"诗|詩|词|詞|赞|讚|歌|^(?:内|內)?(?:书|書)(?!童|生|吏|办|辦|记|記)")  # `内书云`: the letter inside reads


def unread_name(clause: str) -> str | None:
    """Two characters that open a clause right before its predicate where jieba reads no name (`翠缕道`: a status
    word to it, `入画道`: a verb, `彩云道`: clouds, cut to `彩`), or None. Verbs open clauses as well (`微笑道`,
    `抬头道`): discovery keeps such a form only where the text also writes it as someone met or spoken to."""
    if len(clause) < 3 or not re.match(r"[\u4e00-\u9fff]{2}", clause) or clause[0] in _PRED or clause[0] in "他她我你其那这這此人":
        return None
    if clause[1] in (_PRED | _MANNER) - _NAME_FINAL or _PRED2.match(clause, 1) or _TRANSPARENT.match(clause):
        return None
    if not (clause[2] in _PRED or _PRED2.match(clause, 2)) or is_group(clause[:2]) or _OPENER.match(clause):
        return None
    return clause[:2] if all(f[:1] not in "dcpurmqtfsyeo" for _, f in pos_tags(clause[:2])) else None


def tag_subjects(text: str, unread: list[str] | None = None, forms: dict[str, str] | None = None) -> list[str]:
    """The bare subject of every speech tag right before a quotation mark in the text (or right after one);
    of the pronouns only `我`, the first-person narrator. Where the subject is none or one character, the two
    characters `unread_name` finds there go to `unread`. `forms`: name forms the text writes
    (`modern_names.name_forms`); one opening the tag's clause is its subject (`少平马上说`)."""
    from .modern_names import name_at

    forms = forms or {}
    out = []
    for m in re.finditer(r"[：:，,]?\s*[“「\"]", text):
        e = m.start()
        cs = tag_clause(text, max(0, e - 40), e)
        if cs is None:
            continue
        cs = strip_opener(text, cs, e)
        subj = name_at(text[cs:e], forms) or bare_subject(text[cs:e])
        if subj and (subj not in PRONOUNS or subj == "我"):
            out.append(subj)
        if unread is not None and (not subj or len(subj) == 1) and unread_name(text[cs:e]):
            unread.append(text[cs:cs + 2])
    for m in re.finditer(r"[”」\"]", text):  # `“……”王建国问道。`
        e = post_tag_clause(text, m.end(), m.end() + 20)
        cs = strip_opener(text, m.end(), e) if e else 0
        subj = (name_at(text[cs:e], forms) or bare_subject(text[cs:e])) if e else None
        if subj and (subj not in PRONOUNS or subj == "我"):
            out.append(subj)
    return out


def _base(form: str) -> str:
    """`凤姐儿` -> `凤姐`, `周瑞家的` -> `周瑞家`, `那僧` -> `僧`."""
    f = form
    if len(f) >= 3 and f[-1] in "儿兒":
        f = f[:-1]
    if f.endswith("家的") and len(f) >= 4:
        f = f[:-1]
    if len(f) >= 2 and f[0] in "那这這此":
        f = f[1:]
    return f
