"""Charts drawn on the server as inline SVG (no JavaScript, nothing fetched): horizontal bars for counts by
category, columns for histograms. The same SVG goes into the studio pages and the static `rolecorpus report`."""

from __future__ import annotations

from html import escape

PALETTE = ("#3b6ea5", "#e07b39", "#4e9a5b", "#b8474f", "#7d5ba6", "#8c6d31", "#c25e9e", "#5f7f8c")


def _empty(title: str, why: str) -> str:
    return (f'<figure class="chart empty"><figcaption>{escape(title)}</figcaption>'
            f'<p class="muted">{escape(why)}</p></figure>')


def bar_chart(title: str, items: list[tuple[str, float]], unit: str = "lines", empty: str = "nothing to show") -> str:
    """Horizontal bars, one per (label, value), largest value = full width; the value is written at the bar end."""
    if not items or not any(v for _, v in items):
        return _empty(title, empty)
    row, left, width = 22, 200, 300
    top = max(v for _, v in items)
    h = row * len(items) + 8
    parts = [f'<svg class="chart" width="{left + width + 70}" height="{h}" role="img" '
             f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">']
    for i, (label, value) in enumerate(items):
        y = 4 + i * row
        w = max(2, round(width * value / top)) if value else 0
        shown = label if len(label) <= 30 else "…" + label[-29:]
        parts.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end" class="label">{escape(shown)}</text>'
                     f'<rect class="bar" x="{left}" y="{y + 3}" width="{w}" height="{row - 6}" '
                     f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(label)}: {value:g} {unit}</title></rect>'
                     f'<text x="{left + w + 5}" y="{y + 15}" class="value">{value:g}</text>')
    parts.append("</svg>")
    return f'<figure class="chart"><figcaption>{escape(title)}</figcaption>{"".join(parts)}</figure>'


def column_chart(title: str, bins: list[tuple[str, int]], xlabel: str, unit: str = "lines",
                 empty: str = "nothing to show") -> str:
    """Vertical columns for a histogram: (bin label, count) left to right, axis label under it."""
    if not bins or not any(v for _, v in bins):
        return _empty(title, empty)
    col, height, left = max(18, min(48, 460 // len(bins))), 140, 36
    top = max(v for _, v in bins)
    w = left + col * len(bins) + 10
    parts = [f'<svg class="chart" width="{w}" height="{height + 52}" role="img" aria-label="{escape(title)}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{left}" y1="{height + 6}" x2="{w - 6}" y2="{height + 6}" class="axis"/>',
             f'<text x="{left - 4}" y="14" text-anchor="end" class="value">{top}</text>']
    for i, (label, value) in enumerate(bins):
        x = left + i * col
        hh = round(height * value / top) if value else 0
        parts.append(f'<rect class="bar" x="{x + 2}" y="{height + 6 - hh}" width="{col - 4}" height="{hh}" '
                     f'fill="{PALETTE[0]}"><title>{escape(label)}: {value} {unit}</title></rect>')
        if len(bins) <= 12 or i % 2 == 0:
            parts.append(f'<text x="{x + col / 2}" y="{height + 20}" text-anchor="middle" class="tick">'
                         f'{escape(label)}</text>')
    parts.append(f'<text x="{left + col * len(bins) / 2}" y="{height + 42}" text-anchor="middle" class="label">'
                 f'{escape(xlabel)}</text></svg>')
    return f'<figure class="chart"><figcaption>{escape(title)}</figcaption>{"".join(parts)}</figure>'
