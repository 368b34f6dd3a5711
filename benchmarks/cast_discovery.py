"""Cast discovery (`rolecorpus characters discover`) on the twelve PDNC novels, with no configuration.

Usage: python benchmarks/cast_discovery.py [BOOK ...] [--show] [--aliases-only] [--by-tags]

Per book: how many of the gold ten most frequent speakers (`quotation_info.csv`) are among the first
15 discovered members, how many of those 15 wrongly merge two gold characters, whether a narrator
member was found, gender agreement, and the time (discovery plus the attribution that orders the members by
their lines; `--by-tags` orders them by speech tags alone, as before `cast_rank`: 113/120 then, 117 now). A member matches a gold character when its name or
an alias equals one of that character's aliases (case and punctuation folded); a form that is an
alias of several gold characters decides nothing. `--show` prints the first 15 members.

The alias lists of `character_info.csv` are corrected by PDNC's own mention annotations (`mentionTextsList`
/ `mentionEntitiesList` of `quotation_info.csv`): a form annotated at least 3 times, 80% of them as one
character, names that character (`Mr. Archer` is Newland in all 19 annotated mentions though the alias
list gives it to his father; `May` is Miss Welland, whose list spells `May Wellend`), and a gold character
that never speaks, is never addressed and is never annotated (`Harthouse`, a duplicate entry of `Mr.
James Harthouse`) is dropped. `--aliases-only` scores with the alias lists alone (the figures before).
"""
import ast
import collections
import csv
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.characters import AliasResolver, normalize_name  # noqa: E402
from extractors.novel.evaluation import pdnc  # noqa: E402
from extractors.novel.cast.discover import discover_cast  # noqa: E402
from extractors.novel.extract import read_novel  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "pdnc" / "data"))


def _literal(value: str | None) -> list:
    try:
        return ast.literal_eval(value) if value else []
    except (ValueError, SyntaxError):
        return []


def _annotated(d: Path, resolve) -> tuple[dict, set]:
    """(normalized form -> Counter of gold ids it was annotated as, ids that speak, are addressed or annotated)."""
    seen, used = collections.defaultdict(collections.Counter), set()
    with open(d / "quotation_info.csv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            used.add(resolve(row["speaker"]))
            used.update(resolve(a) for a in _literal(row.get("addressees")))
            texts, ents = _literal(row.get("mentionTextsList")), _literal(row.get("mentionEntitiesList"))
            for ts, es in zip(texts, ents):
                for t, e in zip(ts, es):
                    ids = {resolve(x) for x in e}
                    used.update(ids)
                    if len(ids) == 1 and t[:1].isupper():
                        seen[normalize_name(" ".join(t.split()))][next(iter(ids))] += 1
    return seen, used


def gold(d: Path, aliases_only: bool = False):
    """(alias -> gold ids, top-10 speaker ids, id -> gender, narrator id or None)."""
    chars = pdnc.load_characters(d)
    by_alias = collections.defaultdict(set)
    for c in chars:
        for a in [c.name, *c.aliases]:
            by_alias[normalize_name(a)].add(c.id)
    if not aliases_only:
        seen, used = _annotated(d, AliasResolver(chars).speaker_id)
        for key in list(by_alias):
            by_alias[key] = {i for i in by_alias[key] if i in used}
        for key, ids in seen.items():
            cid, n = ids.most_common(1)[0]
            if sum(ids.values()) >= 3 and n >= 0.8 * sum(ids.values()):
                by_alias[key] = {cid}
    top = [cid for cid, _ in collections.Counter(q.speaker for q in pdnc.load_quotes(d)).most_common(10)]
    narr = next((c.id for c in chars if getattr(c, "narrator", False)
                 or {"narr", "_narr"} & {a.lower() for a in c.aliases}), None)
    return by_alias, top, {c.id: c.gender for c in chars}, narr


def identity(member, by_alias) -> set:
    """The gold characters a member names: those pinned by a form that only one of them has."""
    ids = [by_alias.get(normalize_name(f), set()) for f in [member.name, *member.aliases]]
    pinned = set().union(*[i for i in ids if len(i) == 1]) if ids else set()
    return pinned


def score(cast, by_alias, top, genders, narr) -> dict:
    first = cast[:15]
    found, wrong, g_ok, g_n = set(), 0, 0, 0
    for m in first:
        ident = identity(m, by_alias)
        if len(ident) > 1:
            wrong += 1
        elif ident:
            cid = next(iter(ident))
            found.add(cid)
            if genders.get(cid) and m.gender:
                g_n += 1
                g_ok += genders[cid] == m.gender
    nm = [m for m in cast if m.narrator]
    narrator_ok = bool(nm) if narr else not nm
    if nm and narr:
        ident = identity(nm[0], by_alias)
        narrator_ok = nm[0].name == "Narrator" or ident == {narr}
    return {"top": len(set(top) & found), "wrong": wrong, "narrator": nm[0].name if nm else "-",
            "narrator_ok": narrator_ok, "gender": f"{g_ok}/{g_n}", "missed": [t for t in top if t not in found]}


def main(argv: list[str]) -> None:
    show = "--show" in argv
    aliases_only = "--aliases-only" in argv
    by_lines = "--by-tags" not in argv
    books = [a for a in argv if not a.startswith("--")] or sorted(p.name for p in D.iterdir() if p.is_dir())
    tot_top = tot_wrong = 0
    print(f"{'book':30s} top10in15 wrong narrator          gender   time  missed")
    for b in books:
        d = D / b
        by_alias, top, genders, narr = gold(d, aliases_only)
        text = read_novel(d / "novel_text.txt")
        t0 = time.time()
        cast = discover_cast(text, "en", by_lines=by_lines)
        dt = time.time() - t0
        s = score(cast, by_alias, top, genders, narr)
        tot_top += s["top"]
        tot_wrong += s["wrong"]
        mark = "" if s["narrator_ok"] else " (wrong)"
        print(f"{b:30s} {s['top']:4d}/10   {s['wrong']:4d}  {s['narrator'] + mark:17s} {s['gender']:7s} {dt:5.2f}s "
              f"{', '.join(s['missed'])}")
        if show:
            for m in cast[:15]:
                print(f"    {m.speaks:4d} {m.count:5d} {m.gender or '?':6s} {'N' if m.narrator else ' '} {m.name} "
                      f"{m.aliases[:6]} -> {sorted(identity(m, by_alias))}")
    print(f"{'total':30s} {tot_top:4d}/{10 * len(books)}  {tot_wrong:4d}")


if __name__ == "__main__":
    main(sys.argv[1:])
