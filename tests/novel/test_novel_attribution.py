"""Rule-based speaker attribution on small hand-written passages (English and Chinese)."""

from __future__ import annotations

from extractors.characters import Character
from extractors.novel.extract import extract_novel

ELIZA = Character(id="elizabeth", name="Elizabeth", series="t", aliases=["Lizzy", "Eliza"], gender="female")
DARCY = Character(id="darcy", name="Mr. Darcy", series="t", aliases=["Darcy"], gender="male")
JANE = Character(id="jane", name="Jane", series="t", aliases=["Miss Bennet"], gender="female")
LIUBEI = Character(id="liubei", name="刘备", series="t", language="zh", aliases=["刘玄德", "玄德", "备"], gender="male")
ZHANGFEI = Character(id="zhangfei", name="张飞", series="t", language="zh", aliases=["翼德", "飞"], gender="male")


def dialogue(tmp_path, text, chars, name="n.txt", **kw):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return [ln for ln in extract_novel(p, "t", chars, **kw) if ln.kind == "dialogue"]


def test_explicit_tags_both_orders_and_titles(tmp_path):
    text = ('"Good morning," said Elizabeth.\n\n"Good morning," Mr. Darcy replied coldly.\n\n'
            'Mr Darcy answered, "It is late."\n\n"Is it?" cried Miss Bennet.\n')
    d = dialogue(tmp_path, text, [ELIZA, DARCY, JANE])
    assert [ln.speaker for ln in d] == ["elizabeth", "darcy", "darcy", "jane"]
    assert all(ln.evidence == "explicit-verb" and ln.confidence >= 0.9 for ln in d)
    assert d[1].name == "Mr. Darcy"


def test_pronoun_resolved_by_gender(tmp_path):
    text = ('Elizabeth and Mr. Darcy walked on in silence.\n\n'
            '"You are very quiet," said he.\n\n"I am thinking," she replied.\n')
    d = dialogue(tmp_path, text, [ELIZA, DARCY], min_confidence=0.0)
    assert [ln.speaker for ln in d] == ["darcy", "elizabeth"]
    assert all(0 < ln.confidence < 0.99 for ln in d)  # surer than most turn guesses, never as sure as a name tag (0.996)
    # a man and a woman talking: `said he` / `she replied` each fit exactly one of them, which the
    # calibration (issue 15) trusts enough to keep at the default hold
    assert [ln.speaker for ln in dialogue(tmp_path, text, [ELIZA, DARCY])] == ["darcy", "elizabeth"]


def test_vocative_is_not_the_speaker_and_turn_taking(tmp_path):
    text = ('"Lizzy, will you walk?" said Jane.\n\n"Gladly, Jane," said Elizabeth.\n\n'
            '"Then come at once."\n\n"I am coming."\n\n"Make haste, Lizzy!"\n')
    d = dialogue(tmp_path, text, [ELIZA, JANE], min_confidence=0.0)
    assert [ln.speaker for ln in d] == ["jane", "elizabeth", "jane", "elizabeth", "jane"]
    assert [ln.evidence for ln in d[2:]] == ["turn-taking"] * 3


def test_no_defensible_speaker_stays_none(tmp_path):
    text = 'The room was full of people.\n\n"Who is that?" asked somebody.\n\n"Nobody knows."\n'
    d = dialogue(tmp_path, text, [ELIZA, DARCY])
    assert [ln.speaker for ln in d] == [None, None]
    assert all(ln.confidence is None and ln.evidence is None for ln in d)


def test_chinese_tags(tmp_path):
    text = ("第一回 桃园结义\n\n玄德曰：“吾本汉室宗亲。”飞曰：“吾颇有资财。”玄德大喜曰：“如此甚好。”"
            "其人曰：“某姓关。”张飞笑道：“正好。”\n")
    d = dialogue(tmp_path, text, [LIUBEI, ZHANGFEI])
    assert [ln.speaker for ln in d] == ["liubei", "zhangfei", "liubei", None, "zhangfei"]
    assert d[0].unit.startswith("第一回") and d[0].text == "吾本汉室宗亲。"


def test_sanguo_sample_gives_liubei_many_lines(samples, repo):
    from extractors.characters import load_characters

    chars = [c for c in load_characters(repo / "configs").values() if c.series == "三国演义"]
    lines = extract_novel(samples / "sanguo_1-15.txt", "sanguo", chars)
    mine = [ln for ln in lines if ln.kind == "dialogue" and ln.speaker == "liubei"]
    assert len(mine) >= 25
    # from tags, or from the narration sentence the quotation follows (`玄德与关公急止之曰；“`: a tag the grammar misses)
    assert all(ln.evidence == "explicit-verb" or ln.extra.get("rule") == "zh-lead" for ln in mine)
    assert sum(ln.evidence == "explicit-verb" for ln in mine) >= 25
    assert any("汉室" in ln.text or "兄弟" in ln.text or "玄德" in (ln.name or "") for ln in mine)


def test_conversation_model_alternates_and_uses_vocatives():
    from extractors.novel.attribution.conversation import OTHER, Turn, decode

    gender = {"a": "female", "b": "male"}
    turns = [Turn(fixed="a"), Turn(), Turn(), Turn(vocatives={"a"}), Turn(gender="female")]
    post = decode(turns, ["a", "b"], gender)
    best = [max(p, key=p.get) for p in post]
    assert best == ["a", "b", "a", "b", "a"]
    assert post[0]["a"] > 0.99 and all(0.5 < p[b] < 1.0 for p, b in zip(post[1:], best[1:]))
    # the person the previous turn addressed answers, even against plain alternation
    post = decode([Turn(fixed="a", vocatives={"c"}), Turn(), Turn(fixed="a")], ["a", "b", "c"], {})
    assert max(post[1], key=post[1].get) == "c" and OTHER in post[1]


def test_unsure_guesses_are_held_not_emitted(tmp_path):
    from extractors.novel.attribution.attributor import Attributor

    text = ('Elizabeth and Jane sat together.\n\n"Is it late?"\n\n"Not yet."\n\n"Then stay."\n')
    held = dialogue(tmp_path, text, [ELIZA, JANE])
    assert all(ln.speaker is None for ln in held)  # two women, no tag: nothing defensible
    old = Attributor.min_confidence
    try:
        Attributor.min_confidence = 0.0
        every = dialogue(tmp_path, text, [ELIZA, JANE])
    finally:
        Attributor.min_confidence = old
    guessed = [ln for ln in every if ln.speaker]
    assert guessed and all(ln.confidence < old for ln in guessed)


def test_kinship_from_names_resolves_family_tags(tmp_path):
    from extractors.novel.attribution.kinship import Kinship

    mrs = Character(id="mrs_bennet", name="Mrs. Bennet", series="t", aliases=["Bennet"], gender="female")
    mr = Character(id="mr_bennet", name="Mr. Bennet", series="t", gender="male")
    jane = Character(id="jane", name="Jane", series="t", aliases=["Miss Bennet"], gender="female")
    eliza = Character(id="elizabeth", name="Elizabeth", series="t", aliases=["Lizzy", "Miss Eliza"], gender="female")
    chars = [eliza, jane, mr, mrs]
    gender = {c.id: c.gender for c in chars}
    k = Kinship(chars, gender, "Miss Elizabeth Bennet and Elizabeth Bennet again.")
    assert k.relatives("mother", "elizabeth") == {"mrs_bennet"} and k.relatives("father", "jane") == {"mr_bennet"}
    assert k.relatives("wife", "mr_bennet") == {"mrs_bennet"} and k.relatives("sister", "elizabeth") == {"jane"}
    assert k.relatives("mother", "mrs_bennet") == set() and k.shared_miss("Miss Bennet") == {"jane", "elizabeth"}
    text = ('Elizabeth Bennet came in with Jane.\n\n"We are back," said Elizabeth.\n\n'
            '"And where have you been?" cried her mother.\n\n"Walking," said her father drily.\n')
    d = dialogue(tmp_path, text, chars)
    assert [ln.speaker for ln in d] == ["elizabeth", "mrs_bennet", "mr_bennet"]
    assert d[1].confidence >= 0.85 and d[1].evidence == "explicit-verb"


def test_turn_taking_for_a_thinly_named_discovered_member_is_held(tmp_path):
    """A discovered cast member the text names only a few times (`Character.mentions` < THIN_MENTIONS) gets
    its turn-taking guesses at a lower confidence: held at the default hold, emitted when the hold is lowered.
    A configured character (`mentions` None) keeps them, and so does a member named often."""
    from dataclasses import replace

    from extractors.novel.attribution.attributor import THIN_MENTIONS

    text = ('"Lizzy, will you walk?" said Jane.\n\n"Gladly, Jane," said Elizabeth.\n\n'
            '"Then come at once."\n\n"I am coming."\n\n"Make haste, Lizzy!"\n')

    def turns(chars, **kw):
        return [(ln.speaker, ln.evidence) for ln in dialogue(tmp_path, text, chars, **kw)[2:]]

    configured = turns([ELIZA, JANE])
    assert ("jane", "turn-taking") in configured and ("elizabeth", "turn-taking") in configured, configured
    thin = [replace(ELIZA, mentions=3), replace(JANE, mentions=THIN_MENTIONS + 10)]
    assert turns(thin) == [(s, e) if s == "jane" else (None, None) for s, e in configured]
    assert turns(thin, min_confidence=0.0) == turns([ELIZA, JANE], min_confidence=0.0)


def test_epithet_consistency_counts_a_noun_tag_across_the_book():
    """Each noun-tag turn guess learns how often the book's guesses for the same words (`the girl`, any spacing or
    case) went to the same person; pronoun tags and other rules are left alone."""
    from extractors.novel.attribution.calibration import epithet_consistency, turn_vector
    from extractors.novel.attribution.speaker_guess import Attribution

    def guess(speaker, surface, form="noun"):
        return Attribution(speaker, 0.5, "explicit-verb", "verb-noun/conv", surface, turn_features={"tag_form": form})
    res = [guess("nancy", "the girl"), guess("nancy", "The\ngirl"), guess("nancy", "the girl"), guess("bet", "the girl"),
           guess("sikes", "the man"), guess("fagin", "the man"), guess("oliver", "the man"), guess("sikes", "the man"),
           guess("nancy", "she", "post")]
    epithet_consistency(res)
    assert [a.turn_features.get("epithet_share") for a in res] == [0.75] * 3 + [0.25] + [0.5, 0.25, 0.25, 0.5] + [None]
    assert res[0].turn_features["epithet_n"] == 4 and "epithet_n" not in res[-1].turn_features
    res[0].turn_features["epithet_share"] = 0.8
    v = turn_vector({**_features(), **res[0].turn_features})
    assert v["epithet_one"] == 1.0 and v["epithet_scattered"] == 0.0
    v = turn_vector({**_features(), **res[5].turn_features})
    assert v["epithet_one"] == 0.0 and v["epithet_scattered"] == 1.0


def _features() -> dict:
    """The inputs `turn_vector` needs, as `turns.turn_features` gives them (a bare guess)."""
    return {"posterior": 0.8, "before": 0, "after": 0, "people": 2, "addressed": False, "clean": False, "pron": True,
            "first": False, "len": 4, "d_before": 7, "d_after": 7, "margin": 0.5, "gap_before": False,
            "narr_is_guess": False, "narr_is_other": False, "present": 2}


def test_address_form_usage_learns_who_says_what_from_named_quotes():
    """`Lizzy` said three times in quotes whose tag names Mr. Bennet or Jane: an untagged `Lizzy` quote guessed as
    Jane was seen using it, one guessed as Charlotte never; a form said fewer than three times teaches nothing."""
    from extractors.novel.attribution.calibration import address_form_usage
    from extractors.novel.attribution.speaker_guess import Attribution

    def named(speaker, forms):
        return Attribution(speaker, 0.99, "explicit-verb", "verb-name", speaker, address_forms=set(forms))

    def turn(speaker, forms):
        return Attribution(speaker, 0.7, "turn-taking", "conv", address_forms=set(forms), turn_features={"posterior": 0.7})
    res = [named("mr_bennet", ["lizzy"]), named("jane", ["lizzy"]), named("jane", ["lizzy", "mr. darcy"]),
           named("elizabeth", ["mr. darcy"]), turn("jane", ["lizzy"]), turn("charlotte", ["lizzy"]),
           turn("elizabeth", ["mr. darcy"]), turn("jane", [])]
    address_form_usage(res, ("verb-name",))
    assert [{k: v for k, v in a.turn_features.items() if k != "posterior"} for a in res[4:]] == [
        {"form_used": True, "form_never": False}, {"form_used": False, "form_never": True}, {}, {}]
    assert res[0].turn_features is None
