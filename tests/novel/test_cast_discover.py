"""Cast discovery on real novels (PDNC gold, the bundled Alice) and `rolecorpus characters discover`
through typer's CliRunner: the table, `--write` drafts that never overwrite, and bad input."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pipeline.cli  # noqa: F401  (registers the commands)
from conftest import load_script
from extractors.characters import load_character, normalize_name
from extractors.novel.evaluation import pdnc
from extractors.novel.cast.discover import discover_cast
from extractors.novel.extract import extract_novel, read_novel
from pipeline.cli_app import app

from cli_asserts import one_line_error


def _gold(corpus: Path, book: str):
    d = corpus / book
    by_alias = collections.defaultdict(set)
    for c in pdnc.load_characters(d):
        for a in [c.name, *c.aliases]:
            by_alias[normalize_name(a)].add(c.id)
    top = [cid for cid, _ in collections.Counter(q.speaker for q in pdnc.load_quotes(d)).most_common(10)]
    return by_alias, top


def _ids(member, by_alias) -> set:
    """Gold characters a member names through forms that belong to one gold character only."""
    hits = [by_alias.get(normalize_name(f), set()) for f in [member.name, *member.aliases]]
    return set().union(*[h for h in hits if len(h) == 1])


@pytest.fixture(scope="module")
def pride(pdnc):
    return discover_cast(read_novel(pdnc / "PrideAndPrejudice" / "novel_text.txt"), "en")


def test_pride_top_speakers_found_and_merged(pride, pdnc):
    by_alias, top = _gold(pdnc, "PrideAndPrejudice")
    first = pride[:15]
    ids = [_ids(m, by_alias) for m in first]
    assert all(len(i) <= 1 for i in ids), [(m.name, m.aliases) for m, i in zip(first, ids) if len(i) > 1]
    found = set().union(*ids)
    assert len(found & set(top)) >= 9, set(top) - found          # measured: 10 of 10
    darcy = next(m for m in first if m.name == "Mr. Darcy" or "Mr. Darcy" in m.aliases)
    assert "Darcy" in [darcy.name, *darcy.aliases] and darcy.gender == "male"
    mr = next(m for m in first if "Mr. Bennet" in [m.name, *m.aliases])
    assert "Mrs. Bennet" not in [mr.name, *mr.aliases]
    assert next(m for m in first if "Mrs. Bennet" in [m.name, *m.aliases]).gender == "female"
    assert first[0].speaks > 2 * first[1].speaks and "Elizabeth" in [first[0].name, *first[0].aliases]
    assert [m.lines for m in pride] == sorted((m.lines for m in pride), reverse=True) and first[0].lines > 200
    assert not any(m.narrator for m in pride)


def test_styles_narrator(pdnc):
    cast = discover_cast(read_novel(pdnc / "TheMysteriousAffairAtStyles" / "novel_text.txt"), "en", 15)
    narrators = [m for m in cast if m.narrator]
    assert len(narrators) == 1 and narrators[0].speaks >= 100
    assert "Hastings" in [narrators[0].name, *narrators[0].aliases]   # what Poirot calls him in his replies
    assert any("Poirot" in [m.name, *m.aliases] for m in cast[:3])


def test_oliver_twist_cast_has_sikes_near_the_top(pdnc):
    # its speed is a benchmark's figure (benchmarks/cast_discovery.py), not a timed test
    cast = discover_cast(read_novel(pdnc / "OliverTwist" / "novel_text.txt"), "en", 15)
    assert any("Sikes" in [m.name, *m.aliases] for m in cast[:5])


def test_alice_first(samples):
    cast = discover_cast(read_novel(samples / "alice29.txt"), "en", 10)
    assert cast[0].name == "Alice" and cast[0].gender == "female"
    names = {n for m in cast for n in [m.name, *m.aliases]}
    assert {"The Hatter", "The Mock Turtle", "The Gryphon"} <= names


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("ROLECORPUS_ROOT", str(tmp_path))
    (tmp_path / "configs" / "characters").mkdir(parents=True)
    return tmp_path


def test_cli_table_write_never_overwrites(project, samples):
    runner = CliRunner()
    old = project / "configs" / "characters" / "alice.yaml"
    old.write_text("id: alice\nname: Alice Liddell\nseries: mine\n", encoding="utf-8")
    r = runner.invoke(app, ["characters", "discover", str(samples / "alice29.txt"), "--top", "4", "--write",
                            "--work", "alice", "--json", str(project / "cast.json")])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[1].split()[0] == "Alice"
    assert "skipped 1 existing: configs/characters/alice.yaml" in r.output
    assert load_character(old).name == "Alice Liddell"            # untouched
    drafted = sorted(p.name for p in (project / "configs" / "characters").glob("*.yaml") if p != old)
    assert len(drafted) == 3 and "the_king.yaml" in drafted
    king = load_character(project / "configs" / "characters" / "the_king.yaml")
    assert king.series == "alice" and king.name == "The King"
    assert "mentions" not in (project / "configs" / "characters" / "the_king.yaml").read_text(encoding="utf-8")
    assert (project / "cast.json").read_text(encoding="utf-8").count('"id"') == 4


def test_cli_empty_file(project, tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("   \n", encoding="utf-8")
    r = CliRunner().invoke(app, ["characters", "discover", str(f)])
    one_line_error(r, "empty.txt", "empty")


def test_cli_bad_language(project, samples):
    r = CliRunner().invoke(app, ["characters", "discover", str(samples / "alice29.txt"), "--language", "fr"])
    one_line_error(r, "--language")


def test_age_of_innocence_merges(pdnc):
    """A married name joins the maiden name (`May Archer`, `May Welland`, `May`); `The Marchioness` joins
    `Marchioness Manson`; `Mrs. Manson` stays apart from `Mrs. Manson Mingott` (Manson is also a surname)."""
    cast = discover_cast(read_novel(pdnc / "TheAgeOfInnocence" / "novel_text.txt"), "en")
    names = {m.name: [m.name, *m.aliases] for m in cast}
    may = next(v for v in names.values() if "May" in v)
    assert {"May Welland", "May Archer"} <= set(may)
    assert "Marchioness Manson" in next(v for v in names.values() if "The Marchioness" in v)
    assert not any({"Mrs. Manson", "Mrs. Manson Mingott"} <= set(v) for v in names.values())
    assert "Medora" in names["Medora Manson"]      # not `Luyden Newland`: Manson is a surname too


def test_invisible_man_attributed_with_the_discovered_cast(pdnc):
    """No configured characters: the discovered cast attributes The Invisible Man, scored through the benchmark's
    gold mapping (benchmarks/novel_discovered.py; measured precision 0.953, coverage 0.730 at the book's own hold,
    0.75: `said the mariner` goes to the discovered role member `The Mariner`, not to the Invisible Man by
    alternation, and turn-taking guesses for thinly named members are scaled below the fixed hold)."""
    from extractors.novel.evaluation import evaluate
    from extractors.novel.extract import extract_novel
    from extractors.novel.evaluation.pdnc import load_quotes

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "novel_discovered.py"
    bench = load_script(path)
    book = pdnc / "TheInvisibleMan"
    text = read_novel(book / "novel_text.txt")
    cast = discover_cast(text, "en")
    lines = extract_novel(book / "novel_text.txt", book.name, [m.to_character(book.name) for m in cast], language="en", text=text)
    to_gold = bench.gold_map(book, cast)
    gold = load_quotes(book)
    att = [(g.speaker, to_gold.get(ln.speaker)) for g, ln in zip(gold, evaluate.match(gold, lines)) if ln is not None and ln.speaker]
    prec = sum(1 for g, p in att if g == p) / len(att)
    assert prec >= 0.945 and len(att) / len(gold) >= 0.72, (prec, len(att) / len(gold))
    assert any(m.name == "The Mariner" for m in cast[:15]), [m.name for m in cast[:15]]


def test_places_are_not_cast(pdnc):
    """A name written mostly after `in`/`at`/`to`… is a place (`New York`, `Styles`), not a member; the
    people of those books, `Mrs. Struthers` included (`at Mrs. Struthers's` is her house), stay."""
    for book, place, people in (("TheAgeOfInnocence", "New York", {"Mrs. Struthers", "Janey"}),
                                ("TheMysteriousAffairAtStyles", "Styles", {"Mr. Wells"})):
        cast = discover_cast(read_novel(pdnc / book / "novel_text.txt"), "en")
        names = {n for m in cast for n in [m.name, *m.aliases]}
        assert place not in names and people <= names, (book, sorted(names))
        # a full stop ends a title only after an abbreviation: `cried the Inspector. He turned` names no one
        assert not any(n.split()[-1] in ("He", "She", "It") for n in names), sorted(names)


def test_full_name_kept_when_its_last_word_is_a_titled_surname():
    """`Zelda Crane` is one woman even though `Crane` also opens a full name (`Mrs. Crane Holloway`): the text
    writes `Mrs. Crane` three times, so Crane is a surname too, not two names run together."""
    text = "\n\n".join([
        "Mrs. Crane Holloway sat by the fire in the long room, and Tom stood at the door.",
        '"Good evening, Zelda," said Tom, when Zelda Crane came in.',
        "Mrs. Crane was her aunt by marriage, and Mrs. Crane had come from the coast.",
        '"You are late, Zelda," said Tom. Zelda Crane only smiled at him.',
        "Mrs. Crane rose and went out, and the house was quiet again.",
        '"Come back soon," said Mrs. Crane to Mrs. Crane Holloway at the gate.',
        '"Perhaps," said Tom.', '"Never," said Tom.'])
    cast = discover_cast(text, "en")
    zelda = next(m for m in cast if "Zelda" in [m.name, *m.aliases])
    assert zelda.name == "Zelda Crane", [(m.name, m.aliases) for m in cast]


def test_title_after_of_or_an_inner_quote_stays_with_its_name():
    """`the kindness of Mr. Pollard` and `'Mr. Pollard is here'` (a quotation inside a quotation) are mentions of
    `Mr. Pollard`, not of a bare `Pollard` (`of` is no name particle before a title; an opening single quote
    is no apostrophe inside a word)."""
    from extractors.novel.cast.en.scan import _Scan

    scan = _Scan("We owe it to the kindness of Mr. Pollard. \"I wrote: 'Mr. Pollard is here.'\" Then Mr. Pollard came"
                 " with Lady Anne de Vere, and the house of van der Meer stood empty.")
    scan.index()
    assert len(scan.mentions["Mr. Pollard"]) == 3 and "Pollard" not in scan.mentions, dict(scan.mentions)
    (a, b), = scan.mentions["Meer"]                                  # particles still open a name
    assert "Lady Anne de Vere" in scan.mentions and scan.text[a:b] == "van der Meer", dict(scan.mentions)


def test_dev_books_top_speakers_floor(pdnc):
    """benchmarks/cast_discovery.py over the 12 PDNC dev books (gold alias lists corrected by PDNC's mention
    annotations): measured 117/120 of the gold top-10 speakers in the first 15 members (113 when ordered by
    speech tags alone, before members were ordered by the lines attributed to them), 1 wrong merge (HardTimes
    `Thomas` given to Mr. Gradgrind; the annotators give it to his son); Room's Mr. Beebe among them, the role
    speakers The Invisible Man's `The Mariner` and Oliver Twist's Mrs. Corney (`the matron`), and the seldom-tagged
    The Marchioness (The Age of Innocence) and the Duchess of Monmouth (Dorian Gray). (Counting only the guesses kept at
    the default hold gave 116, then 115 with session 38's turn model: The Age of Innocence's Dallas fell to 16th; every
    guess counts since, and he is back.)"""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "cast_discovery.py"
    bench = load_script(path)
    found = wrong = 0
    for book in sorted(p.name for p in pdnc.iterdir() if (p / "novel_text.txt").exists()):
        s = bench.score(discover_cast(read_novel(pdnc / book / "novel_text.txt"), "en"), *bench.gold(pdnc / book))
        found, wrong = found + s["top"], wrong + s["wrong"]
        assert book != "ARoomWithAView" or "mr_beebe" not in s["missed"], s
        assert book != "TheInvisibleMan" or "the_mariner" not in s["missed"], s
        assert book != "OliverTwist" or "mrs_corney" not in s["missed"], s
        assert book != "TheAgeOfInnocence" or "the_marchioness" not in s["missed"], s
        assert book != "ThePictureOfDorianGray" or "duchess_of_monmouth" not in s["missed"], s
    assert found >= 117 and wrong <= 1, (found, wrong)


def test_hyphenated_adverb_in_a_speech_tag():
    """`Zed good-naturedly agreed` tags Zed as `Zed quietly agreed` would (`good-naturedly` is one adverb)."""
    text = "\n\n".join(["Anna saw Zed at the door, and Zed came in.",
                        '"Of course," Zed good-naturedly agreed.', '"Not today," Zed half-jestingly replied.'])
    zed = next((m for m in discover_cast(text, "en") if m.name == "Zed"), None)
    assert zed is not None and zed.speaks == 2, zed


def test_possessive_her_is_gender_evidence():
    """`Quenby shook her head` says Quenby is a woman: a possessive `her` (followed by a word) counts as
    female evidence, so a stray `he` about the man beside her does not make her male. An object `her`
    (`Tom kissed her.`) is not counted: it names someone else."""
    text = "\n\n".join([
        "Quenby shook her head slowly.", '"No," said Quenby.',
        "Quenby looked up and he went on reading by the fire.", '"Yes," said Tom.',
        "Quenby folded her hands in her lap.", '"Perhaps," said Quenby.',
        "Tom kissed her. Quenby turned her face to the window.", '"Never," said Quenby.'])
    cast = {m.name: m for m in discover_cast(text, "en")}
    assert cast["Quenby"].gender == "female", {n: m.gender for n, m in cast.items()}
    assert cast["Tom"].gender != "female", {n: m.gender for n, m in cast.items()}


def _book(episode: list[str], spread: list[str] = (), filler: int = 300) -> str:
    """An invented novel: Anna and Bob talk through `filler` scenes; `episode` sits in one place in the middle,
    the paragraphs of `spread` are dealt out evenly over the whole book."""
    paras = []
    for i in range(filler):
        paras += [f"Anna walked to the window in the evening number {i}, and Bob smiled for a while.",
                  '"It is late," said Anna.', '"It is," said Bob.']
        if i == filler // 2:
            paras += episode
        if spread and i % (filler // len(spread)) == 0 and i // (filler // len(spread)) < len(spread):
            paras.append(spread[i // (filler // len(spread))])
    return "\n\n".join(paras)


def test_role_member_of_one_episode():
    """`said the mariner` eight times within one episode, and the text never names him: a member `The Mariner`
    (PDNC: The Invisible Man's mariner, 25 tags in 3% of the book). Generic nouns (`said the man`) never make one."""
    episode = []
    for k in range(8):
        episode += [f'"Fine weather {k}," said the mariner, and he spat.', f'"Fine indeed {k}," said Bob.',
                    f'"Who goes there {k}?" said the man.']
    cast = {m.name: m for m in discover_cast(_book(episode), "en")}
    assert "The Mariner" in cast and cast["The Mariner"].speaks >= 8, sorted(cast)
    assert cast["The Mariner"].gender == "male" and cast["The Mariner"].id == "the_mariner"
    assert "The Man" not in cast, sorted(cast)


def test_role_spread_over_the_book_is_no_member():
    """The same eight tags dealt out over the whole book: a role running through a book is another name of
    someone (`the beadle`, `the painter`), so without a tie to a name it makes no member."""
    spread = [f'"Fine weather {k}," said the mariner.' for k in range(8)]
    cast = {m.name: m for m in discover_cast(_book([], spread), "en")}
    assert "The Mariner" not in cast and not any("The Mariner" in m.aliases for m in cast.values()), sorted(cast)


def test_role_joined_to_the_name_in_apposition():
    """`Mrs. Quill, the matron of the house,` ties `the matron` to Mrs. Quill: her `said the matron` tags are
    hers (PDNC: Mrs. Corney, the matron; Mr. Sowerberry, the parochial undertaker). A role put in apposition with
    two people (`the warden`) joins neither, and a vocative inside a quotation (`"Hide, Bob, the keeper!"`) is
    no apposition."""
    spread = ["Mrs. Quill, the matron of the house, came in with her keys."]
    spread += [f'"Sit down {k}," said the matron. She smiled.' for k in range(6)]
    spread += ["Bob, the warden of the east gate, nodded.", "Anna, the warden of the west gate, nodded."]
    spread += [f'"Open up {k}," said the warden.' for k in range(4)]
    spread += ['"Yes," said Mrs. Quill.', '"No," said Mrs. Quill.', '"Hide, Bob, the keeper!" said Anna.']
    spread += [f'"Halt {k}," said the keeper.' for k in range(4)]
    cast = discover_cast(_book([], spread), "en")
    quill = next(m for m in cast if m.name == "Mrs. Quill")
    assert "The Matron" in quill.aliases and quill.speaks >= 8, (quill, [m.name for m in cast])
    assert not any({"The Warden", "The Keeper"} & {m.name, *m.aliases} for m in cast), [(m.name, m.aliases) for m in cast]


def test_a_name_only_the_others_use_joins_who_answers_to_it(pdnc):
    """`"…, Harry,"` answered by `said Lord Henry`: one member (Dorian Gray), and the discovered cast then gives Lord
    Henry his lines (gold-mapped accuracy with the discovered cast 0.590 -> 0.693); a father answering for his son
    (`Tom Gradgrind` / `Mr. Gradgrind`, Hard Times) stays two people."""
    dorian = discover_cast(read_novel(pdnc / "ThePictureOfDorianGray" / "novel_text.txt"), "en")
    henry = next(m for m in dorian if "Lord Henry" in [m.name, *m.aliases])
    assert "Harry" in henry.aliases and not any(m.name == "Harry" for m in dorian)
    hard = discover_cast(read_novel(pdnc / "HardTimes" / "novel_text.txt"), "en")
    father = next(m for m in hard if "Mr. Gradgrind" in [m.name, *m.aliases])
    assert "Tom Gradgrind" not in [father.name, *father.aliases]


def test_lizzy_joins_elizabeth_but_miss_bennet_does_not(pride):
    eliza = next(m for m in pride if "Elizabeth" in [m.name, *m.aliases])
    assert "Lizzy" in eliza.aliases and "Miss Bennet" not in eliza.aliases


def test_interjections_are_not_cast(pdnc):
    """`"Hullo, …`, `"Ah, …` open speeches like vocatives; The Invisible Man once listed `Ah` and `Hullo` as people."""
    cast = discover_cast(read_novel(pdnc / "TheInvisibleMan" / "novel_text.txt"), "en")
    names = {n for m in cast for n in [m.name, *m.aliases]}
    assert not names & {"Ah", "Hullo", "Hallo", "Lor"}
    assert "Kemp" in names                                         # the people stay


def test_a_doctor_once_named_so_joins_his_mr(pdnc):
    """`Doctor Losberne`, written once, joins `Mr. Losberne`, so `said the doctor` resolves to him scene by scene
    (Oliver Twist with the discovered cast: 0.696 -> 0.717); `Mr. Fussell` (the son) never joins `Colonel Fussell`."""
    oliver = discover_cast(read_novel(pdnc / "OliverTwist" / "novel_text.txt"), "en")
    assert "Doctor Losberne" in next(m for m in oliver if m.name == "Mr. Losberne").aliases
    howards = discover_cast(read_novel(pdnc / "HowardsEnd" / "novel_text.txt"), "en")
    assert not any({"Colonel Fussell", "Mr. Fussell"} <= {m.name, *m.aliases} for m in howards)


def test_a_mr_or_miss_joins_the_one_full_name_of_that_surname(pdnc):
    """`Miss Bartlett` is `Charlotte Bartlett` (A Room with a View) and `Mr. Fussell` is `Albert Fussell` (Howards End,
    not his father `Colonel Fussell`): the one full name the text gives the surname, a person of the title's gender.
    `Mr. Bounderby` joins `Josiah Bounderby` once the merge has made `Loo Bounderby` a woman (Hard Times), and `Mr.
    Sikes` joins `Bill Sikes` (Oliver Twist); `Mrs. Archer` (Newland's mother) stays apart from `Mrs. Newland Archer`."""
    room = discover_cast(read_novel(pdnc / "ARoomWithAView" / "novel_text.txt"), "en")
    assert "Miss Bartlett" in [m for m in room if m.name == "Charlotte Bartlett"][0].aliases
    howards = discover_cast(read_novel(pdnc / "HowardsEnd" / "novel_text.txt"), "en")
    assert {"Albert Fussell", "Mr. Fussell"} <= {n for m in howards if m.name == "Albert Fussell" for n in [m.name, *m.aliases]}
    hard = discover_cast(read_novel(pdnc / "HardTimes" / "novel_text.txt"), "en")
    assert any({"Josiah Bounderby", "Mr. Bounderby", "Bounderby"} <= {m.name, *m.aliases} for m in hard)
    assert not any("Loo Bounderby" in {m.name, *m.aliases} and "Mr. Bounderby" in m.aliases for m in hard)
    oliver = discover_cast(read_novel(pdnc / "OliverTwist" / "novel_text.txt"), "en")
    assert "Mr. Sikes" in [m for m in oliver if m.name == "Bill Sikes"][0].aliases
    age = discover_cast(read_novel(pdnc / "TheAgeOfInnocence" / "novel_text.txt"), "en")
    assert not any({"Mrs. Archer", "Mrs. Newland Archer"} <= {m.name, *m.aliases} for m in age)


_LINES_DIGEST = """
import hashlib, json, sys
from extractors.novel.cast.discover import discover_cast
from extractors.novel.extract import extract_novel, read_novel
path = sys.argv[1]
text = read_novel(path)
cast = [m.to_character("P") for m in discover_cast(text, "en", by_lines=False)]
lines = extract_novel(path, "P", cast, language="en", text=text)
print(hashlib.md5(json.dumps([(ln.speaker, ln.confidence, ln.text) for ln in lines]).encode()).hexdigest())
"""


def test_discovered_cast_attribution_is_the_same_in_every_process(pdnc):
    """Sets iterate in a per-process order (string hashing is salted): Pride and Prejudice with its discovered cast
    once gave two quotations other confidences under PYTHONHASHSEED=1 than under 0 (a tie among an exchange's
    candidates broken by the order of a set of vocatives)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    path = str(pdnc / "PrideAndPrejudice" / "novel_text.txt")
    digests = set()
    for seed in ("0", "1"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        out = subprocess.run([sys.executable, "-c", _LINES_DIGEST, path], env=env, capture_output=True, text=True,
                             timeout=300, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_a_surname_only_women_bear_joins_her_full_name(pdnc):
    """`Madame Olenska` and `Countess Olenska` are `Ellen Olenska` (The Age of Innocence), `The Marchioness` is `Medora
    Manson`, `Mrs. Lynde` is `Mrs. Rachel Lynde` (Anne of Green Gables): no man bears the surname and one person holds a title-less full name of it. A
    daughter called `Miss` never takes her mother's `Mrs.` (`Mrs. Miller` stays apart from Daisy Miller)."""
    age = discover_cast(read_novel(pdnc / "TheAgeOfInnocence" / "novel_text.txt"), "en")
    assert {"Madame Olenska", "Countess Olenska"} <= set([m for m in age if m.name == "Ellen Olenska"][0].aliases)
    assert {"The Marchioness", "Mrs. Manson"} <= set([m for m in age if m.name == "Medora Manson"][0].aliases)
    anne = discover_cast(read_novel(pdnc / "AnneOfGreenGables" / "novel_text.txt"), "en")
    assert {"Mrs. Lynde", "Mrs. Rachel"} <= set([m for m in anne if m.name == "Mrs. Rachel Lynde"][0].aliases)
    daisy = discover_cast(read_novel(pdnc / "DaisyMiller" / "novel_text.txt"), "en")
    assert not any({"Mrs. Miller", "Daisy"} <= {m.name, *m.aliases} for m in daisy)


def test_cli_names_the_configured_character_each_member_is(project, pdnc):
    """With `Elizabeth Bennet` configured for the work by name alone, the table's `configured` column gives her id to
    the member the text calls Elizabeth/Lizzy, `-` to the others; `--write` drafts no second config for her."""
    runner = CliRunner()
    r = runner.invoke(app, ["add-character", "lizzy", "--name", "Elizabeth Bennet", "--series", "pride"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["characters", "discover", str(pdnc / "PrideAndPrejudice" / "novel_text.txt"), "--top", "4",
                            "--work", "pride", "--write", "--json", str(project / "cast.json")])
    assert r.exit_code == 0, r.output
    header, *rows = r.output.splitlines()[:5]
    assert header.split()[-1] == "configured"
    eliza = [row for row in rows if "Lizzy" in row]
    assert eliza and eliza[0].split()[-1] == "lizzy" and sum(row.split()[-1] == "-" for row in rows) == 3
    assert "skipped 1 existing: configs/characters/lizzy.yaml" in r.output
    assert not (project / "configs" / "characters" / "elizabeth.yaml").exists()
    assert '"configured": "lizzy"' in (project / "cast.json").read_text(encoding="utf-8")


def test_a_name_seen_only_in_tags_after_the_quotation_is_a_speaker(tmp_path):
    """`"I don't think so," Tom said.` / `"Where?" Cohn asked.`: a name the text writes only after a closing
    quotation mark, before a speech verb, is a speaker (before, it had to be written mid-sentence somewhere,
    so a terse text that tags `Name said` only lost those people and every line they spoke)."""
    text = ('"Is it going to rain?" Bill asked.\n\n"I don\'t think so," Tom said.\n\n"All right," Bill said.\n\n'
            '"Have you seen Mike?" Cohn asked.\n\n"No," Tom said.\n\n"Good," said Cohn.\n\n"Where?" Bill asked.\n\n'
            '"Here," Tom said.\n')
    cast = discover_cast(text, "en")
    assert {"Bill", "Tom", "Cohn"} <= {m.name for m in cast}, [m.name for m in cast]
    p = tmp_path / "n.txt"
    p.write_text(text, encoding="utf-8")
    chars = [m.to_character("t") for m in cast]
    got = {ln.text: ln.speaker for ln in extract_novel(p, "t", chars, language="en") if ln.kind == "dialogue"}
    assert got["I don't think so,"] == got["No,"] == got["Here,"] == "tom", got


def test_a_day_or_an_interjection_the_tags_use_as_a_name_is_a_speaker():
    """`said Sunday`, `said Pooh` three times and more: a day's name or an interjection the speech tags use as a
    name is a speaker (a novel may call its people after the days of the week; Pooh is a bear); `on Monday
    morning` in narration stays no name, and so does `"Pooh!" said Piglet`."""
    text = "\n\n".join(['Syme sat at the long table. The President was Sunday.', '"You are late, Thursday," said Sunday.',
                        '"I was detained," said Syme.', '"By whom?" asked Sunday.', '"That is no joke," said Sunday.',
                        '"I say nothing," said Syme.', '"You will," said Sunday.', 'The meeting broke up on Monday morning.'])
    names = {m.name for m in discover_cast(text, "en")}
    assert {"Sunday", "Syme"} <= names and "Monday" not in names, names
    bear = "\n\n".join(['"Hallo, Piglet," said Pooh.', '"Hallo, Pooh," said Piglet.', '"Honey?" asked Pooh.',
                         '"Pooh!" said Piglet. "No honey."', '"None?" said Pooh.', '"None," said Piglet.'])
    assert {m.name for m in discover_cast(bear, "en")} >= {"Pooh", "Piglet"}
    assert "Pooh" not in {m.name for m in discover_cast(bear.replace("said Pooh", "said Roo").replace("asked Pooh", "asked Roo"), "en")}
    full = bear + '\n\n"Good night, Winnie-the-Pooh," said Piglet.\n\n"Good night," said Winnie-the-Pooh.'
    bears = [m for m in discover_cast(full, "en") if "Pooh" in [m.name, *m.aliases]]
    assert len(bears) == 1 and "Winnie-the-Pooh" in [bears[0].name, *bears[0].aliases], [(m.name, m.aliases) for m in bears]


def test_a_first_name_gives_the_gender_the_text_does_not():
    """No title and no he/she near their tags: the first-name dictionary (gender-guesser) gives `Gladys` and
    `Cecil` a gender, and none to `Brett` (a man's name in America, a woman in The Sun Also Rises)."""
    text = "\n\n".join(['"Come in, Gladys," said Cecil.', '"Thank you, Cecil," said Gladys.', '"Sit down, Brett," said Cecil.',
                        '"No," said Brett.', '"Why not?" said Gladys.', '"Because," said Brett.'])
    gender = {m.name: m.gender for m in discover_cast(text, "en")}
    assert gender == {"Gladys": "female", "Cecil": "male", "Brett": None}, gender
