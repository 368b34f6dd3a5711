"""Rule attribution on every PDNC dev novel as it comes (broken at a fixed width, blank lines between paragraphs),
set a paragraph a line with no blank lines (as some e-book exports are), and with an indent opening each paragraph
and no blank lines (as many older e-texts are): the layout should not change who speaks.

Usage: python benchmarks/novel_layouts.py [--books A,B] [--zh]

Both other layouts are made character for character in place, so the gold offsets still hold: a paragraph a line
joins each paragraph's lines with spaces (`\\n\\n` -> ` \\n`, a line break inside a paragraph -> ` `); indented
keeps the lines and opens each paragraph with a space instead of the blank line before it (`\\n\\n` -> `\\n `).
Prints accuracy / coverage / precision at the default hold for each, the held-back books marked. `--zh`: 平凡的世界
(`shared/corpora/wp2021`) wrapped at 35 characters, each paragraph opening with `　　`, no blank lines (as old
Chinese e-texts are): its quotations given a speaker, and given the one they get in the text as it comes (its
labels cannot be aligned once lines are broken, so the text as it comes is the reference).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from extractors.novel.evaluation import evaluate, pdnc  # noqa: E402
from extractors.novel.extract import extract_novel  # noqa: E402

D = Path(os.environ.get("PDNC_DIR", Path(__file__).resolve().parents[2] / "shared" / "corpora" / "pdnc" / "data"))
HELD = set(json.loads((Path(__file__).resolve().parent / "pdnc_split.json").read_text())["heldout"])


def a_paragraph_a_line(text: str) -> str:
    """The text with each paragraph on one line and no blank lines, every offset unchanged."""
    return re.sub(r"(?<! )\n(?!\n)", " ", text.replace("\n\n", " \n"))


def indented(text: str) -> str:
    """The text with no blank lines, each paragraph opening with an indent, every offset unchanged."""
    return text.replace("\n\n", "\n ")


def wrapped_zh(text: str, width: int = 35) -> str:
    """Chinese text with each paragraph opening with `　　`, broken every `width` characters, no blank lines."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        para = "".join(para.split("\n")).strip()
        if para:
            para = para if para.startswith("第") else "\u3000\u3000" + para  # a chapter heading stays whole
            out.extend(para[i:i + width] for i in range(0, len(para), width))
    return "\n".join(out) + "\n"


def zh_speakers(text: str) -> list[tuple[str, str | None]]:
    """(the quotation's first characters, the name it is given) for every quotation, nothing configured (as
    `zh_modern.run_book` reads a book)."""
    from benchmarks.zh_modern import run_book

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "novel_text.txt"
        path.write_text(text, encoding="utf-8")
        lines = run_book(path, "wp2021")[2]
    return [("".join(ln.text.split())[:12], ln.name if ln.speaker else None) for ln in lines if ln.kind == "dialogue"]


def chinese() -> None:
    from extractors.novel.extract import read_novel

    text = read_novel(D.parents[1] / "wp2021" / "wp2021_train.txt")
    ref, got = zh_speakers(text), zh_speakers(wrapped_zh(text))
    first = dict(ref)
    same = sum(1 for q, s in got if s and first.get(q) == s)
    print(f"平凡的世界 as it comes: {sum(1 for _, s in ref if s)} of {len(ref)} quotations given a speaker; wrapped at 35 "
          f"characters: {sum(1 for _, s in got if s)} of {len(got)}, {same} the speaker they get as it comes")


def figures(book: str, text: str, chars, gold) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "novel_text.txt"
        path.write_text(text, encoding="utf-8")
        return evaluate.score(gold, extract_novel(path, book, chars, language="en", text=text))["overall"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--books", help="comma-separated PDNC book folders (default: all)")
    ap.add_argument("--zh", action="store_true", help="平凡的世界 wrapped at a fixed width instead")
    args = ap.parse_args()
    if args.zh:
        return chinese()
    books = args.books.split(",") if args.books else sorted(p.name for p in D.iterdir() if p.is_dir())
    print(f"{'book':28s} {'as it comes: acc / cov / prec':32s} {'a paragraph a line':24s} indented")
    for book in books:
        d = D / book
        chars, gold = pdnc.load_characters(d), pdnc.load_quotes(d)
        text = (d / "novel_text.txt").read_text(encoding="utf-8")
        got = [figures(book, t, chars, gold) for t in (text, a_paragraph_a_line(text), indented(text))]
        cells = ["%.3f / %.3f / %.3f" % (o["accuracy"], o["coverage"], o["precision"]) for o in got]
        name = book[:22] + (" (held back)" if book in HELD else "")
        print(f"{name:28s} {cells[0]:32s} {cells[1]:24s} {cells[2]}", flush=True)


if __name__ == "__main__":
    main()
