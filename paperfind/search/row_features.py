"""One query's per-candidate features, computed once per row and kept for the query.

A default-mode (hybrid) query's vector arrives ~14 ms after the query, on a worker thread;
the lexical route is done ~5 ms in. What came after the vector recomputed features for rows
the lexical route had already scored: the second stage's features of the lexical leaders
again (`_lexical_order` over the joined candidates), and again in the learned ranker's
`candidate_features`, with their BM25F and per-field BM25 scores (issue 33). Every one of
these is a function of the row alone (the query fixed), so a row's values are the same
whatever other rows they are computed with: `QueryFeatures` keeps them per row, computes
only the rows it does not hold yet, and lets the searcher compute the lexical leaders'
while it waits for the vector. The answers are bit-identical to computing them afresh
(tests/search/test_row_features.py).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from paperfind.index.distinct import distinct
from paperfind.search.backend import SearchBackend
from paperfind.search.plan import QueryPlan
from paperfind.search.second_stage import features

SCORE_COLUMNS = ("bm25f", "matched", "bm25_title", "bm25_abstract")


class RowTable:
    """Columns of per-row values, looked up by handle; rows not held are computed by
    `compute(handles) -> {name: column}` and appended."""

    def __init__(self, compute: Callable[[np.ndarray], dict[str, np.ndarray]]) -> None:
        self._compute = compute
        self._handles = np.zeros(0, dtype=np.int64)
        self._columns: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._handles)

    def _positions(self, handles: np.ndarray) -> np.ndarray:
        """Each handle's position in the table, -1 when not held."""
        out = np.full(len(handles), -1, dtype=np.int64)
        if len(self._handles) and len(handles):
            order = np.argsort(self._handles, kind="stable")
            ordered = self._handles[order]
            at = np.minimum(np.searchsorted(ordered, handles), len(ordered) - 1)
            held = ordered[at] == handles
            out[held] = order[at[held]]
        return out

    def of(self, handles: np.ndarray) -> dict[str, np.ndarray]:
        """The columns for `handles` (in their order), computing the rows not held yet."""
        handles = np.asarray(handles, dtype=np.int64)
        at = self._positions(handles)
        missing = distinct(handles[at < 0])
        if len(missing):
            new = self._compute(missing)
            if not self._columns:
                self._columns = {k: np.asarray(v) for k, v in new.items()}
            else:
                self._columns = {k: np.concatenate([v, np.asarray(new[k])])
                                 for k, v in self._columns.items()}
            self._handles = np.concatenate([self._handles, missing])
            at = self._positions(handles)
        return {k: v[at] for k, v in self._columns.items()}


class QueryFeatures:
    """The row-wise features of one query's candidates: the second stage's (`features`) and
    the lexical scores the learned ranker reads (BM25F with its matched groups, BM25 of the
    title and of the abstract). Made per query, never shared between queries."""

    def __init__(self, backend: SearchBackend, plan: QueryPlan, terms: list[str],
                 max_people: int) -> None:
        self.backend, self.plan, self.terms, self.max_people = backend, plan, terms, max_people
        self._second = RowTable(lambda rows: features(backend, plan, terms, rows, max_people))
        self._scores = RowTable(self._lexical_scores)

    def _lexical_scores(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        lexical, matched = self.backend.scores(self.plan.lexical(), rows)
        out = {"bm25f": lexical, "matched": matched}
        for field in ("title", "abstract"):
            groups = [[(field, s, w) for s, w in g.stems] for g in self.plan.groups]
            out[f"bm25_{field}"] = self.backend.scores(groups, rows)[0]
        return out

    def second_stage(self, handles: np.ndarray) -> dict[str, np.ndarray]:
        """`second_stage.features` of `handles`."""
        return self._second.of(handles)

    def lexical_scores(self, handles: np.ndarray) -> dict[str, np.ndarray]:
        """Per handle, its BM25F (`bm25f`), the query's groups it matches (`matched`), and the
        BM25 of the query's words in its title (`bm25_title`) and abstract (`bm25_abstract`)."""
        return self._scores.of(handles)

    def prepare(self, handles: np.ndarray) -> None:
        """Compute everything the learned ranker reads for `handles` now (while the query's
        vector is being made), so that only other rows are left for after it."""
        self.second_stage(handles)
        self.lexical_scores(handles)
