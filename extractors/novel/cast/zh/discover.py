"""Meet the cast of a Chinese novel: the people the speech tags name (`宝玉笑道：“`, `凤姐儿道：`, `玄德曰：「`), with the
forms of one person merged and a gender guess (the tag grammar: `tags.py`).

- two characters before the predicate that jieba reads as no name (`翠缕道`, `入画道`) are a speaker only where the
  text also addresses them (`叫翠缕`) and they do not mostly follow a speaker (`孔明入帐`);
- forms merge: `X儿` with `X`, `X家的` with `X家`, a determiner form `那X` with `X`, a given name with the full name the
  text writes with a surname (`宝玉`/`贾宝玉`; not a form that opens with a surname itself: `宣孔明`), a one-character
  given name with the full name it mostly stands near (`布` after `吕布`), and `Y姐`/`Y哥` with the one given name
  ending in Y (`凤姐`/`熙凤`); a much more talkative name with a verb jieba glued to it (`孔明止之曰`) is no member;
- gender from titles and kin words in the names (`夫人`, `姑娘`, `姐` / `老爷`, `兄`), and from 她/他 right after the
  name when the text uses both pronouns.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from ..member import CastMember
from .lexicon import _FEMALE, _MALE, OFFICES, SURNAME, _pseg, plain_surname, pos_tags, title_or_kin
from .modern_names import _THING_MEASURE, MIN_FULL
from .names import has_compound_surname
from .tags import _PERSON_END, _PRED_CHARS, _base, is_group, tag_subjects

@lru_cache(maxsize=1024)
def _full_names(text: str, given: str) -> Counter:
    """Surname + given name forms the text writes (`贾宝玉` for `宝玉`): the first character a
    surname that is no preposition or adverb (`向宝玉`), the form found opening a clause."""
    c: Counter = Counter()
    things = set()
    for m in re.finditer("(.)" + re.escape(given), text):
        if m.group(1) in SURNAME:
            c[m.group(0)] += 1
            if m.start() and text[m.start() - 1] in _THING_MEASURE:
                things.add(m.group(0))  # `一朵马兰花`: a flower wherever it is written
    out = Counter()
    for f, n in c.items():
        if not plain_surname(f[0]) or f in things:
            continue
        if re.search(r"(?:^|[，。．！？；：\s“”「」])" + re.escape(f), text) or pos_tags(f) == [(f, "nr")]:
            out[f] = n  # it opens a clause, or jieba reads it as one person's name (`贺秀莲` after `对`)
    if len(out) > 1:  # a full name written far more often than the rest: a preposition's slip (`于少平`, `从少平`)
        (top, n), *rest = out.most_common()
        if n >= FULL_DOMINANT * sum(k for _, k in rest):
            out = Counter({top: n})
    return out if len(out) == 1 else Counter()  # `何太后`, `董太后`: two people, no merge


FULL_DOMINANT = 5


def _glued(form: str, name: str, speakers: Counter) -> bool:
    """Whether a subject form is another, much more frequent one and a verb or noun jieba read into it (`孔明止之曰`:
    `孔明止`; `孔明变色曰`), not a name of its own (`王夫人`, `孔明妻`: a title or a person after it)."""
    tail = form[len(name):]
    n_form = sum(v for k, v in speakers.items() if _base(k) == form)
    n_name = sum(v for k, v in speakers.items() if _base(k) == name)
    if n_name < 3 * n_form or tail[0] in _PERSON_END or title_or_kin(form) or _FEMALE.search(form) or _MALE.search(form):
        return False
    return all(not f.startswith("nr") for _, f in pos_tags(tail))


def _merge(text: str, speakers: Counter) -> list[list[str]]:
    """Groups of forms that name one person."""
    groups: dict[str, list[str]] = {}
    for f, _ in speakers.most_common():
        groups.setdefault(_base(f), []).append(f)
    for f in sorted(groups, key=len, reverse=True):  # `孔明止`, `鲁肃入`, `孔明变色`: a name and what jieba glued to it
        g = next((g for g in (f[:-1], f[:-2]) if len(g) >= 2 and g in groups and g != f), None)
        if len(f) >= 3 and g and _glued(f, g, speakers):
            groups.pop(f)  # no member of its own: the tags name the member `g` (as the name index reads them)
    for b in list(groups):  # a two-character given name and its full name
        if len(b) == 2 and b in groups:  # not `封贾诩`, `宣孔明` (enfeoffs, summons): with a surname first, `明川` for
            # `白明川`, only a full name written often that jieba reads as one person's
            full = [f for f, n in _full_names(text, b).items() if n >= 2 or pos_tags(f) == [(f, "nr")]]
            if plain_surname(b[0]):
                full = [f for f in full if _full_names(text, b)[f] >= MIN_FULL and pos_tags(f) == [(f, "nr")]]
            for f in full:
                groups[b].append(f)
                groups.pop(f, None)
    for b in [b for b in groups if len(b) == 1]:  # `飞` for `张飞`, `操` for `曹操`
        owners = [g for g in groups if (2 <= len(g) <= 3 and g[0] in SURNAME or len(g) == 3 and has_compound_surname(g))
                  and g.endswith(b) and not is_group(g)]  # `慈` for `太史慈` too
        forms = groups.pop(b)
        owners = [g for g in owners if _near_full(text, b, g)]  # `布` near `吕布`, not near `张布`
        if len(owners) == 1:
            groups[owners[0]].extend(forms)
    bases = [b for b in groups if len(b) == 2]
    for b in list(groups):  # `凤姐` with the one given name ending in `凤`
        if len(b) == 2 and b[1] in "姐哥" and b in groups:
            owners = [g for g in bases if g != b and g[1] == b[0] and g in groups and g[1] not in "姐哥"]
            if len(owners) == 1:
                groups[owners[0]].extend(groups.pop(b))
    return list(groups.values())


NEAR_CHARS, NEAR_SHARE = 600, 0.5


def _near_full(text: str, given: str, full: str) -> bool:
    """Whether a one-character form that opens clauses before a predicate (`布曰`, `大呼曰`) stands mostly within
    `NEAR_CHARS` after the full name it would be part of: `布` after `吕布` (a person named in full, then by his given
    name), not `大` after a `杨大`, nor `爽` after `荀爽` when it is `曹爽` who speaks chapters later."""
    at = [m.start() + 1 for m in re.finditer(r"[，。．！？；：”」\s]" + re.escape(given) + "(?=[" + _PRED_CHARS + "])", text)]
    intro = re.compile(re.escape(full) + "|姓" + re.escape(full[:-1]) + "[，,]?名" + re.escape(given))  # `姓周，名瑜`
    return not at or sum(bool(intro.search(text, max(0, k - NEAR_CHARS), k)) for k in at) >= NEAR_SHARE * len(at)


# the last character of a given name that is, in modern names, nearly always a woman's (`秀莲`, `晓霞`, `红梅`):
# a vote worth a few pronouns, as the clause after a name often opens on someone else's 他/她
_FEMALE_GIVEN = set("娥莲蓮花梅霞香琴莉芳娟丽麗凤鳳珍翠萍燕菊芬婷娜妮媛婉娇嬌玲艳艷兰蘭叶葉英秀")
# ... and nearly always a man's (`张有智`, `刘根民`, `冯国斌`): the text often gives a minor man no pronoun to vote
_MALE_GIVEN = set("军軍武民贵貴才宗斌虎强強富福堂亭厚功智雄贤賢龙龍升海刚剛勇山川国國高")
_GIVEN_VOTE = 3
_WIFE = ("妻子", "媳妇", "老婆", "婆姨")
_SPOUSE = r"(他|她)的?(爱人|妻子|媳妇|老婆|婆姨|丈夫|男人)"


def _gender(text: str, forms: list[str]) -> str | None:
    votes = Counter()
    for f in forms:
        if _FEMALE.search(f):
            votes["female"] += 2
        elif _MALE.search(f):
            votes["male"] += 2
    if any(len(f) >= 2 and f[-1] in _FEMALE_GIVEN and not _MALE.search(f) for f in forms):
        votes["female"] += _GIVEN_VOTE
    elif any(len(f) >= 2 and f[-1] in _MALE_GIVEN and not _FEMALE.search(f) for f in forms):
        votes["male"] += _GIVEN_VOTE
    for f in forms:  # a spouse in apposition: `他爱人徐爱云` (his wife), `她男人王满银`, `丈夫…`
        for m in re.finditer(_SPOUSE + re.escape(f), text):
            wife = m.group(2) in _WIFE or m.group(2) == "爱人" and m.group(1) == "他"
            votes["female" if wife else "male"] += 2
    if "她" in text:  # the pronoun opening the clause after one the name opens (`润叶低下头，她…`)
        for f in forms:
            for m in re.finditer(r"(?:^|[。！？\n，])" + re.escape(f) + r"[^。！？\n“”，]*[，。！？]([他她])", text):
                votes["female" if m.group(1) == "她" else "male"] += 1
    if not votes:
        return None
    (g, n), *rest = votes.most_common()
    return g if not rest or n > rest[0][1] else None


# verbs and prepositions after which a person stands as the object (`见孔明`, `与云长`, `叫袭人`)
_TOWARD = "见見与與和同对對问問谓謂告请請令使随隨叫唤喚教命遣拜"


def _ever_addressed(text: str, forms: list[str]) -> bool:
    """Whether a speaker the tags name only by two characters that open with no surname (`孔明`, `袭人`, but also
    `扬鞭`, `勒马`: raises the whip, reins in, when jieba reads the action as a name) is ever the object of a verb
    or preposition of meeting or speaking in the text, as people are and actions are not."""
    if any(len(f) != 2 or plain_surname(f[0]) or f[-1] in _PERSON_END or is_group(f) for f in forms):
        return True  # (`仰天`, looks up to heaven: `仰` is a surname, but a verb on its own)
    return any(_addressed(text, f) for f in forms)


def _addressed(text: str, form: str) -> bool:
    """Whether the text writes the form right after a verb or preposition of meeting or speaking (`叫翠缕`)."""
    return re.search("[" + _TOWARD + "]" + re.escape(form), text) is not None


ACTS_SHARE = 0.25  # `入帐`: 35 of its 75 places right after a speaker (`孔明入帐`); `探马` 6 of 28, `审配` 3 of 45


def _acts(text: str, form: str, speakers: Counter) -> bool:
    """Whether a form is what speakers do rather than someone: at least `ACTS_SHARE` of its places follow a
    speaker's name (`孔明入帐`, `钟会入帐`)."""
    at = [m.start() for m in re.finditer(re.escape(form), text)]
    after = sum(any(text[max(0, k - n):k] in speakers for n in (1, 2, 3)) for k in at)
    return after >= ACTS_SHARE * len(at)


# a common noun jieba's dictionary counts at least this often is a role said of many people (`父亲`, `姑娘`, `司机`:
# the father of whoever the scene follows), not one person's name (`晴雯` 333, `家人` 908, `道人` 1277: `道人道` needs the member)
COMMON_NOUN_FREQ = 2000


def _role_word(form: str) -> bool:
    """Whether a form is a common noun for a person (`父亲`, `老人`, `书记`) that many people are called."""
    import jieba

    _pseg()
    return pos_tags(form) == [(form, "n")] and (jieba.get_FREQ(form) or 0) >= COMMON_NOUN_FREQ


# a first-person narrator: at least this many `我说`-like tags, and this share of the quotations (as `said I` in English)
NARRATOR_TAGS, NARRATOR_SHARE = 5, 0.02


def discover_zh(text: str, min_speaks: int = 2) -> list[CastMember]:
    """Speakers named by at least `min_speaks` speech tags, forms merged, most talkative first.
    Groups (`众人`) and pronouns are speakers but never cast members; frequent `我说` tags make a narrator
    member (`叙述者`, the narrator: the text gives `我` no name)."""
    from .modern_names import name_forms

    unread: list[str] = []
    names = name_forms(text)  # a frequent full name or its given name: a member after one tag
    subjects = tag_subjects(text, unread, names)
    speakers = Counter(s for s in subjects if not is_group(s) and s[0] not in "他她其" and s != "我")
    for f, n in Counter(unread).items():  # `翠缕道`: a name jieba does not read, when the text addresses it
        if n >= min_speaks and f not in speakers and _addressed(text, f) and not _acts(text, f, speakers):
            speakers[f] = n
    out = []
    first = subjects.count("我")
    if first >= NARRATOR_TAGS and first >= NARRATOR_SHARE * len(re.findall(r"[“「]", text)):
        out.append(CastMember(name="叙述者", speaks=first, narrator=True))
    for forms in _merge(text, speakers):
        speaks = sum(speakers.get(f, 0) for f in forms)
        if speaks < min(min_speaks, 1 if any(f in names for f in forms) else min_speaks) or not _ever_addressed(text, forms):
            continue
        forms = list(dict.fromkeys(forms + [_base(f) for f in forms if len(_base(f)) >= 2]))
        if max(len(f) for f in forms) < 2 or all(_role_word(f) for f in forms):
            continue
        name = max(forms, key=lambda f: (len(f) if f[0] not in "那这這此" else 0, speakers.get(f, 0)))
        pat = re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
        out.append(CastMember(name=name, aliases=[f for f in forms if f != name], gender=_gender(text, forms),
                              count=len(pat.findall(text)), speaks=speaks))
    out.extend(_named_often(text, names, {f for m in out for f in [m.name, *m.aliases]}))
    _titled(text, out)
    _sibling_surname(text, out)
    out.sort(key=lambda m: (-m.speaks, -m.count, m.name))
    return out


# a person the tags never name (`她说：`, untagged turns) is a member when the text writes their name this often,
# and opens a clause with it at least this share of times (a place, `金家湾`, follows `在`/`到`; `张开嘴` is a verb)
UNTAGGED_COUNT, UNTAGGED_OPENS = 10, 0.2
_PLACE_END = "湾镇沟村庄县乡河山峁坪洼岭城街路站"


def _named_often(text: str, names: dict[str, str], taken: set[str]) -> list[CastMember]:
    """Members for the full names of `modern_names.name_forms` that no tag names: a modern novel attributes many
    of a person's lines by pronoun tags and turns alone (`郝红梅`), and those rules need the person in the cast."""
    out = []
    for full in dict.fromkeys(names.values()):
        forms = [f for f, owner in names.items() if owner == full]
        if full[-1] in _PLACE_END or any(f in taken for f in forms):
            continue
        at = [m.start() for m in re.finditer("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), text)]
        opens = sum(k == 0 or text[k - 1] in "，。！？；：\n“”「」" for k in at)
        if len(at) >= UNTAGGED_COUNT and opens >= UNTAGGED_OPENS * len(at):
            out.append(CastMember(name=full, aliases=[f for f in forms if f != full], gender=_gender(text, forms),
                                  count=len(at), speaks=0))
    return out


_TITLED = re.compile("(?=([" + "".join(sorted(SURNAME)) + "][\u4e00-\u9fff]{2}))")


def _titled(text: str, members: list[CastMember]) -> None:
    """A surname and an office written often (`徐主任`, `田主任`; as `_named_often` counts): a form of the one member of
    that surname the text writes next to the office (`主任徐治功`, `田福军主任`); with none or several, nobody's (and
    never a member of its own, `曹书记`: measured worse, docs/benchmarks.md)."""
    taken = {f for m in members for f in [m.name, *m.aliases]}
    counts = Counter(m.group(1) for m in _TITLED.finditer(text))
    for form, n in counts.items():
        if n < UNTAGGED_COUNT or form in taken or not plain_surname(form[0]) or form[1:] not in OFFICES:
            continue
        at = [m.start() for m in re.finditer(re.escape(form), text)]
        if sum(k == 0 or text[k - 1] in "，。！？；：\n“”「」" for k in at) < UNTAGGED_OPENS * len(at):
            continue
        same = [m for m in members if len(m.name) >= 2 and m.name[0] == form[0] and not m.narrator]
        role = form[1:]
        tied = [m for m in same if any(role + f in text or f + role in text for f in [m.name, *m.aliases] if len(f) >= 2)]
        if len(tied) == 1:
            tied[0].aliases.append(form)


# `少安他姐兰花`, `润生的姐姐润叶`: a sibling named in full (surname first) gives a given name the text never writes in
# full its surname. Not `表哥` / `干妹` (a cousin by the mother, a sworn sibling: another surname), not `姐夫` (in-law).
_SIBLING = "(?:他|她|的)(?:亲)?[大二三四五小]?(?:姐姐|姐|妹妹|妹|哥哥|哥|弟弟|弟)"


def _sibling_surname(text: str, members: list[CastMember]) -> None:
    """A two-character member with no full name gets its sibling's surname as its name, the given name as an alias
    (`兰花` becomes `孙兰花`), where the text names it after a sibling written in full and every such sibling agrees."""
    taken = {f for m in members for f in [m.name, *m.aliases]}
    full = {f: m.name[0] for m in members for f in [m.name, *m.aliases]
            if len(m.name) == 3 and plain_surname(m.name[0]) and not m.narrator}
    if not full:
        return
    given = {m.name: m for m in members if len(m.name) == 2 and not m.narrator
             and not any(len(f) == 3 and f.endswith(m.name) for f in m.aliases)}
    if not given:
        return
    sib = re.compile("(" + "|".join(re.escape(f) for f in sorted(full, key=len, reverse=True)) + ")" + _SIBLING
                     + "(" + "|".join(re.escape(g) for g in given) + ")")
    surnames: dict[str, set[str]] = {}
    for k in sib.finditer(text):
        surnames.setdefault(k.group(2), set()).add(full[k.group(1)])
    for g, got in surnames.items():
        if len(got) == 1 and (name := got.pop() + g) not in taken:
            m = given[g]
            m.aliases, m.name = [g, *m.aliases], name
