"""A query's ranked candidates and their display order: sorting, and one result per work.

The engine hands out candidates with the few stored fields ordering needs (work, year,
citations); the pipeline scores them, and this module turns scores into a page. Every order
ends with the handle, and handles order as paper keys do, so pages are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paperfind.index.distinct import distinct
from paperfind.search.backend import Candidates
from paperfind.search.rank import top_order

if TYPE_CHECKING:
    from paperfind.search.backend import CandidateRequest, SearchBackend


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
            order = order[_first_of_each(self.works[order])]
            if len(order) >= needed or complete:
                return order[offset:needed]
            k = min(len(self.handles), k * 2)

    def with_citations(self) -> int | None:
        """How many works of the pool have a citation count (any version's); the engine says
        it only of a pool that holds every match."""
        if not len(self.works):
            return 0
        return int(len(distinct(self.works[self.citations >= 0])))

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


def with_tail(pool: Pool, tail: Candidates) -> Pool:
    """`pool` and, below every one of its rows, the candidates of `tail` it lacks, in their
    score order: rows that fill a page without moving any row above them."""
    extra = tail.take(np.flatnonzero(~np.isin(tail.handles, pool.handles)))
    if not len(extra):
        return pool
    floor = max(float(pool.relevance.min()), 1e-6) if len(pool.handles) else 1.0
    relevance = floor * 0.5 * extra.scores.astype(np.float64) / max(float(extra.scores.max()), 1e-9)
    return Pool(np.concatenate([pool.handles, extra.handles]), np.concatenate([pool.relevance, relevance]),
                np.concatenate([pool.works, extra.works]), np.concatenate([pool.years, extra.years]),
                np.concatenate([pool.citations, extra.citations]))


def lexical_matches_among(backend: "SearchBackend", request: "CandidateRequest", found: Candidates,
                          near: Candidates) -> Candidates:
    """The papers of `near` (the vector route's) that `request` matches and that belong among
    the engine's lexical candidates `found` but are not there, scored as those are.

    An engine that returns the exact best k (the local index) leaves none: a match it did not
    return ranks below its k-th, so this finds nothing there. An engine whose first stage is
    approximate (Milvus ranks by its own BM25, then paperfind's BM25F decides among what it
    returned) may leave out a paper of the exact best k; when the vector route brings it, it
    takes its lexical place as it has in the local index, instead of entering the fusion as a
    vector hit alone. An engine that says so (`exact_candidates`) is not asked: scoring the
    vector's papers to find none was ~0.65 ms after the vector of every fused query at 156k
    papers (issue 33)."""
    if backend.exact_candidates:
        return near.take(np.zeros(0, dtype=np.int64))
    missing = np.flatnonzero(~np.isin(near.handles, found.handles))
    if not len(missing):
        return near.take(missing)
    handles = near.handles[missing]
    scores, matched = backend.scores(request.groups, handles)
    keep = (matched >= max(request.min_match, 1)) & (scores > 0)
    if request.k is not None and found.total > len(found) and len(found):
        # cut to k: only a paper above the k-th of `found` (score desc, handle asc) is of the best k
        kth = np.lexsort((found.handles, -found.scores))[min(request.k, len(found)) - 1]
        best, tie = found.scores[kth], found.handles[kth]
        keep &= (scores > best) | ((scores == best) & (handles < tie))
    chosen = near.take(missing[keep])
    return Candidates(chosen.handles, scores[keep].astype(np.float32), matched[keep].astype(np.int16),
                      chosen.works, chosen.years, chosen.citations, len(chosen))


def joined_candidates(found: Candidates, more: Candidates) -> Candidates:
    """`found` and `more` (papers it lacks) as one set of candidates, in handle order."""
    both = [found, more]
    handles = np.concatenate([c.handles for c in both])
    order = np.argsort(handles, kind="stable")

    def column(name: str) -> np.ndarray:
        return np.concatenate([getattr(c, name) for c in both])[order]
    return Candidates(handles[order], column("scores"), column("matched"), column("works"),
                      column("years"), column("citations"), found.total + len(more))


# a page's few positions are told apart in Python: `np.unique`'s sort and the calls around it
# cost more than a set over ~20-40 works (issue 33, lat33); a whole sorted list goes numpy's way
FEW_POSITIONS = 256


def _first_of_each(works: np.ndarray) -> np.ndarray:
    """The positions of the first of each work among `works` (in order): the positions
    `np.unique(works, return_index=True)` gives, sorted."""
    if len(works) > FEW_POSITIONS:
        _, first = np.unique(works, return_index=True)
        return np.sort(first)
    seen: set[int] = set()
    keep = []
    for at, work in enumerate(works.tolist()):
        if work not in seen:
            seen.add(work)
            keep.append(at)
    return np.asarray(keep, dtype=np.int64)
