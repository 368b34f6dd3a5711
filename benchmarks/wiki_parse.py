"""Speed of `rolecorpus extract wiki`'s parser: lines per second on synthetic Wikiquote pages.

Builds a wikitext page (3,000 exchanges of 2 speeches + a direction, `----` between), the same
page as saved HTML (`<dl><dd><b>Name</b>: ...` exchanges split by `<hr>`), and the wikitext page with
one speaker as a link (`[[Rosalind (As You Like It)|Rosalind]]`, read by mwparserfromhell); parses each
3 times and prints the best time and throughput. Run: `python benchmarks/wiki_parse.py`.
"""

from __future__ import annotations

import time

from extractors.wiki import parse_wiki_text


def pages(n: int = 3000) -> dict[str, str]:
    wiki = ["== Act I =="]
    for i in range(n):
        wiki += [f":'''Rosalind''': I pray thee, sweet coz, be merry ({i}).", ":'''Celia''': Herein I see thou lovest me not.",
                 ":''[Exit Celia]''", "----"]
    html = "<html><body><h2>Act I</h2>" + "".join(
        f"<dl><dd><b>Rosalind</b>: I pray thee, sweet coz, be merry ({i}).</dd><dd><b>Celia</b>: Herein I see thou"
        " lovest me not.</dd><dd><i>[Exit Celia]</i></dd></dl><hr>" for i in range(n)) + "</body></html>"
    linked = "\n".join(wiki).replace("'''Rosalind'''", "'''[[Rosalind (As You Like It)|Rosalind]]'''")
    return {"wikitext": "\n".join(wiki), "saved HTML": html, "wikitext with links": linked}


def main() -> None:
    for name, text in pages().items():
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            quotes = parse_wiki_text(text)
            best = min(best, time.perf_counter() - t0)
        units = len({q.unit for q in quotes})
        print(f"{name:19}: {len(text) / 1024:6.0f} KB, {len(quotes)} lines in {units} units, "
              f"{best:.3f} s = {len(quotes) / best:,.0f} lines/s")


if __name__ == "__main__":
    main()
