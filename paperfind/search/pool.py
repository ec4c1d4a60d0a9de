"""A query's ranked candidates and their display order: sorting, and one result per work.

The engine hands out candidates with the few stored fields ordering needs (work, year,
citations); the pipeline scores them, and this module turns scores into a page. Every order
ends with the handle, and handles order as paper keys do, so pages are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperfind.search.backend import Candidates
from paperfind.search.rank import top_order


@dataclass
class Pool:
    """The ranked candidates of one query, position by position (not yet in display order):
    handle, relevance and the stored fields ordering and folding read."""

    handles: np.ndarray
    relevance: np.ndarray
    works: np.ndarray
    years: np.ndarray
    citations: np.ndarray
    standing: np.ndarray | None = None  # read only for the standing orders (SearchBackend.standing)
    rating: np.ndarray | None = None  # read only for sort=rating (SearchBackend.ratings), NaN: none

    @classmethod
    def of(cls, found: Candidates, relevance: np.ndarray) -> "Pool":
        return cls(found.handles, relevance, found.works, found.years, found.citations)

    @classmethod
    def joined(cls, handles: np.ndarray, relevance: np.ndarray, sources: list[Candidates]) -> "Pool":
        """A pool of `handles` (each in one of `sources`, e.g. the lexical and the semantic
        candidates after fusion) with their stored fields."""
        every = np.concatenate([s.handles for s in sources])
        order = np.argsort(every, kind="stable")
        where = order[np.searchsorted(every[order], handles)]

        def pick(column: str) -> np.ndarray:
            return np.concatenate([getattr(s, column) for s in sources])[where]
        return cls(np.asarray(handles, dtype=np.int64), relevance, pick("works"), pick("years"),
                   pick("citations"))

    def take(self, positions: np.ndarray) -> "Pool":
        return Pool(self.handles[positions], self.relevance[positions], self.works[positions],
                    self.years[positions], self.citations[positions],
                    None if self.standing is None else self.standing[positions],
                    None if self.rating is None else self.rating[positions])

    def page(self, sort: str, offset: int, limit: int) -> np.ndarray:
        """Positions of the page, one per work: a paper with several versions (a workshop and
        a main-track record, a rejected submission and its later acceptance) is listed once,
        by its best-placed version, and the others ride along on its result."""
        needed = offset + limit
        k = needed
        while True:
            order = self.sort(sort, k)
            complete = len(order) >= len(self.handles)  # the date/citations orders sort every row at once
            _, first = np.unique(self.works[order], return_index=True)
            order = order[np.sort(first)]
            if len(order) >= needed or complete:
                return order[offset:needed]
            k = min(len(self.handles), k * 2)

    def with_citations(self) -> int | None:
        """How many works of the pool have a citation count (any version's); the engine says
        it only of a pool that holds every match."""
        if not len(self.works):
            return 0
        return int(len(np.unique(self.works[self.citations >= 0])))

    def sort(self, sort: str, k: int) -> np.ndarray:
        """Positions of the first `k` in display order; every order ends with the handle.

        "citations" and "influence" are one order, the papers' standing (paperfind.index.
        paper_names): a paper's percentile among its cohort by citations per year where a
        source gives a count, and by later papers naming it otherwise (the better of the two
        where both are known), the raw count breaking ties. Counts are sparse (none for ICLR
        2019 on, NeurIPS 2019 on, ICML 2020 on), so ordering by the count alone put LoraHub
        (207 citations) above LoRA (no count, named by thousands) and sent every uncounted
        paper to the end; the standing puts both kinds of paper on one scale."""
        rows, relevance, years, cites = self.handles, self.relevance, self.years, self.citations
        if sort in ("date", "newest"):
            return np.lexsort((rows, -relevance, -years))
        if sort in ("citations", "influence"):
            standing = self.standing if self.standing is not None else np.zeros(len(rows))
            return np.lexsort((rows, -relevance, -cites, -standing))
        if sort == "rating":  # highest mean review score first, papers without scores last
            rating = self.rating if self.rating is not None else np.full(len(rows), np.nan)
            return np.lexsort((rows, -relevance, -np.nan_to_num(rating, nan=-np.inf)))
        if not relevance.any():  # filter-only query: most cited, then newest
            return np.lexsort((rows, -years, -cites))
        return top_order(rows, relevance, k)
