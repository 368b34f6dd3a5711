"""Parsers use memory linear in the input: a wiki page of 50,000 nested `<li>quote<ul>` levels (1.8 MB) parses
within a few tens of MB of Python allocations (measured with tracemalloc; the quadratic reader needed GBs), and the
nesting it writes is capped at MAX_LIST_DEPTH markers. Time figures: benchmarks/big_inputs.py --nested."""

from __future__ import annotations

import tracemalloc

from extractors.wiki.html import MAX_LIST_DEPTH, read_html


def nested(levels: int) -> str:
    return ("<html><body><h2>Quotes</h2><ul>" + "".join(f"<li>quote number {i}<ul>" for i in range(levels))
            + "</ul></li>" * levels + "</ul></body></html>")


def _peak_mb(page: str):
    tracemalloc.start()
    try:
        result = read_html(page)
        return result, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_fifty_thousand_nested_items_parse_in_linear_memory():
    page = nested(50_000)
    result, peak = _peak_mb(page)
    assert peak < 60, f"{peak:.0f} MB of Python allocations for a {len(page) / 1e6:.1f} MB page"
    text = "\n".join(t for kind, t in result.blocks if kind == "text")
    rows = text.splitlines()
    assert rows[0] == "* quote number 0" and rows[1] == "** quote number 1"
    assert rows[-1] == "*" * MAX_LIST_DEPTH + " quote number 49999" and len(rows) == 50_000


def test_memory_grows_linearly_with_nesting():
    _, small = _peak_mb(nested(5_000))
    _, big = _peak_mb(nested(20_000))
    assert big < 6 * small, (small, big)  # 4x the input: about 4x the memory (quadratic would be 16x)


def test_many_attributions_in_one_quote_line():
    """Only the first <cite> of the line opens it (read back from the end of the text, never the whole text)."""
    page = "<html><body><blockquote><p>" + "<cite>Somebody</cite> said " * 20_000 + "</p></blockquote></body></html>"
    result, peak = _peak_mb(page)
    assert peak < 40, peak
    text = "\n".join(t for kind, t in result.blocks if kind == "text")
    assert text.startswith("— Somebody said") and text.count("Somebody") == 20_000
