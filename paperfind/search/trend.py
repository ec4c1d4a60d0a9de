"""A query's trend: how many matching works each year, as a share of all that year's works,
overall and per venue.

The unit is the work, as in the results total: a paper with two versions in one year (a
rejected submission and its acceptance elsewhere) counts once in that year, and at most once
per venue. The year and venue facets count the same way (`work_facets`), so a facet's count is
the total a click on it gives, and the chart's bars are the facet counts. The share divides by
the whole corpus's works of the year (or of the venue-year), so a venue that grows does not
draw a rising curve for every topic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WorkCounts:
    """Distinct works per year and per venue-year over a set of rows."""

    per_year: dict[int, int]
    per_venue_year: dict[tuple[str, int], int]
    per_venue: dict[str, int]


def count_works_by(works: np.ndarray, years: np.ndarray, venues: np.ndarray,
                   venue_labels: list[str], rows: np.ndarray) -> WorkCounts:
    """Count each work once per year, once per venue and once per venue-year among `rows`
    (`venues` holds codes into `venue_labels`; rows without a year count in no year)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return WorkCounts({}, {}, {})
    w = np.asarray(works)[rows].astype(np.int64)
    y = np.asarray(years)[rows].astype(np.int64)
    v = np.asarray(venues)[rows].astype(np.int64)
    span_y = int(y.max()) + 1
    span_v = max(int(v.max()) + 1, len(venue_labels))
    work_year = np.unique(w * span_y + y) % span_y
    work_venue = np.unique(w * span_v + v) % span_v
    work_venue_year = np.unique((w * span_v + v) * span_y + y) % (span_v * span_y)
    per_year = np.bincount(work_year, minlength=span_y)
    per_venue = np.bincount(work_venue, minlength=span_v)
    cells, cell_counts = np.unique(work_venue_year, return_counts=True)
    return WorkCounts(
        per_year={int(i): int(per_year[i]) for i in np.flatnonzero(per_year) if i > 0},
        per_venue_year={(venue_labels[int(c // span_y)], int(c % span_y)): int(n)
                        for c, n in zip(cells.tolist(), cell_counts.tolist())
                        if c % span_y > 0 and venue_labels[int(c // span_y)]},
        per_venue={venue_labels[int(i)]: int(per_venue[i]) for i in np.flatnonzero(per_venue)
                   if venue_labels[int(i)]},
    )


def work_facets(matching: WorkCounts, top: int = 20) -> dict[str, list[list]]:
    """The year facet (every year, newest first) and the venue facet (the `top` venues with
    the most works, ties by slug), counted in works, in the searcher's facet shape."""
    venues = sorted(matching.per_venue.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {"year": [[y, n] for y, n in sorted(matching.per_year.items(), reverse=True)],
            "venue": [[v, n] for v, n in venues]}


def _points(years: list[int], matching: dict, corpus: dict, key) -> list[dict]:
    out = []
    for year in years:
        of = corpus.get(key(year), 0)
        works = matching.get(key(year), 0)
        out.append({"year": year, "works": works, "of": of,
                    "share": round(works / of, 6) if of else None})
    return out


def trend(matching: WorkCounts, corpus: WorkCounts, year_from: int | None = None,
          year_to: int | None = None, venues: int = 6) -> dict:
    """The JSON of a query's trend: every corpus year in the query's year range, and the
    `venues` venues with the most matching works, each over its own years in that range."""
    lo = year_from if year_from is not None else min(corpus.per_year, default=0)
    hi = year_to if year_to is not None else max(corpus.per_year, default=0)
    years = sorted(y for y in corpus.per_year if lo <= y <= hi)
    top = [v for v, _ in work_facets(matching)["venue"][:venues]]
    return {
        "unit": "works",
        "years": _points(years, matching.per_year, corpus.per_year, lambda y: y),
        "venues": [{"venue": v, "years": _points(
            [y for y in years if (v, y) in corpus.per_venue_year],
            matching.per_venue_year, corpus.per_venue_year, lambda y, v=v: (v, y))}
            for v in top],
    }
