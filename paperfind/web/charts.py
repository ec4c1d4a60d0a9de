"""Papers-per-year bar charts, laid out here and drawn as inline SVG by the templates.

Our own few lines instead of a charting library: the chart must render with no network and
no script, and the Content-Security-Policy forbids inline styles, so geometry goes into SVG
attributes computed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Bar:
    year: int
    count: int
    x: float
    y: float
    width: float
    height: float
    label_x: float
    show_year: bool


@dataclass
class BarChart:
    width: int
    height: int
    baseline: float
    max_count: int
    bars: list[Bar] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.bars


def year_chart(per_year: list[tuple[int, int]] | list[list[int]], width: int = 560,
               height: int = 180) -> BarChart:
    """One bar per year from the first to the last (years without papers drawn as gaps)."""
    counts = {int(y): int(n) for y, n in per_year if y}
    top_pad, bottom_pad, side_pad = 18.0, 22.0, 6.0
    if not counts:
        return BarChart(width, height, height - bottom_pad, 0)
    years = list(range(min(counts), max(counts) + 1))
    max_count = max(counts.values())
    slot = (width - 2 * side_pad) / len(years)
    bar_width = max(2.0, min(44.0, slot * 0.7))
    plot_height = height - top_pad - bottom_pad
    baseline = height - bottom_pad
    label_every = max(1, round(len(years) / 12))
    bars = []
    for i, year in enumerate(years):
        count = counts.get(year, 0)
        bar_height = plot_height * count / max_count if max_count else 0.0
        centre = side_pad + slot * i + slot / 2
        bars.append(Bar(year=year, count=count, x=round(centre - bar_width / 2, 1),
                        y=round(baseline - bar_height, 1), width=round(bar_width, 1),
                        height=round(bar_height, 1), label_x=round(centre, 1),
                        show_year=(i % label_every == 0 or i == len(years) - 1)))
    return BarChart(width, height, baseline, max_count, bars)
