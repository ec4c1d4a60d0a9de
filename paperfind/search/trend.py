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

from paperfind.index.distinct import distinct, distinct_sorted
from paperfind.index.facet_counts import CellCodes, cell_codes, sized_cells, year_codes


# a row set read by its joint codes from this size: the joint grid's 153,608 cells cost ~0.1 ms
# to allocate and sum whatever the rows, the two small grids' passes ~0.2 ms at 10k rows and
# 1.3 at 30k at 1M papers (bench/RESULTS.md, issue 33, big37)
JOINT_MIN_ROWS = 1 << 14


@dataclass(frozen=True)
class WorkCounts:
    """Distinct works per year and per venue-year over a set of rows."""

    per_year: dict[int, int]
    per_venue_year: dict[tuple[str, int], int]
    per_venue: dict[str, int]


@dataclass(frozen=True)
class WorkTally:
    """`WorkCounter.tally` of a set of rows: the rows per venue-year cell of one-version works
    (the last entry: rows of works with several versions), those rows, and the rows' count."""

    cells: np.ndarray
    multi: np.ndarray
    rows: int


class WorkCounter:
    """Counts works among rows of one index version.

    Most works have one version: their rows are counted by a bincount. Only the rows of works
    with several versions (a few percent) need the distinct (work, year) and (work, venue)
    pairs, which cost a sort; which rows those are is found once, here.

    Each row's venue-year cell is also found once: years are numbered from the corpus's first
    (0: none), so one bincount of the cells over the matches, a few thousand cells, gives the
    years and the venues as its column and row sums. Three gathers and bincounts a query, one
    of them over (last year + 1) x venues cells, cost ~1 ms for a broad query at 156k papers.

    `beside`, another per-row cell code (a doc table's status x area cells), is counted with
    the works' cells in one gather and one bincount (`tally_beside`): each row's pair of cells
    is one joint code, made here (211 x 728 = 153,608 joint cells at a million papers), whose
    grid's row sums are the works' cells and column sums the other grid. `sizes`, a per-row
    size (each row's institutions), is packed beside the code and summed in the same read:
    the institution facet's gather needs that many places. One int64 a row, 8 MB at 1M papers.
    A search counts these over every match: at 1M papers, the three read apart (two gathers,
    two bincounts, the lengths' gather) took 2.0 ms of a broad typo'd title's match set at
    p95, read together 0.7 (bench/RESULTS.md, issue 33, big37).
    """

    def __init__(self, works: np.ndarray, years: np.ndarray, venues: np.ndarray,
                 venue_labels: list[str], beside: CellCodes | None = None,
                 sizes: np.ndarray | None = None, joint_min_rows: int = JOINT_MIN_ROWS) -> None:
        self.works = np.asarray(works, dtype=np.int64)
        years = np.asarray(years, dtype=np.int64)
        self.venues = np.asarray(venues, dtype=np.int64)
        self.labels = venue_labels
        self.year_codes, self.first_year = year_codes(years)  # 0: no year
        self.span_y = int(self.year_codes.max(initial=0)) + 1
        self.span_v = max(int(self.venues.max()) + 1 if len(self.venues) else 0, len(venue_labels), 1)
        self.cells = self.venues * self.span_y + self.year_codes
        versions = np.bincount(self.works) if len(self.works) else np.zeros(0, dtype=np.int64)
        self.shared = versions[self.works] > 1  # this row's work has other versions
        # each row's cell, or one past the last cell for a row of a shared work: one gather and
        # one bincount count the one-version works and say whether any shared row is among the
        # matches (at 1M papers 0.5% of rows are; splitting every match set cost two more passes)
        self.solo_cells = np.where(self.shared, self.span_v * self.span_y, self.cells)
        self.beside = beside
        self.sizes = None if sizes is None else np.asarray(sizes)
        self.joint_min_rows = joint_min_rows
        joint = None if beside is None else cell_codes(
            self.solo_cells, beside.cells, min_a=self.span_v * self.span_y + 1,
            min_b=beside.span_a * beside.span_b)  # None: too many cells
        self.joint = None if joint is None else sized_cells(
            joint, self.sizes if self.sizes is not None else np.zeros(len(self.works), dtype=np.int64))

    def count(self, rows: np.ndarray) -> WorkCounts:
        """Each work once per year, once per venue and once per venue-year among `rows`
        (distinct rows; rows without a year count in no year)."""
        return self.counted(rows)[0]

    def counted(self, rows: np.ndarray) -> tuple[WorkCounts, int]:
        """`count(rows)`, and how many distinct works the rows are (the results' total)."""
        return self.finish(self.tally(rows))

    def tally(self, rows: np.ndarray) -> WorkTally:
        """The part of `counted`'s pass that adds up over disjoint sets of rows (`finish` takes
        several): a search tallies its lexical matches while its query vector is made, and the
        vector's other papers after."""
        rows = np.asarray(rows, dtype=np.int64)
        found = np.bincount(self.solo_cells[rows], minlength=self.span_v * self.span_y + 1)
        return self._tallied(rows, found)

    def tally_beside(self, rows: np.ndarray) -> tuple[WorkTally, np.ndarray, int | None]:
        """(`tally(rows)`, `beside.grid(rows)`, the rows' `sizes` summed, None without sizes):
        from one read of the rows' packed codes when the counter has them (class doc) and the
        rows are at least `joint_min_rows`, else counted apart."""
        if self.beside is None:
            raise ValueError("a counter made without `beside` cells")
        rows = np.asarray(rows, dtype=np.int64)
        if self.joint is None or len(rows) < self.joint_min_rows:
            size = None if self.sizes is None else int(self.sizes[rows].sum(dtype=np.int64))
            return self.tally(rows), self.beside.grid(rows), size
        grid, size = self.joint.grid(rows)  # works' cells (+ shared rows) x the other grid's cells
        beside = grid.sum(axis=0).reshape(self.beside.span_a, self.beside.span_b)
        return self._tallied(rows, grid.sum(axis=1)), beside, size if self.sizes is not None else None

    def _tallied(self, rows: np.ndarray, found: np.ndarray) -> WorkTally:
        multi = rows[self.shared[rows]] if found[-1] else rows[:0]
        return WorkTally(found, multi, len(rows))

    def finish(self, *tallies: WorkTally) -> tuple[WorkCounts, int]:
        """`counted` of the union of the disjoint row sets of `tallies`."""
        span_y, span_v = self.span_y, self.span_v
        cells = span_v * span_y
        found = tallies[0].cells if len(tallies) == 1 else np.sum([t.cells for t in tallies], axis=0)
        solo_cells, shared = found[:cells], int(found[cells])
        grid = solo_cells.reshape(span_v, span_y)
        per_year, per_venue = grid.sum(axis=0), grid.sum(axis=1)
        per_cell, total = solo_cells, sum(t.rows for t in tallies) - shared  # a work of one version is one row
        if shared:  # a work in two venues one year is one work that year: not the sums
            multi = np.concatenate([t.multi for t in tallies])
            w = self.works[multi]
            per_year += np.bincount(distinct(w * span_y + self.year_codes[multi]) % span_y, minlength=span_y)
            # (work, venue-year) pairs, sorted once: a cell is venue * span_y + year, so the
            # (work, venue) pairs and the works are their keys' high parts, non-decreasing
            # along them, and distinct by their neighbours (two sorts of the shared rows fewer)
            pairs = distinct(w * cells + self.cells[multi])
            per_cell = per_cell + np.bincount(pairs % cells, minlength=cells)
            per_venue += np.bincount(distinct_sorted(pairs // span_y) % span_v, minlength=span_v)
            total += len(distinct_sorted(pairs // cells))
        labels, first = self.labels, self.first_year - 1
        counts = WorkCounts(
            per_year={int(i) + first: int(per_year[i]) for i in np.flatnonzero(per_year[1:]) + 1},
            per_venue_year={(labels[c // span_y], c % span_y + first): int(per_cell[c])
                            for c in np.flatnonzero(per_cell).tolist()
                            if c % span_y and labels[c // span_y]},
            per_venue={labels[i]: int(per_venue[i]) for i in np.flatnonzero(per_venue).tolist()
                       if labels[i]},
        )
        return counts, total


def work_facets(matching: WorkCounts, top: int = 20) -> dict[str, list[list]]:
    """The year facet (every year, newest first) and the venue facet (the `top` venues with
    the most works, ties by slug), counted in works, in the searcher's facet shape."""
    venues = sorted(matching.per_venue.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {"year": [[y, n] for y, n in sorted(matching.per_year.items(), reverse=True)],
            "venue": [[v, n] for v, n in venues]}


def _points(years: list[int], keys: list, matching: dict, corpus: dict) -> list[dict]:
    """A trend line's points: per year, the matching works and the corpus's at its key (the
    year, or a (venue, year) pair). Keys made by the caller once and read by each dict's own
    `get` (a key function called twice a point was ~40% of the trend's ~0.12 ms: issue 33, lat33)."""
    in_matching, in_corpus = matching.get, corpus.get
    return [{"year": year, "works": (works := in_matching(key, 0)), "of": (of := in_corpus(key, 0)),
             "share": round(works / of, 6) if of else None} for year, key in zip(years, keys)]


def trend(matching: WorkCounts, corpus: WorkCounts, year_from: int | None = None,
          year_to: int | None = None, venues: int = 6) -> dict:
    """The JSON of a query's trend: every corpus year in the query's year range, and the
    `venues` venues with the most matching works, each over its own years in that range."""
    lo = year_from if year_from is not None else min(corpus.per_year, default=0)
    hi = year_to if year_to is not None else max(corpus.per_year, default=0)
    years = sorted(y for y in corpus.per_year if lo <= y <= hi)
    top = [v for v, _ in work_facets(matching)["venue"][:venues]]
    per_venue_year = corpus.per_venue_year
    venue_lines = []
    for v in top:
        kept = [(y, key) for y in years if (key := (v, y)) in per_venue_year]
        venue_lines.append({"venue": v, "years": _points([y for y, _ in kept], [key for _, key in kept],
                                                         matching.per_venue_year, per_venue_year)})
    return {
        "unit": "works",
        "years": _points(years, years, matching.per_year, corpus.per_year),
        "venues": venue_lines,
    }
