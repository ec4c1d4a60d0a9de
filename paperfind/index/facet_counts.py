"""Facet counts over a query's matches: few passes over them, whatever their number.

Why: at a million papers a title, question or Chinese query whose words are common matches
60k-580k papers, and counting their five facets took 4-12 ms of a 17-37 ms search (bench/
RESULTS.md, issue 33, fast33e). Read one facet at a time, each match was looked up four times
(venue, year, status, area: four gathers, four int32 -> int64 copies inside `np.bincount`,
four counts) and its institutions found by `np.repeat`, which copies one 8-byte item at a
time. Here the four codes are two per-row int64 cells, made once per index (venue x year,
status x area: 14 x 15 and 14 x 52 cells at the bundled corpus), so the matches are read twice
and counted twice; a cell grid's row and column sums are the two facets. A row's institutions
are found by a running sum (`institution_entries`), not by repeating each row's start.

The counts are the same numbers as counting each facet alone (tests/index/test_facet_counts.py
compares every facet on real rows); only the passes differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# a grid larger than this (venues x years, statuses x areas) is counted one facet at a time:
# a bincount allocates and sums every cell, worth it only while the cells are few
MAX_CELLS = 1 << 20


@dataclass(frozen=True)
class CellCodes:
    """Each row's cell in an a x b grid (code a * span_b + code b), and the grid's spans."""

    cells: np.ndarray  # int64, one per row: np.bincount reads it without a copy
    span_a: int
    span_b: int

    def grid(self, rows: np.ndarray) -> np.ndarray:
        """Rows of each (a, b) pair among `rows`, as a span_a x span_b array."""
        counts = np.bincount(self.cells[rows], minlength=self.span_a * self.span_b)
        return counts.reshape(self.span_a, self.span_b)


@dataclass(frozen=True)
class SizedCells:
    """Each row's cell in an a x b grid (low 32 bits) and a size of the row (high 32 bits: its
    institutions, the length of that facet's gather) in one int64: a match set's grid and the
    size of its institutions' gather from one read of the matches, where the cells' gather
    and the lengths' gather (through an int32 -> intp copy of the rows) were two (issue 33)."""

    records: np.ndarray  # int64, one per row
    span_a: int
    span_b: int

    def grid(self, rows: np.ndarray) -> tuple[np.ndarray, int]:
        """(rows of each (a, b) pair among `rows` as a span_a x span_b array, their sizes' sum)."""
        records = self.records[rows]
        size = int((records >> 32).sum())
        cells = np.bitwise_and(records, 0xFFFFFFFF, out=records)  # int64: bincount reads it as is
        counts = np.bincount(cells, minlength=self.span_a * self.span_b)
        return counts.reshape(self.span_a, self.span_b), size


def sized_cells(cells: CellCodes, sizes: np.ndarray) -> SizedCells:
    """`cells` with each row's size (non-negative, below 2**31) packed beside its cell."""
    if len(sizes) and int(sizes.max()) >= 2 ** 31 or cells.span_a * cells.span_b >= 2 ** 32:
        raise ValueError("a size or a cell past 32 bits")
    records = cells.cells.astype(np.int64, copy=False) | (np.asarray(sizes, dtype=np.int64) << 32)
    return SizedCells(records, cells.span_a, cells.span_b)


def cell_codes(a: np.ndarray, b: np.ndarray, min_a: int = 0, min_b: int = 0) -> CellCodes | None:
    """The cells of two non-negative per-row codes; None when the grid would be too large."""
    span_a = max(int(a.max(initial=-1)) + 1, min_a, 1)
    span_b = max(int(b.max(initial=-1)) + 1, min_b, 1)
    if span_a * span_b > MAX_CELLS:
        return None
    cells = a.astype(np.int64) * span_b + b
    return CellCodes(cells, span_a, span_b)


def year_codes(year: np.ndarray) -> tuple[np.ndarray, int]:
    """(each row's year as 1 + its distance from the first year, 0 for no year; the first
    year): a year grid's column 0 holds the rows a year facet leaves out."""
    dated = year[year > 0]
    first = int(dated.min()) if len(dated) else 1
    return np.where(year > 0, year.astype(np.int64) - first + 1, 0), first


def institution_entries(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions in a CSR column of the entries of `rows` (distinct rows, any order), row by
    row: each row's entries are consecutive, so the positions are a running sum of ones that
    jumps from one row's last entry to the next row's first (one pass over the entries)."""
    rows = np.asarray(rows, dtype=np.int64)
    starts = indptr[rows].astype(np.int64, copy=False)
    lengths = indptr[rows + 1] - starts
    present = lengths > 0
    if not present.all():
        starts, lengths = starts[present], lengths[present]
    if not len(lengths):
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    steps = np.ones(int(ends[-1]), dtype=np.int64)
    steps[0] = starts[0]
    # at a row's first entry, the step from the previous row's last entry (start - 1 + length)
    steps[ends[:-1]] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    return np.cumsum(steps, out=steps)


class EntryGatherer:
    """The values of a CSR column's entries for some rows (a paper's institutions): numpy's
    running sum (`institution_entries`) until `load()`, then scipy's compiled `csr_row_index`,
    which copies each row's entries in one pass (no positions array, no second gather).

    Like paperfind.index.kernels, the compiled path is loaded by a server's warm-up, not on
    first use: importing scipy.sparse takes 0.3-1 s, which a one-shot CLI search should not
    pay. `_sparsetools` is scipy's private module (pinned in pyproject.toml); the tests compare
    both paths on real rows."""

    def __init__(self, indptr: np.ndarray, values: np.ndarray) -> None:
        self.indptr = indptr
        self.values = values
        self._row_index = None
        self._indptr32 = np.zeros(1, dtype=np.int32)  # the kernel takes one index type
        self._lengths = np.zeros(0, dtype=np.int32)

    def load(self) -> bool:
        """Gather with the compiled kernel from now on; False when it cannot be had (values
        not int32, too many entries for int32 positions, no scipy)."""
        if self._row_index is None:
            if self.values.dtype != np.int32 or len(self.values) >= 2 ** 31:
                return False
            try:
                from scipy.sparse._sparsetools import csr_row_index
            except ImportError:  # pragma: no cover - scipy is a pinned dependency
                return False
            self._indptr32 = np.ascontiguousarray(self.indptr, dtype=np.int32)
            self._lengths = np.diff(self._indptr32)
            self._row_index = csr_row_index
        return True

    @property
    def compiled(self) -> bool:
        return self._row_index is not None

    def gather(self, rows: np.ndarray, total: int | None = None) -> np.ndarray:
        """The values of the entries of `rows` (distinct), row by row; `total`: how many those
        are, when the caller read it already (a search's `SizedCells`). It must be right: the
        compiled kernel writes that many values."""
        if self._row_index is None:
            return self.values[institution_entries(self.indptr, rows)]
        if total is None:  # the lengths read at the rows as given: int64 rows index without a copy
            total = int(self._lengths[rows].sum(dtype=np.int64))
        rows = np.asarray(rows).astype(np.int32, copy=False)
        out, spare = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.int32)
        self._row_index(len(rows), rows, self._indptr32, self.values, self.values, spare, out)
        return out
