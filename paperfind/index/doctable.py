"""Per-paper arrays beside the BM25 matrices: filter and facet values, term sequences, stored fields.

Filters are array operations over all rows; facets are counted over the matches alone, from
per-row cells and the matches' institutions (paperfind.index.facet_counts). Term sequences (title, abstract, keywords as
term ids in order) let the re-ranker test phrases and proximity without re-tokenising text.
The stored fields make a result page renderable from the index alone, consistent with the
version of the data the ranking used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paperfind.index.best import best_positions
from paperfind.index.facet_counts import CellCodes, EntryGatherer, cell_codes, year_codes
from paperfind.index.strings import JsonRecords, StringTable, load_array, load_csr

FACETS = ("venue", "year", "institution", "status", "area")


@dataclass
class Sequences:
    """Ragged term-id sequences, one per row."""

    indptr: np.ndarray
    indices: np.ndarray
    gatherer: EntryGatherer = field(init=False, repr=False)  # many rows' sequences at once

    def __post_init__(self) -> None:
        self.gatherer = EntryGatherer(self.indptr, self.indices)

    def row(self, i: int) -> np.ndarray:
        return self.indices[int(self.indptr[i]):int(self.indptr[i + 1])]

    def rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(where each row's ids begin, with the end last; the rows' ids one row after the
        other): the second stage reads its 100-200 candidates' titles, abstracts and keywords
        so, copied row by row by the compiled gather once a server loaded it (issue 33: numpy
        made a position per id by `np.repeat` and an `arange`, then gathered)."""
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.indptr[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(self.indptr[rows + 1] - starts, out=indptr[1:])
        if not indptr[-1]:
            return indptr, self.indices[:0]
        return indptr, self.gatherer.gather(rows)


class DocTable:
    """Row-aligned metadata of the indexed papers (row = position of the key in sorted order)."""

    def __init__(self, root: Path, params: dict) -> None:
        self.keys = StringTable.load(root, "keys")
        self.n = len(self.keys)
        self.labels: dict[str, list[str]] = params["labels"]  # venue/status/area/institution values
        self.venue_names: list[str] = params["venue_names"]
        self.institution_names: list[str] = params.get("institution_names") or [
            ""] * len(self.labels["institution"])
        self.venue = load_array(root / "meta.venue.npy")
        self.year = load_array(root / "meta.year.npy")
        self.status = load_array(root / "meta.status.npy")
        self.area = load_array(root / "meta.area.npy")
        self.citations = load_array(root / "meta.citations.npy")
        self.rating = load_array(root / "meta.rating.npy")  # mean review score, NaN: none
        self.work = load_array(root / "meta.work.npy")
        self._work_rows: tuple[np.ndarray, np.ndarray] | None = None
        self._facet_cells: FacetCells | None = None
        self.inst_indptr, self.inst = load_csr(root, "meta.inst")
        self.inst_row = load_array(root / "meta.inst_row.npy")
        self.institutions = EntryGatherer(self.inst_indptr, self.inst)  # each row's, for the facet
        self.author_indptr, self.author = load_csr(root, "meta.author")
        self.author_row = load_array(root / "meta.author_row.npy")
        self.title_seq = Sequences(*load_csr(root, "seq.title"))
        self.abstract_seq = Sequences(*load_csr(root, "seq.abstract"))
        self.keyword_seq = Sequences(*load_csr(root, "seq.keywords"))
        self.stored = JsonRecords.load(root, "stored")

    # -- lookups ---------------------------------------------------------------------------
    def row_of(self, key: str) -> int:
        return self.keys.find(key)

    def key(self, row: int) -> str:
        return self.keys[row]

    def stored_doc(self, row: int) -> dict:
        doc = self.stored.get(row)
        doc["key"] = self.keys[row]
        return doc

    def versions_of(self, row: int) -> np.ndarray:
        """The other rows of this row's work (its other versions), in row order."""
        order, starts = self.work_groups()
        group = int(self.work[row])
        rows = order[starts[group]:starts[group + 1]]
        return rows[rows != row]

    def works_of(self, rows: list[int]) -> list[list[int]]:
        """Each row followed by its work's other rows (`versions_of`), for a page's rows at
        once: most works have one version, whose row is the whole list, without the slice
        and comparison `versions_of` makes per row (issue 33)."""
        order, starts = self.work_groups()
        groups = self.work[rows]
        firsts, ends = starts[groups].tolist(), starts[groups + 1].tolist()
        out = []
        for row, first, end in zip(rows, firsts, ends):
            if end - first == 1:
                out.append([row])
            else:
                others = order[first:end]
                out.append([row, *others[others != row].tolist()])
        return out

    def work_groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows grouped by work, where each work's group starts), made on first use (150 ms
        at 1M papers: a server makes them at its start, `IndexBackend.load_for_serving`)."""
        if self._work_rows is None:
            order = np.argsort(self.work, kind="stable")
            starts = np.searchsorted(self.work[order], np.arange(int(self.work.max(initial=-1)) + 2))
            self._work_rows = (order, starts)
        return self._work_rows

    @property
    def work_groups_made(self) -> bool:
        return self._work_rows is not None

    def authors_of(self, row: int) -> np.ndarray:
        return self.author[int(self.author_indptr[row]):int(self.author_indptr[row + 1])]

    # -- masks -----------------------------------------------------------------------------
    def mask_codes(self, facet: str, codes: list[int]) -> np.ndarray:
        """Rows whose facet value is one of `codes` (institutions: any of them)."""
        if facet == "institution":
            mask = np.zeros(self.n, dtype=bool)
            if codes:
                hits = np.isin(self.inst, np.asarray(codes, dtype=self.inst.dtype))
                mask[self.inst_row[hits]] = True
            return mask
        column = {"venue": self.venue, "status": self.status, "area": self.area}[facet]
        return np.isin(column, np.asarray(codes, dtype=column.dtype))

    def mask_years(self, lo: int | None, hi: int | None) -> np.ndarray:
        mask = np.ones(self.n, dtype=bool)
        if lo is not None:
            mask &= self.year >= lo
        if hi is not None:
            mask &= self.year <= hi
        return mask

    def mask_rating(self, lo: float | None, hi: float | None) -> np.ndarray:
        """Rows whose mean review score is in [lo, hi]; a paper without scores is in no range."""
        mask = ~np.isnan(self.rating)
        if lo is not None:
            mask &= self.rating >= np.float32(lo)
        if hi is not None:
            mask &= self.rating <= np.float32(hi)
        return mask

    def mask_authors(self, author_ids: list[int]) -> np.ndarray:
        mask = np.zeros(self.n, dtype=bool)
        if author_ids:
            hits = np.isin(self.author, np.asarray(author_ids, dtype=self.author.dtype))
            mask[self.author_row[hits]] = True
        return mask

    # -- facets ----------------------------------------------------------------------------
    def facets(self, rows: np.ndarray, top: int = 20,
               only: tuple[str, ...] = FACETS) -> dict[str, list[list]]:
        """Counts per facet value over `rows` (distinct), most frequent first, ties by value;
        of the facets in `only` (a search counts its year and venue facets in works, not here)."""
        return self.facet_lists(self.facet_tally(rows, only), top)

    def facet_tally(self, rows: np.ndarray, only: tuple[str, ...] = FACETS,
                    status_area: np.ndarray | None = None,
                    institution_entries: int | None = None) -> dict[str, np.ndarray]:
        """The raw counts `facets` lists, per facet of `only`: rows per value code (the year's:
        per year code, `year_of` names them). Tallies of disjoint row sets add up
        (`add_tallies`), so a search counts its lexical matches while its vector is made and
        the vector's other papers after. `status_area`: the rows' status x area cell grid
        counted already, `institution_entries`: their institutions' number, read already (a
        search's, with its works' tally: paperfind.search.trend.WorkCounter)."""
        rows = np.asarray(rows, dtype=np.int64)
        cells = self.facet_cells()
        counts: dict[str, np.ndarray] = {}
        if status_area is not None:
            counts["status"], counts["area"] = status_area.sum(axis=1), status_area.sum(axis=0)
        if "venue" in only or "year" in only:
            if cells.venue_year is not None:  # venue x year cells: both facets in one pass
                grid = cells.venue_year.grid(rows)
                counts["venue"], counts["year"] = grid.sum(axis=1), grid.sum(axis=0)
            else:
                counts["venue"] = np.bincount(self.venue[rows], minlength=len(self.labels["venue"]))
                counts["year"] = np.bincount(self.year[rows]) if len(rows) else np.zeros(1, np.int64)
        if ("status" in only or "area" in only) and status_area is None:
            if cells.status_area is not None:
                grid = cells.status_area.grid(rows)
                counts["status"], counts["area"] = grid.sum(axis=1), grid.sum(axis=0)
            else:
                for facet in ("status", "area"):
                    column = {"status": self.status, "area": self.area}[facet]
                    counts[facet] = np.bincount(column[rows], minlength=len(self.labels[facet]))
        if "institution" in only:
            counts["institution"] = np.bincount(self.institutions.gather(rows, institution_entries),
                                                minlength=len(self.labels["institution"]))
        return {facet: counts[facet] for facet in FACETS if facet in only}

    def facet_lists(self, tally: dict[str, np.ndarray], top: int = 20) -> dict[str, list[list]]:
        """`facets`' lists of a `facet_tally`: every year newest first, the `top` values of the others."""
        # year code 0: rows without a year; the cells number years from the corpus's first
        cells = self.facet_cells()
        first = cells.first_year - 1 if cells.venue_year is not None else 0
        out: dict[str, list[list]] = {}
        for facet, counts in tally.items():
            if facet == "year":
                dated = np.flatnonzero(counts[1:])[::-1] + 1
                out[facet] = [[int(c) + first, int(counts[c])] for c in dated]
            else:
                out[facet] = _top_pairs(counts, self.labels[facet], top)
        return out

    def load_kernel(self) -> bool:
        """Count facets with the compiled gather and the cells made now (a server's warm-up,
        `LiveIndex.load_kernel`), not in a first request."""
        self.facet_cells()
        for seq in (self.title_seq, self.abstract_seq, self.keyword_seq):
            seq.gatherer.load()
        return self.institutions.load()

    def facet_cells(self) -> FacetCells:
        """The per-row cells the facets are counted from, made on first use (5 ms and 4 MB at the
        bundled corpus, 43 ms and 16 MB at 1M papers; a server makes them at its start)."""
        if self._facet_cells is None:
            years, first = year_codes(self.year)
            self._facet_cells = FacetCells(
                cell_codes(self.venue, years, min_a=len(self.labels["venue"])),
                cell_codes(self.status, self.area, min_a=len(self.labels["status"]),
                           min_b=len(self.labels["area"])),
                first)
        return self._facet_cells


@dataclass(frozen=True)
class FacetCells:
    """A doc table's facet cells (paperfind.index.facet_counts); None: a grid too large."""

    venue_year: CellCodes | None
    status_area: CellCodes | None
    first_year: int


def add_tallies(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The `facet_tally` of two disjoint row sets' union, from theirs."""
    out = {}
    for facet, x in a.items():
        y = b[facet]
        if len(x) < len(y):
            x, y = y, x
        x = x.copy()
        x[:len(y)] += y
        out[facet] = x
    return out


def _top_pairs(counts: np.ndarray, labels: list[str], top: int) -> list[list]:
    """[label, count] of the most frequent labels, ties by label."""
    present = np.flatnonzero(counts)
    if len(present) > 4 * top:  # only the most frequent can make the list (as a set: sorted below)
        present = present[best_positions(counts[present], 4 * top)]
    # the counts read in one conversion, not one numpy scalar a value (issue 33, lat33)
    pairs = [[labels[i], n] for i, n in zip(present.tolist(), counts[present].tolist()) if labels[i]]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs[:top]


def save_params(root: Path, params: dict) -> None:
    (root / "params.json").write_text(json.dumps(params, indent=1, sort_keys=True), "utf-8")


def load_params(root: Path) -> dict:
    return json.loads((root / "params.json").read_text("utf-8"))
