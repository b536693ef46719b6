"""The summary page's charts, as HTML and one inline
SVG: horizontal bars in a table, and the histogram."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grader.outputs.html_page import e, plural
from grader.outputs.summary_schema import Bin

BLUE, GREEN, AMBER, RED, GREY = "#3b6ea8", "#2e7d32", "#d08700", "#c62828", "#9e9e9e"


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    fraction: float | None  # the bar's length, 0 to 1; None draws no bar
    text: str  # the numbers, written after the bar
    colour: str = BLUE
    tip: str = ""  # shown on hover: the full label and details


def bar_chart(title: str, bars: Sequence[Bar]) -> str:
    """A horizontal bar chart as a table: the label (wrapping, never cut), the bar, its numbers."""
    rows = []
    for bar in bars:
        width = round(100 * min(max(bar.fraction or 0.0, 0.0), 1.0), 1)
        tip = f' title="{e(bar.tip)}"' if bar.tip else ""
        rows.append(
            f'<tr{tip}><th scope="row">{e(bar.label)}</th><td class="bar"><span class="track">'
            f'<span class="fill" style="width:{width}%;background:{bar.colour}"></span></span></td>'
            f'<td class="text">{e(bar.text)}</td></tr>'
        )
    return f'<table class="bars" aria-label="{e(title)}">\n' + "\n".join(rows) + "\n</table>"


def histogram(bins: Sequence[Bin]) -> str:
    """Vertical bars, one per 10% band, the count above each bar and the band below it."""
    top = max((b["count"] for b in bins), default=0) or 1
    slot, plot, left, base = 64, 120, 40, 140
    bars = []
    for index, b in enumerate(bins):
        x, h = left + index * slot, round(plot * b["count"] / top, 1)
        band = f"{b['low']}–{b['high']}%"
        bars.append(
            f"<g><title>{band}: {plural(b['count'], 'student')}</title>"
            f'<rect x="{x + 6}" y="{base - h}" width="{slot - 12}" height="{h}" fill="{BLUE}"/>'
            f'<text x="{x + slot // 2}" y="{base - h - 4}" text-anchor="middle">{b["count"]}</text>'
            f'<text x="{x + slot // 2}" y="{base + 16}" text-anchor="middle">{band}</text></g>'
        )
    width = left + slot * len(bins) + 10
    return (
        f'<svg class="chart" viewBox="0 0 {width} {base + 44}" width="{width}" '
        f'height="{base + 44}">\n<title>Students per band of the percentage score</title>\n'
        + "\n".join(bars)
        + f'\n<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#555"/>'
        f'\n<text x="{(left + width) // 2}" y="{base + 38}" text-anchor="middle">'
        "share of the maximum score</text>\n</svg>"
    )
