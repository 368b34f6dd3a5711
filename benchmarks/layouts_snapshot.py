"""Output snapshot of the script and wiki parsers: one hash per input file of the lines they produce.

Runs every script and wiki fixture (tests/fixtures/script, tests/fixtures/wiki) and every text sample
(data/samples) through the parsers — `auto` and each forced script format, `extract_wiki` for wiki
pages, plus the synthetic pages of benchmarks/wiki_parse.py — and prints `hash  lines  name` per run
(an `error: ...` line is hashed too, so a changed refusal shows). Used to show that a refactor leaves
the output byte-identical:

    python benchmarks/layouts_snapshot.py > before.txt   # ... change the code ...
    python benchmarks/layouts_snapshot.py | diff before.txt -

benchmarks/layouts_snapshot.txt holds the hashes taken before issue 8's parser rewrite (state machines,
mwparserfromhell, lxml); the rewritten parsers print the same file.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from extractors.errors import InputError  # noqa: E402
from extractors.script import extract_script  # noqa: E402
from extractors.wiki import extract_wiki, parse_wiki_text  # noqa: E402

SCRIPT_DIRS = [REPO / "tests" / "fixtures" / "script", REPO / "data" / "samples"]
WIKI_DIRS = [REPO / "tests" / "fixtures" / "wiki"]
TEXT_SUFFIXES = {".txt", ".md", ".html", ".wiki", ".htm"}


def digest(rows: list) -> str:
    blob = "\n".join(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def run(fn) -> tuple[str, int]:
    try:
        rows = [ln.to_dict() for ln in fn()]
    except InputError as e:
        return digest([f"error: {e}"]), -1
    return digest(rows), len(rows)


def files(dirs: list[Path]) -> list[Path]:
    return sorted(p for d in dirs for p in d.iterdir() if p.suffix in TEXT_SUFFIXES and p.name != "README.md")


def main() -> None:
    for path in files(SCRIPT_DIRS):
        for fmt in ("auto", "play", "screenplay", "colon"):
            h, n = run(lambda: extract_script(path, "w", fmt=fmt)[0])
            print(f"{h}  {n:6d}  script/{fmt:10} {path.relative_to(REPO)}")
    for path in files(WIKI_DIRS):
        h, n = run(lambda: extract_wiki(path, "w"))
        print(f"{h}  {n:6d}  wiki              {path.relative_to(REPO)}")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from wiki_parse import pages

    for name, text in list(pages(200).items())[:2]:  # the two pages the snapshot was first taken on
        quotes = parse_wiki_text(text)
        rows = [(q.kind, q.text, q.unit, q.name, q.extra) for q in quotes]
        print(f"{digest(rows)}  {len(rows):6d}  wiki-bench        {name}")


if __name__ == "__main__":
    main()
