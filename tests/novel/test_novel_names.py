"""Names a text uses for a configured character: surname and first name alone, a bare-surname list
entry folded into its `Mr.` holder, and one paragraph with two tagged speakers."""

from __future__ import annotations

from extractors.characters import Character
from extractors.novel.extract import extract_novel
from extractors.novel.cast.names import NameIndex


def test_surname_and_first_name_forms():
    idx = NameIndex([Character("poirot", "Hercule Poirot", "s", gender="male"),
                     Character("mr_bennet", "Mr. Bennet", "p", gender="male"),
                     Character("mrs_bennet", "Mrs. Bennet", "p", gender="female"),
                     Character("jane", "Jane Bennet", "p", gender="female")])
    assert idx.lookup("Poirot") == "poirot" and idx.lookup("Hercule") == "poirot"
    assert idx.lookup("Bennet") == "mr_bennet"  # a shared surname alone: its one Mr. holder
    assert idx.lookup("Jane") == "jane"


def test_bare_surname_entry_is_the_mr_holder():
    idx = NameIndex([Character("josiah", "Josiah Bounderby", "h", aliases=["Mr. Bounderby"], gender="male"),
                     Character("bounderby", "Bounderby", "h")])
    assert idx.lookup("Bounderby") == "josiah"


def test_two_speakers_in_one_paragraph(tmp_path):
    p = tmp_path / "n.txt"
    p.write_text('Chapter 1\n\n"Hello," said Rosalind. "Good day," said Orlando.\n\n'
                 '"Hello," said Rosalind, "and good day."\n', encoding="utf-8")
    chars = [Character("rosalind", "Rosalind", "x"), Character("orlando", "Orlando", "x")]
    dia = [ln for ln in extract_novel(p, "w", chars, language="en") if ln.kind == "dialogue"]
    assert [(ln.speaker, ln.text) for ln in dia] == [("rosalind", "Hello,"), ("orlando", "Good day,"),
                                                    ("rosalind", "Hello, and good day.")]


def test_first_person_tags_need_a_narrator(tmp_path):
    p = tmp_path / "n.txt"
    p.write_text('Chapter 1\n\n"Where were you?" I asked.\n\n"Out," said Poirot.\n', encoding="utf-8")
    chars = [Character("poirot", "Hercule Poirot", "s", gender="male"),
             Character("hastings", "Hastings", "s", gender="male", narrator=True)]
    dia = [ln for ln in extract_novel(p, "w", chars, language="en") if ln.kind == "dialogue"]
    assert [(ln.speaker, ln.name) for ln in dia] == [("hastings", "I"), ("poirot", "Poirot")]
    dia = [ln for ln in extract_novel(p, "w", chars[:1], language="en") if ln.kind == "dialogue"]
    assert dia[0].speaker is None


def test_a_title_only_name_before_a_longer_name_is_its_title(tmp_path):
    # Oliver Twist lists `The Master`; `cried Master Charles Bates` is Charley Bates, `said Master Jones` nobody listed
    p = tmp_path / "n.txt"
    p.write_text('Chapter 1\n\n"Oh, my wig!" cried Master Charles Bates.\n\n"Ah!" said Master Jones.\n\n'
                 '"Silence!" said the Master.\n', encoding="utf-8")
    chars = [Character("the_master", "The Master", "o", gender="male"),
             Character("charley_bates", "Charley Bates", "o", aliases=["Bates", "Master Bates"], gender="male")]
    lines = [ln for ln in extract_novel(p, "o", chars, language="en", min_confidence=0.9) if ln.kind == "dialogue"]
    assert [(ln.speaker, ln.name) for ln in lines] == [("charley_bates", "Bates"), (None, None), ("the_master", "the Master")]


def test_a_description_in_the_list_names_nobody_by_its_first_word(pdnc):
    """PDNC lists descriptions beside names (`His Father'S Chauffeur`, `Her Sister`, `Alice'S Sister`, `One Of The
    Policemen`): their words alone are no names, or every `His`/`Her`/`One` opening a sentence is that person."""
    from extractors.novel.evaluation import pdnc as pdnc_mod

    for book, words in [("HowardsEnd", ("His", "Chauffeur")), ("AlicesAdventuresInWonderland", ("Her", "Sister")),
                        ("TheInvisibleMan", ("One", "Policemen"))]:
        idx = NameIndex(pdnc_mod.load_characters(pdnc / book))
        assert [w for w in words if idx.lookup(w)] == [], book
    idx = NameIndex(pdnc_mod.load_characters(pdnc / "HowardsEnd"))
    assert idx.lookup("Crane") and idx.lookup("His Father'S Chauffeur")  # the entry's own names still match


def test_the_start_of_a_possessive_name_is_no_mention(pdnc):
    """`with all Lawrence Lefferts's practised glibness, while she listened …, saying:` (The Age of Innocence): the
    possessive is nobody's mention, and neither is its `Lawrence` alone (before, the line went to Lefferts)."""
    from extractors.novel.evaluation import pdnc as pdnc_mod

    d = pdnc / "TheAgeOfInnocence"
    text = (d / "novel_text.txt").read_text(encoding="utf-8")
    at = text.index("Lawrence Lefferts's practised glibness")
    idx = NameIndex(pdnc_mod.load_characters(d))
    assert idx.mentions(text, at - 40, at + 60) == []
    assert [m.surface for m in idx.mentions("Lawrence Lefferts said and Lawrence went")] == ["Lawrence Lefferts", "Lawrence"]
