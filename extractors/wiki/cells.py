"""What the HTML reader hands on: a `Page` (title, first `<h1>`, the lead's bold subject, body blocks) and
table `Cell`s; `expand_spans` lays a table's cells on a grid (a rowspan/colspan cell repeated in each slot).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Cell:
    header: bool
    text: str
    rowspan: int = 1
    colspan: int = 1
    origin: int = -1  # id of the source cell (spanned copies share it)


@dataclass
class Page:
    title: str = ""
    h1: str = ""
    lead: str = ""  # the bold subject of the page's first paragraph ('<p><b>Rosalind</b> is the heroine...'),
    # "" when it is in italics (a work: '<b><i>As You Like It</i></b> is a comedy')
    blocks: list[tuple[str, object]] = field(default_factory=list)


def _span(attrs: dict, name: str) -> int:
    try:
        return max(1, min(int(str(attrs.get(name) or "1").strip().split()[0]), 50))
    except (ValueError, IndexError):
        return 1


def expand_spans(rows: list[list[Cell]]) -> list[list[Cell]]:
    """Lay the cells on a grid: a cell with rowspan/colspan N appears in each of the N slots."""
    grid: list[list[Cell]] = []
    pending: dict[tuple[int, int], Cell] = {}  # (row, col) -> spanned cell
    n = 0
    for r, row in enumerate(rows):
        out: list[Cell] = []
        col = 0
        cells = list(row)
        while cells or (r, col) in pending:
            if (r, col) in pending:
                out.append(pending.pop((r, col)))
                col += 1
                continue
            c = cells.pop(0)
            if c.origin < 0:
                c.origin = n
                n += 1
            for dc in range(c.colspan):
                copy = c if dc == 0 else Cell(c.header, c.text, 1, 1, c.origin)
                out.append(copy)
                for dr in range(1, c.rowspan):
                    pending[(r + dr, col + dc)] = Cell(c.header, c.text, 1, 1, c.origin)
            col += c.colspan
        grid.append(out)
    return grid
