"""Chinese attribution with no configured characters: discovery (jieba + speech tags) and the tag rules,
on 红楼梦 1-8 (gold cues in shared/corpora) and small hand-written cases. Offline, no torch."""

from __future__ import annotations

from pathlib import Path

from conftest import load_script
from extractors.characters import Character
from extractors.novel.cast.discover import discover_cast
from extractors.novel.extract import analyse, extract_novel, read_novel

REPO = Path(__file__).resolve().parents[2]


def _speakers(text: str, chars: list[Character]) -> list[tuple[str | None, str | None]]:
    """(speaker, surface) of each quote, after the hold."""
    _, _, _, quotes, attrs = analyse(text, chars, "zh")
    return [(a.speaker, a.surface if a.speaker else None) for a in attrs]


def _char(cid: str, *aliases: str) -> Character:
    return Character(id=cid, name=cid, series="t", language="zh", aliases=list(aliases))


def test_name_before_quote():
    assert _speakers("张飞笑道：“哥哥何必多虑。”\n", [_char("张飞")]) == [("张飞", "张飞")]


def test_name_after_quote():
    assert _speakers("“此事不可。”玄德道。\n", [_char("玄德")])[0][0] == "玄德"


def test_subject_in_earlier_clause():
    text = "宝玉听了，忙笑道：“妹妹说的是。”\n"
    assert _speakers(text, [_char("宝玉")]) == [("宝玉", "宝玉")]


def test_group_speaker_keeps_its_surface():
    res = _speakers("众人都笑道：“好，好。”\n", [_char("宝玉")])
    assert res == [("众人", "众人")]


def test_corner_brackets_and_traditional():
    assert _speakers("寶玉笑道：「好妹妹。」\n", [_char("寶玉")]) == [("寶玉", "寶玉")]


def test_two_person_exchange():
    text = "黛玉道：“你来了。”宝玉笑道：“我来了。”黛玉又道：“坐罢。”\n"
    res = _speakers(text, [_char("黛玉"), _char("宝玉")])
    assert [r[0] for r in res] == ["黛玉", "宝玉", "黛玉"]


def test_subject_carried_past_clauses_without_one():
    text = "雨村听了，并不推辞，便笑道：“既蒙谬爱，何敢拂此盛情。”\n"
    assert _speakers(text, [_char("雨村")]) == [("雨村", "雨村")]


def test_subjectless_tag_goes_on_with_the_last_speaker():
    text = "宝玉笑道：“好妹妹。”说着，又问黛玉：“可也有玉没有？”\n"
    res = _speakers(text, [_char("宝玉"), _char("黛玉")])
    assert [r[0] for r in res] == ["宝玉", "宝玉"]  # 黛玉 is spoken to, not the speaker


def test_plain_subjectless_answer_is_not_guessed():
    text = "宝玉问黛玉：“可也有玉没有？”笑道：“我没有。”\n"
    assert _speakers(text, [_char("宝玉"), _char("黛玉")])[1][0] is None


def test_object_of_the_verb_is_no_speaker():
    text = "只见周瑞家的回来，向凤姐道：“太太说了。”\n"
    assert _speakers(text, [_char("周瑞家的"), _char("凤姐")])[0][0] == "周瑞家的"


def test_heard_voice_speaks():
    assert _speakers("忽听王夫人问：“是谁？”\n", [_char("王夫人"), _char("周瑞家的")])[0][0] == "王夫人"


def test_plural_is_a_group_not_the_member():
    assert _speakers("丫鬟们道：“来了。”\n", [_char("丫鬟")]) == [("丫鬟们", "丫鬟们")]


def test_traditional_characters():
    text = "寶玉聽了，並不言語，便笑說道：「好妹妹。」說著，又問：「你可有玉沒有？」\n"
    res = _speakers(text, [_char("寶玉")])
    assert [r[0] for r in res] == ["寶玉", "寶玉"]


def test_one_character_name_in_classical_prose():
    text = "曹操大喜。操曰：「此吾之子房也！」允急曰：「不可。」\n"
    res = _speakers(text, [_char("曹操", "操"), _char("王允")])
    assert res[0][0] == "曹操" and res[1][0] is None  # 允 is no form of the cast: no guess


def test_possessive_is_no_subject():
    assert _speakers("宝玉的丫头道：“来了。”\n", [_char("宝玉")])[0][0] != "宝玉"


def test_sent_messenger_speaks_not_the_sender():
    assert _speakers("贾政便使人上来对王夫人说：“请进来。”\n", [_char("贾政"), _char("王夫人")])[0][0] is None
    # no guess from the sentence before either: a one-character subject the cast does not hold speaks (`帝曰`)
    assert _speakers("儒催逼帝，帝曰：“汝可先饮？”\n", [_char("李儒", "儒")])[0][0] is None


def test_one_clause_sentence_opened_by_yin_goes_on_from_the_sentence_before():
    text = "士隐听了，不便再问．因笑道：“玄机不可预泄。”\n"
    assert _speakers(text, [_char("士隐")]) == [("士隐", "士隐")]
    # a sentence of more than the tag, or one that opens with a person, is not carried
    assert _speakers("士隐听了，不便再问．那僧道：“你去罢。”\n", [_char("士隐")])[0][0] != "士隐"


def test_discovery_on_sanguo_sample():
    text = read_novel(REPO / "data" / "samples" / "sanguo_1-15.txt")
    cast = discover_cast(text, "zh")
    names = {f for m in cast[:15] for f in [m.name, *m.aliases]}
    assert {"玄德", "张飞", "吕布"} <= names


def test_honglou_discovery(honglou):
    text = read_novel(honglou / "hongloumeng_1-8.txt")
    cast = discover_cast(text, "zh")
    top = cast[:12]
    forms = [{m.name, *m.aliases} for m in top]
    assert any("宝玉" in f for f in forms)
    assert any({"凤姐", "熙凤"} <= f for f in forms)  # one person, merged
    assert any("贾母" in f for f in forms) and any("黛玉" in f for f in forms)
    assert all(not m.name.startswith("众") for m in cast)


def test_honglou_cues(honglou):
    bench = load_script(REPO / "benchmarks" / "novel_zh.py")
    path = honglou / "hongloumeng_1-8.txt"
    text = read_novel(path)
    cast = discover_cast(text, "zh")
    lines = extract_novel(path, "hlm", [m.to_character("hlm", "zh") for m in cast], language="zh", text=text)
    labels = bench.load_labels(honglou / "label_honglou_1-8.txt")
    r = bench.score(text, labels, lines, cast)
    # measured at the default hold (0.88): accuracy 0.937, coverage 0.941, precision 0.996; first half of the
    # labels 0.932 / 0.932 / 1.000, second half 0.941 / 0.950 / 0.991 (0.903 / 0.914 / 0.988 before issue 15's
    # rules: determiner and locative subjects, a sound's source, lead-on sentences, colons, other-skip at 0.9,
    # and the determiner-blind comparison; 0.755 / 0.778 / 0.970 before subjects were carried back past
    # clauses without one and subject-less `又道` tags went on with the last speaker)
    assert r["accuracy"] >= 0.93
    assert r["precision"] >= 0.99
    half = len(labels) // 2
    for part in (labels[:half], labels[half:]):
        h = bench.score(text, part, lines, cast)
        assert h["accuracy"] >= 0.92 and h["precision"] >= 0.985



def test_honglou_cues_in_traditional_characters(honglou, tmp_path):
    """红楼梦 1-8 as a traditional edition writes it (OpenCC s2t, phrases and characters): the rules read a simplified
    copy (`zh_script`), and the names come back as the text writes them. Measured: accuracy 0.937, coverage 0.941,
    precision 0.996, as in simplified characters (0.918 / 0.937 / 0.980 when jieba read the traditional text)."""
    bench = load_script(REPO / "benchmarks" / "novel_zh.py")
    text, labels = bench.to_traditional(read_novel(honglou / "hongloumeng_1-8.txt"),
                                        bench.load_labels(honglou / "label_honglou_1-8.txt"))
    path = tmp_path / "hongloumeng_trad.txt"
    path.write_text(text, encoding="utf-8")
    cast = discover_cast(text, "zh")
    forms = [{m.name, *m.aliases} for m in cast[:12]]
    assert any("寶玉" in f for f in forms) and any({"鳳姐", "熙鳳"} <= f for f in forms)
    lines = extract_novel(path, "hlm", [m.to_character("hlm", "zh") for m in cast], language="zh", text=text)
    named = [ln for ln in lines if ln.speaker]
    assert all(ln.name in text for ln in named)  # as the text writes it: 鳳姐, not 凤姐
    r = bench.score(text, labels, lines, cast)
    assert r["accuracy"] >= 0.93 and r["precision"] >= 0.99

def test_determiner_and_noun_subject():
    text = "知府升堂审案。那原告道：“小人冤枉。”那和尚托在手中，笑道：“你看。”\n"
    res = _speakers(text, [_char("知府")])
    assert res == [("原告", "原告"), ("和尚", "和尚")]


def test_locative_inside_a_subject():
    assert _speakers("话未说完，只听门上小厮们回说：“客到了。”\n", [_char("宝玉")]) == [("小厮们", "小厮们")]


def test_the_source_of_a_sound_speaks():
    assert _speakers("宝玉正说着，只听外间有人笑声，说：“来迟了。”\n", [_char("宝玉")]) == [("有人", "有人")]
    # a sound with no one named: nobody, not the subject further back
    assert _speakers("宝玉正走到桥边，背后喊声大起，大叫：“站住！”\n", [_char("宝玉")])[0][0] is None


def test_a_place_after_a_name_is_no_subject():
    text = "众人正饮酒。只见玄德背后转出一员大将，高声叫道：“我来也！”\n"
    assert _speakers(text, [_char("玄德")])[0][0] is None


def test_one_character_adverb_passes_to_the_subject_before():
    assert _speakers("刘姥姥听了，罕问道：“原来是他？”\n", [_char("刘姥姥")]) == [("刘姥姥", "刘姥姥")]


def test_lead_on_sentence_goes_on_across_a_short_quoted_term():
    text = '却说士隐看得分明，只不知那"宝物"是何东西．遂上前施礼，笑问道：“请教。”\n'
    assert _speakers(text, [_char("士隐")]) == [("士隐", "士隐")]
    # who is brought in speaks, not the host of the sentence before
    text = "孔融迎入城中，设宴庆贺．又引糜竺来见玄德，具言前事：“此事如此。”\n"
    assert _speakers(text, [_char("孔融"), _char("糜竺"), _char("玄德")])[0][0] != "孔融"


def test_colon_without_speech_verb():
    text = "当下贾母一一指与黛玉：“这是你舅母。”\n"
    assert _speakers(text, [_char("贾母"), _char("黛玉")]) == [("贾母", "贾母")]
    assert _speakers("宝玉看那匾上写着：“太虚幻境。”\n", [_char("宝玉")])[0][0] is None


def test_thinking_and_calling_before_a_colon():
    assert _speakers("陈宫寻思：“此人不可信。”\n", [_char("陈宫")]) == [("陈宫", "陈宫")]
    assert _speakers("刘陶大呼：“臣死不惜！”\n", [_char("刘陶")]) == [("刘陶", "刘陶")]


def test_several_speak_after_one_person_not_in_the_cast():
    assert _speakers("那婆子听了，都笑道：“好。”\n", [_char("宝玉")])[0][0] is None


def test_modern_tags_after_the_quotation():
    """`“……”王建国问道。`, `“……”张伟笑着说，“……”`, `“……”李娜说道，“……”`: the tag after a quotation (a
    two-character verb, a manner, a comma before the speech goes on) names its speaker, and discovery counts
    it (before, only `玄德道。` was read: 张伟 was no cast member and `王建国问道。` gave nobody). `宝玉只答应着`
    after a quotation is a reply, not its tag; `那李嬷嬷听如此说` is who hears it, and `刘焉然其说` agrees
    with what was said."""
    text = "\n\n".join(["张伟推开门，看见李娜坐在窗前。", "“你怎么来了？”李娜问。", "“我来看看你。”张伟笑着说，“听说你病了。”",
                        "“已经好多了。”李娜说道，“王老师昨天也来过。”", "“小李，药吃了没有？”王建国问道。", "“什么事？”张伟问。",
                        "“明天开会。”王建国说。", "“要吃什么，只管要去。”宝玉只答应着，也无心在饮食上。",
                        "“来，让你奶奶们去。”那李嬷嬷听如此说，只得和众人去了。", "靖曰：“贼兵众，我兵寡。”刘焉然其说，随即出榜。"])
    cast = discover_cast(text, "zh")
    assert {"张伟", "李娜", "王建国"} <= {m.name for m in cast}, [m.name for m in cast]
    chars = [m.to_character("t", "zh") for m in cast]
    got = _speakers(text, chars)
    assert [s for s, _ in got[:8]] == ["李娜", "张伟", "张伟", "李娜", "李娜", "王建国", "张伟", "王建国"], got
    assert got[8][1] != "宝玉" and got[9][1] != "李嬷嬷" and got[10][0] != "刘焉", got  # no tag names them
    _, _, _, _, attrs = analyse(text, chars, "zh", 0.0)
    assert not any((a.rule or "").startswith("zh-post") for a in attrs[8:]), [a.rule for a in attrs]


def test_two_person_exchange_by_alternation_at_its_measured_precision():
    """Paragraphs that are one quotation each, two people named by tags: the untagged turns alternate between
    them, at the confidence `benchmarks/zh_fit.py` measured for the rule (emitted where it reaches the default hold,
    held below it); a turn that names one of them is not theirs."""
    from extractors.novel.attribution import zh_model
    from extractors.novel.attribution.zh_modern import confidences

    text = "\n\n".join(["张伟推开门，看见李娜坐在窗前。", "“你怎么来了？”李娜问。", "“我来看看你。”", "“谁告诉你我病了？”",
                        "“张伟，是王老师说的。”", "“他怎么知道？”", "“他什么都知道。”张伟笑道。", "“那你坐吧。”"])
    _, _, _, quotes, held = analyse(text, [], "zh")
    turns = confidences()["zh-turn"] >= zh_model.hold()
    assert [a.speaker for a in held] == (["李娜", "张伟", "李娜", None, "李娜", "张伟", "李娜"] if turns else
                                         ["李娜", None, None, None, None, "张伟", None])
    _, _, _, quotes, attrs = analyse(text, [], "zh", 0.0)
    assert [a.speaker for a in attrs] == ["李娜", "张伟", "李娜", None, "李娜", "张伟", "李娜"], [a.speaker for a in attrs]
    assert {a.rule for a in attrs if a.speaker and a.rule.startswith("zh-turn")} == {"zh-turn"}


def test_names_the_predicate_characters_would_cut():
    """A name holding a character that elsewhere begins a predicate is the whole name (`湘云道`, `赵云曰`,
    `法正曰`, `何进笑曰`, `史湘云笑道`: not `湘`, `赵`, `法`, nobody, `史湘`), and so is one with a two-character surname (`诸葛亮曰`,
    `司马懿曰`, `太史慈曰`, `令狐冲道`: not `葛亮`, `马懿`, `史慈`, nobody), and discovery merges `慈` into 太史慈
    (`慈曰` right after is his by the full name just written, too). A cut that
    leaves a whole name keeps it (`郑泰谏曰`, `贾母忙道`, `卓问肃曰`, `卓笑曰`, `袁术闻说`), a speech verb after a
    one-character name is no part of it (`郦答曰`), and an idiom after a name ends it (`宝琴红了脸，笑道`).
    The text ends right after a quotation: discovery read past its end there (IndexError) before."""
    text = "\n\n".join(["湘云道：“你们又来了。”", "赵云曰：“某愿往。”", "玄德见法正。法正曰：“不可。”", "何进笑曰：“此懦夫之见也！”",
                        "诸葛亮曰：“亮有一计。”", "司马懿曰：“此乃空城之计。”", "太史慈曰：“某愿出城。”", "慈曰：“老母命我来。”",
                        "令狐冲道：“师父请坐。”", "郑泰谏曰：“董卓乃豺狼也。”", "贾母忙道：“快请进来。”", "卓问肃曰：“其兆若何？”",
                        "卓笑曰：“诸公勿惊。”", "郦答曰：“不然。”", "宝琴红了脸，笑道：“老太太取笑了。”",
                        "史湘云笑道：“我也来。”", "袁术闻说刘备上表，乃大怒曰：“汝乃织席编屦之徒！”"])
    chars = [_char(c) for c in ("湘云", "赵云", "法正", "何进", "诸葛亮", "司马懿", "太史慈", "令狐冲", "郑泰", "贾母",
                                "宝琴", "袁术")] + [_char("董卓", "卓")]
    got = [s for s, _ in _speakers(text, chars)]
    assert got == ["湘云", "赵云", "法正", "何进", "诸葛亮", "司马懿", "太史慈", "太史慈", "令狐冲", "郑泰", "贾母",
                   "董卓", "董卓", None, "宝琴", "史湘云", "袁术"], got
    members = {m.name: m.aliases for m in discover_cast(text + "\n\n" + text, "zh")}
    assert {"史湘云", "赵云", "法正", "诸葛亮", "司马懿", "太史慈", "令狐冲"} <= set(members), members
    assert "湘云" in members["史湘云"], members
    assert not {"湘", "史湘", "葛亮", "马懿", "史慈", "郦答", "宝琴红", "卓问肃", "袁术闻"} & set(members), members
    assert "慈" in members["太史慈"], members


def test_modern_subjects_voice_manner_kin_name_and_an_addressed_outsider():
    """`“……”杨二嫂尖声叫道。`: a voice (`尖声`) is a manner, not part of the name; `祥林嫂说` is 祥林嫂 (a name and a
    kinship word, not the surname `林` and `嫂`); `有的叫道：“孔乙己，……”` after a sentence about 孔乙己 (no cast
    member) does not give him the words addressed to him (before: 杨二嫂尖声, 林嫂, 孔乙己)."""
    text = "\n\n".join(["“阿呀，你怎么这样了！”杨二嫂尖声叫道。", "祥林嫂说：“我真傻，真的。”",
                        "孔乙己一到店，所有喝酒的人便都看着他笑。有的叫道：“孔乙己，你脸上又添上新伤疤了！”"])
    _, _, _, quotes, attrs = analyse(text, [], "zh", 0.0)
    assert [(a.speaker, a.surface) for a in attrs] == [("杨二嫂", "杨二嫂"), ("祥林嫂", "祥林嫂"), (None, None)], \
        [(a.speaker, a.surface, a.rule) for a in attrs]


def test_subjects_of_other_classical_novels():
    """水浒/西游记-style tags: `柴进道`, `史进道` (a surname alone never speaks: the name ends in `进`), `呼延灼道`
    (a two-character surname, the given name jieba reads as a verb), `那怪道` (not the determiner `那` alone), and
    an office before a name is no surname (`司马潘隐` is 潘隐, `诸葛孔明` is 孔明, not `葛孔明`); a surname and a
    character jieba knows no word of, then the speech verb, is a name (`李傕曰`, `朱儁曰`, `高俅道`; not `方才道`); `林之孝道` is 林之孝 (a name holding 之, not `孝` of 林); `王熙凤道` is 王熙凤 (an idiom to jieba), `春燕笑道` 春燕
    (a season and a swallow to jieba alone, not `燕`), `鲁肃责孔明曰` 鲁肃 (`责`, scolds, begins the predicate)."""
    from extractors.novel.cast.zh.tags import bare_subject

    got = {c: bare_subject(c) for c in ("柴进道", "史进道", "呼延灼道", "那怪道", "司马潘隐谓进曰", "诸葛孔明曰",
                                        "司徒王允曰", "那僧道", "李傕曰", "朱儁曰", "高俅道", "方才道", "林之孝道", "王熙凤道", "春燕笑道", "鲁肃责孔明曰")}
    assert got == {"柴进道": "柴进", "史进道": "史进", "呼延灼道": "呼延灼", "那怪道": "那怪", "司马潘隐谓进曰": "潘隐",
                   "诸葛孔明曰": "孔明", "司徒王允曰": "王允", "那僧道": "那僧", "李傕曰": "李傕", "朱儁曰": "朱儁",
                   "高俅道": "高俅", "方才道": None, "林之孝道": "林之孝", "王熙凤道": "王熙凤", "春燕笑道": "春燕", "鲁肃责孔明曰": "鲁肃"}, got


def test_manner_glued_to_a_name_and_the_one_asked_answers():
    """`侍中杨琦密奏帝曰`: jieba reads `杨琦密` as one name, but `密` (secretly) is a manner: 杨琦 (before: `杨琦密`,
    a cast member of its own); `太后密谓曰` is 太后; `叔父刘元起奇其言` keeps 叔父, not `刘元` (`起` ends his name);
    `玄德…问左右，答曰`: the ones asked answer, so not 玄德 (before: 玄德 at 0.93)."""
    from extractors.novel.cast.zh.tags import bare_subject

    got = {c: bare_subject(c) for c in ("侍中杨琦密奏帝曰", "太后密谓曰", "叔父刘元起奇其言")}
    assert got == {"侍中杨琦密奏帝曰": "杨琦", "太后密谓曰": "太后", "叔父刘元起奇其言": "叔父"}, got
    text = "玄德正纳闷间，听得县前喧闹，问左右，答曰：“张将军绑一人在县前痛打。”"
    assert _speakers(text, [_char("玄德")]) == [(None, None)]


def test_one_character_given_name_of_the_full_name_just_written():
    """`…乃曹洪也。洪曰`: a one-character subject no cast member holds is the given name of the one full name the
    text wrote just before (曹洪; 皇甫嵩 with a two-character surname), never a verb and its object (`谢肃曰` is
    "thanked 肃") or a preposition (`于帝`); two such names near (何进, 乐进) leave it to nobody. In an earlier clause of
    the tag's sentence (`术闻有玉玺，取而视之，大喜曰`) only a full name jieba reads as a name counts."""
    text = "\n\n".join(["操视之，乃曹洪也。洪曰：“公急上马！”", "玄德见皇甫嵩、朱儁，具道卢植之意。嵩曰：“张梁势穷力乏。”",
                        "布见了此马，大喜，谢肃曰：“兄赐此龙驹。”肃曰：“某为义气而来。”",
                        "何进与乐进同来。进曰：“不可。”", "众官请命于帝。帝曰：“朕知之矣。”"])
    got = [(s, n) for s, n in _speakers(text, [])]
    assert got[:2] == [("曹洪", "洪"), ("皇甫嵩", "嵩")], got
    assert got[3][0] != "谢肃" and got[4] == (None, None) and got[5][0] != "于帝", got
    # in an earlier clause too, when jieba knows the full name as a name (before: nobody): not `山有` (the hill has)
    text = "\n\n".join(["袁术在南阳。术闻有玉玺，取而视之，大喜曰：“吾得之矣！”", "前面一山有伏兵。有见之，大叫曰：“快走！”"])
    got = [(s, n) for s, n in _speakers(text, [])]
    assert got == [("袁术", "术"), (None, None)], got


def test_first_person_narrator():
    """`我说：`, `我问：`, `“……”我说。`: frequent first-person tags make a narrator member (`叙述者`) and its lines are
    the narrator's (name `我`), as `said I` is in English; a narrator configured by the user takes them too; with no
    narrator in the cast they stay nobody's (before: always nobody's, and no narrator was discovered)."""
    text = "\n\n".join(["第一章", "那年冬天，我回到了老家。", "母亲迎了出来。我说：“娘，我回来了。”",
                        "母亲说：“你先歇一歇。”", "“好的。”我说。", "我问：“阿福还好吗？”", "母亲说：“他常来问起你。”",
                        "门外走进一个人来，正是阿福。我说：“阿福哥，你来了！”", "阿福说：“少爷回来了。”", "阿福说：“路上冷吧？”",
                        "我说：“不冷，你坐罢。”", "“我站着就好。”阿福说。", "“不要紧。”我说，“坐下说话。”"])
    cast = discover_cast(text, "zh")
    narrators = [m for m in cast if m.narrator]
    assert [m.name for m in narrators] == ["叙述者"], [(m.name, m.narrator) for m in cast]
    chars = [m.to_character("t", "zh") for m in cast]
    got = _speakers(text, chars)
    assert got.count(("叙述者", "我")) == 7 and ("阿福", "阿福") in got, got
    mine = Character(id="xiaoming", name="小明", series="t", language="zh", narrator=True)
    assert _speakers(text, [mine]).count(("xiaoming", "我")) == 7
    assert not any(s for s, n in _speakers(text, []) if n == "我")


def test_an_action_jieba_reads_as_a_name_is_no_member():
    """`操扬鞭大呼曰`, `玄德勒马大叫曰`: jieba reads `扬鞭` (raises the whip) and `勒马` (reins in) as names, so
    discovery made them members and the tags gave `操扬鞭`, `玄德勒马`. A speaker named only by two characters
    that open with no surname is a member only when the text also has them as someone met or spoken to
    (`见孔明`); the tags then give 曹操 and 玄德 (checked on 三国 chapters 36-60). `仰天` (looks up to heaven) opens
    with a surname that is a verb on its own, so it is checked too (before: a member on the whole 三国演义)."""
    text = "\n\n".join(["曹操引军来到。操扬鞭大呼曰：“孟德在此！”", "玄德勒马大叫曰：“贤侄开门！”", "操扬鞭大笑曰：“吾计成矣！”",
                        "玄德勒马问曰：“何人在此？”", "曹操曰：“吾来也。”", "操曰：“汝等且退。”", "玄德曰：“吾去也。”",
                        "玄德曰：“且住。”", "玄德见孔明，孔明亦见玄德。孔明曰：“主公勿忧。”", "孔明曰：“亮有一计。”",
                        "孔融出府，仰天叹曰：“安得不败乎！”", "玄德仰天叹曰：“天亡我也！”"])
    cast = discover_cast(text, "zh")
    names = {m.name for m in cast}
    assert {"玄德", "孔明"} <= names and not {"扬鞭", "勒马", "操扬鞭", "玄德勒马", "仰天"} & names, names
    got = [s for s, _ in _speakers(text, [m.to_character("t", "zh") for m in cast])]
    assert got[:4] == ["曹操", "玄德", "曹操", "玄德"], got


def test_three_character_names_holding_a_predicate_character():
    """`马道婆道`, `王一贴笑道`, `冷子兴听了`: jieba reads a surname and two characters as one name, and the first
    predicate character (`道`, `一`, `冷`) would cut it (before: `马`, `王`, nobody); `来旺家的` is the wife of 来旺
    though `来` opens predicates (before: nobody); `内书云` (the letter inside reads) has no speaker; a verb inside what jieba reads as
    one name still ends the subject (`卓问肃曰`: 卓 asks 肃) and so does one that would end it (`袁术闻说`)."""
    from extractors.novel.cast.zh.tags import bare_subject

    got = {c: bare_subject(c) for c in ("马道婆道", "王一贴笑道", "冷子兴听了", "卓问肃曰", "袁术闻说", "冷笑道",
                                        "来旺家的笑道", "回家的道", "内书云")}
    assert got == {"马道婆道": "马道婆", "王一贴笑道": "王一贴", "冷子兴听了": "冷子兴", "卓问肃曰": "卓",
                   "袁术闻说": "袁术", "冷笑道": None, "来旺家的笑道": "来旺家的", "回家的道": None, "内书云": None}, got


def test_names_jieba_does_not_read_are_members_when_addressed():
    """`翠缕道` (a status word to jieba), `入画道` (a verb), `彩云道` (clouds, cut to `彩`): two characters before the
    predicate that the text also writes as someone called or spoken to (`叫翠缕`, `问入画`, `和彩云`) are members,
    and their tags theirs (before: nobody's); what speakers do is not (`孔明入帐`, `张飞入帐` then `入帐道`, as
    the tag cut of `钟会入帐，曰`)."""
    scene = ["湘云便叫翠缕来。翠缕道：“姑娘叫我？”", "翠缕笑道：“这是什么？”", "惜春因问入画。入画道：“是我哥哥的。”",
             "入画忙道：“姑娘饶了我罢。”", "宝玉和彩云说话。彩云道：“你去罢。”", "彩云冷笑道：“我不管。”",
             "孔明入帐。张飞入帐，众将皆请入帐。入帐道：“来了。”", "入帐道：“诸公请坐。”", "孔明道：“请坐。”", "张飞道：“好。”",
             "孔明道：“是。”", "张飞道：“走。”"]
    text = "\n\n".join(scene)
    names = {m.name for m in discover_cast(text, "zh")}
    assert {"翠缕", "入画", "彩云"} <= names and "入帐" not in names, names
    got = _speakers(text, [m.to_character("t", "zh") for m in discover_cast(text, "zh")])
    assert [s for s, _ in got[:6]] == ["翠缕", "翠缕", "入画", "入画", "彩云", "彩云"], got


def test_a_one_character_alias_inside_a_word_is_no_second_speaker():
    """`孔明大惊曰` with a member whose one-character form is `大` (杨大): `大惊` is one word, so 孔明 speaks, not the
    pair `孔明大` (found on the whole 三国演义: about a hundred lines)."""
    chars = [_char("孔明"), _char("杨大", "大")]
    assert _speakers("孔明大惊曰：“不好！”\n", chars) == [("孔明", "孔明")]


def test_a_one_character_form_joins_the_full_name_written_near_it():
    """`布曰` is 吕布's when 吕布 was written shortly before (or `姓周，名瑜` for 瑜), but `大呼曰` far from any `杨大` is not
    杨大's, nor `爽曰` 荀爽's when 荀爽 spoke chapters before (the whole 三国演义: `大` gave 杨大 85 lines, and
    荀爽, 苗泽, 董衡 took 曹爽's, 阚泽's and 祢衡's)."""
    from extractors.novel.cast.zh.discover import _near_full

    filler = "。" + "天下大势，分久必合，合久必分" * 50 + "。"
    assert _near_full("吕布来见。布曰：“吾来也。”", "布", "吕布")
    assert _near_full("江舒城人，姓周，名瑜，字公瑾。瑜曰：“某愿往。”", "瑜", "周瑜")
    assert not _near_full("杨大道：“走罢。”" + filler + "，大呼曰：“杀！”" + filler + "，大恸曰：“天亡我也！”", "大", "杨大")
    assert not _near_full("荀爽曰：“可。”" + filler + "曹爽至。" + filler + "。爽曰：“何人？”", "爽", "荀爽")


def test_a_verb_jieba_glues_to_a_name_makes_no_member():
    """`孔明止之曰`, `鲁肃入见曰`: jieba reads `孔明止`, `鲁肃入` as names; next to a much more talkative 孔明 they are no
    members of their own and their tags are 孔明's and 鲁肃's; `宣孔明入` (summons 孔明) is no full name of 孔明
    (before: members `孔明止`, `鲁肃入`, and 孔明 named `宣孔明` on the whole 三国演义)."""
    scene = ["孔明曰：“亮自有计。”"] * 6 + ["鲁肃曰：“公瑾之意如何？”"] * 6 + [
        "孔明止之曰：“不可。”", "鲁肃入见曰：“事急矣。”", "孔明止之曰：“且慢。”", "鲁肃入见曰：“大事去矣。”",
        "玄德大喜，宣孔明入。", "主公闻之，宣孔明入，孔明曰：“主公勿忧。”"]
    text = "\n\n".join(scene)
    cast = discover_cast(text, "zh")
    names = {m.name for m in cast}
    assert {"孔明", "鲁肃"} <= names and not {"孔明止", "鲁肃入", "宣孔明"} & names, names
    got = _speakers(text, [m.to_character("t", "zh") for m in cast])
    assert [s for s, _ in got[12:16]] == ["孔明", "鲁肃", "孔明", "鲁肃"], got


def test_two_members_written_together_speak_together_only_when_the_tag_says_so():
    """`尤氏秦氏都说道`: both speak; without `都`/`齐`/`同` the second is no co-speaker: `谋士贾诩曰` is 贾诩 (a title member,
    then the name), `玄德聚众将问曰` is 玄德 (`聚众`, gathers the generals, a junk member), `玄德徐徐曰` 玄德 (slowly)
    (before: the pairs `谋士贾诩`, `玄德聚众`, `玄德徐徐` as speakers, found on the whole 三国演义)."""
    chars = [_char(c) for c in ("尤氏", "秦氏", "谋士", "贾诩", "玄德", "聚众", "徐徐")]
    text = "\n\n".join(["尤氏秦氏都说道：“好。”", "谋士贾诩曰：“不可。”", "玄德聚众将问曰：“谁敢去？”", "玄德徐徐曰：“且住。”"])
    assert [s for s, _ in _speakers(text, chars)] == ["尤氏秦氏", "贾诩", "玄德", "玄德"]


def test_titles_attendants_and_a_one_character_form_of_another_person():
    """`副将翟元曰`, `大将军曰`, `贾先生道`: `将`, `先` inside a word for a person do not end the subject (before: `副`,
    `大`, `贾`); `左右曰` are the attendants (a locative to jieba; before: the walk went back to whoever asked);
    `随后一人厉声言曰` is someone (before: `随后`, then); `部将李堪曰` with a member `部将` is 李堪; and `肃曰` right after
    `李肃` (a name the text writes at least three times) is 李肃's even where the cast holds `肃` for 鲁肃 (found on the
    whole 三国演义)."""
    from extractors.novel.cast.zh.tags import bare_subject, strip_opener

    clauses = ("副将翟元曰", "大将军曰", "贾先生道", "左右曰", "随后一人厉声言曰")
    got = {c: bare_subject(c[strip_opener(c, 0, len(c)):]) for c in clauses}
    assert got == {"副将翟元曰": "翟元", "大将军曰": "大将军", "贾先生道": "贾先生", "左右曰": "左右",
                   "随后一人厉声言曰": "人"}, got
    text = "\n\n".join(["策怪问何故，左右曰：“有于神仙者。”", "部将李堪曰：“不如割地请和。”",
                        "李肃来见。卓问李肃，观其人，乃虎贲中郎将李肃也。肃曰：“某有一计。”"])
    got = [s for s, _ in _speakers(text, [_char("孙策", "策"), _char("部将"), _char("鲁肃", "肃")])]
    assert got == ["左右", "李堪", "李肃"], got
