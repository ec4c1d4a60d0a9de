"""Per-year bar charts, laid out here and drawn as inline SVG by the templates.

One layout for both kinds: counts (a venue's or an author's papers per year) and shares (a
query's matching works as a share of each year's works, given as (year, count, of) rows), so
the profile pages, the area pages and the search trend draw the same bars.

Our own few lines instead of a charting library: the chart must render with no network and
no script, and the Content-Security-Policy forbids inline styles, so geometry goes into SVG
attributes computed here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field


YEAR_LABEL_WIDTH = 30.0  # room a "2024" under a bar needs, in chart units
DIGIT_WIDTH = 6.5  # a figure of a 10-unit font, with room to spare (a "," or "." is narrower)
LABEL_GAP = 4.0  # the least space between two figures written side by side


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
    of: int | None = None  # for a share: the year's works the count is a share of
    label: str = ""  # the figure: written above the bar when `show_label`, always in its tooltip
    show_label: bool = False

    @property
    def share(self) -> float | None:
        return self.count / self.of if self.of else None


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


def share_rows(points: list[dict]) -> list[tuple[int, int, int]]:
    """The (year, count, of) rows of a trend's points (paperfind.search.trend)."""
    return [(p["year"], p["works"], p["of"]) for p in points if p["of"]]


@dataclass
class TrendLayout:
    """A trend's rows for `year_chart`: the whole line, then one row set per venue drawn on
    shared axes (the whole line's years; the venues' largest share as full height)."""

    years: list[tuple[int, int, int]]
    venues: list[tuple[dict, list[tuple[int, int, int]]]]
    span: tuple[int, int] | None
    tallest: float | None


def trend_layout(trend: dict) -> TrendLayout:
    years = share_rows(trend["years"])
    venues = [(v, share_rows(v["years"])) for v in trend["venues"]]
    venues = [(v, rows) for v, rows in venues if rows]
    shares = [n / of for _, rows in venues for _, n, of in rows]
    return TrendLayout(years, venues, (years[0][0], years[-1][0]) if years else None,
                       max(shares) if shares and max(shares) > 0 else None)


def heat_level(count: int, largest: int, levels: int = 4) -> int:
    """1..levels on a log scale of `count` against the largest: how dark a grid cell is drawn
    (the class it gets; the Content-Security-Policy forbids inline styles)."""
    if count <= 0 or largest <= 1:
        return 1
    return 1 + min(levels - 1, int(levels * math.log(count) / math.log(largest + 1)))


def share_label(count: int, of: int) -> str:
    """A share as the chart writes it: two significant figures, at most two decimals."""
    percent = 100 * count / of
    return f"{percent:.0f}%" if percent >= 10 else f"{percent:.1f}%" if percent >= 1 \
        else f"{percent:.2f}%"


def year_chart(per_year: list[tuple[int, int]] | list[tuple[int, int, int]] | list[list[int]],
               width: int = 560, height: int = 180, span: tuple[int, int] | None = None,
               tallest: float | None = None,
               number: Callable[[int], str] = "{:,}".format) -> BarChart:
    """One bar per year from the first to the last (years without papers drawn as gaps).

    Rows of (year, count) draw counts; rows of (year, count, of) draw count/of, so a year
    with twice the works and twice the matches draws the same bar. Small multiples share
    their axes: `span` (first, last year) and `tallest` (the value of a full-height bar).
    `number` writes a count in the page's language (thousands separators).

    Figures never overlap: when the widest does not fit a bar's slot, one bar in every few is
    labelled (as many slots as the widest figure needs, counted back from the last year, so
    the latest is always written), and the years are written under the same bars; every
    figure is in its bar's tooltip.
    """
    counts = {int(r[0]): int(r[1]) for r in per_year if r[0]}
    totals = {int(r[0]): int(r[2]) for r in per_year if r[0] and len(r) > 2}
    top_pad, bottom_pad, side_pad = 18.0, 22.0, 6.0
    if not counts:
        return BarChart(width, height, height - bottom_pad, 0)
    first, last = span if span else (min(counts), max(counts))
    years = list(range(min(first, min(counts)), max(last, max(counts)) + 1))
    max_count = max(counts.values())
    heights = ({y: counts[y] / totals[y] for y in counts if totals.get(y)} if totals
               else {y: float(n) for y, n in counts.items()})
    top = tallest or max(heights.values(), default=0.0)
    slot = (width - 2 * side_pad) / len(years)
    bar_width = max(2.0, min(44.0, slot * 0.7))
    plot_height = height - top_pad - bottom_pad
    baseline = height - bottom_pad
    labels = {}
    for year in years:
        count, of = counts.get(year, 0), totals.get(year)
        labels[year] = "" if not count else share_label(count, of) if of else "" if totals \
            else number(count)
    widest = max(len(label) for label in labels.values()) * DIGIT_WIDTH + LABEL_GAP
    label_every = max(1, math.ceil(YEAR_LABEL_WIDTH / slot), math.ceil(widest / slot))
    bars = []
    for i, year in enumerate(years):
        count = counts.get(year, 0)
        of = totals.get(year) if totals else None
        bar_height = min(plot_height, plot_height * heights.get(year, 0.0) / top) if top else 0.0
        centre = side_pad + slot * i + slot / 2
        shown = (len(years) - 1 - i) % label_every == 0  # the last always
        bars.append(Bar(year=year, count=count, x=round(centre - bar_width / 2, 1),
                        y=round(baseline - bar_height, 1), width=round(bar_width, 1),
                        height=round(bar_height, 1), label_x=round(centre, 1),
                        show_year=shown, of=of, label=labels[year],
                        show_label=shown and bool(labels[year])))
    return BarChart(width, height, baseline, max_count, bars)


@dataclass
class Segment:
    """One group's part of a stacked bar: its count in the bin, drawn on the ones below it."""

    group: int
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass
class StackedBin:
    low: float  # the bin is [low, low + step)
    total: int
    label_x: float
    show_label: bool
    segments: list[Segment] = field(default_factory=list)


@dataclass
class StackedChart:
    width: int
    height: int
    baseline: float
    step: float
    bins: list[StackedBin] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not any(b.total for b in self.bins)


def stacked_histogram(lows: list[float], counts: list[list[int]], step: float, width: int = 560,
                      height: int = 200) -> StackedChart:
    """Bins of a value (mean review scores from `lows[0]` in steps of `step`), each bar the
    groups' counts stacked (`counts[g][i]`: group g's papers in bin i), the tallest bar full
    height. The bins' lower edges are written under every bar that is a whole number, fewer
    when they would not fit."""
    top_pad, bottom_pad, side_pad = 10.0, 22.0, 6.0
    totals = [sum(group[i] for group in counts) for i in range(len(lows))]
    tallest = max(totals, default=0)
    if not tallest:
        return StackedChart(width, height, height - bottom_pad, step)
    slot = (width - 2 * side_pad) / len(lows)
    bar_width = max(2.0, min(40.0, slot * 0.8))
    plot_height = height - top_pad - bottom_pad
    baseline = height - bottom_pad
    every = max(1, math.ceil(YEAR_LABEL_WIDTH / 1.5 / (slot / step)))  # whole numbers apart
    bins = []
    for i, low in enumerate(lows):
        centre = side_pad + slot * i + slot / 2
        whole = float(low).is_integer()
        item = StackedBin(low=low, total=totals[i], label_x=round(centre, 1),
                          show_label=whole and int(low) % every == 0)
        y = baseline
        for g, group in enumerate(counts):
            if group[i]:
                h = plot_height * group[i] / tallest
                y -= h
                item.segments.append(Segment(g, group[i], round(centre - bar_width / 2, 1),
                                             round(y, 1), round(bar_width, 1), round(h, 1)))
        bins.append(item)
    return StackedChart(width, height, baseline, step, bins)
