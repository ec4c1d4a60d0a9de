"""People as the expert finder reads them: per person, their papers' index rows.

Derived from the index's own author column (`meta.author`, one entry per paper and author in
author order), so a profile is rebuilt whenever the index is (and so updated when papers are
added), and is never stale against the rows it points at. Nothing is precomputed per person
beyond the grouping: what a person works on is read at query time from the papers eligible
for that query (`before`, venue, institution, year), which a centroid made at index time could
not honour exactly (paperfind.search.experts).

Arrays only (about 6 bytes an authorship: 4 MB at the bundled corpus), made in one sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PersonProfiles:
    """Authorships grouped by person: person i (`ids[i]`, sorted) wrote `rows[indptr[i]:indptr[i+1]]`."""

    ids: np.ndarray  # int64, sorted author ids (> 0: unresolved names have none)
    indptr: np.ndarray  # int64, len(ids) + 1
    rows: np.ndarray  # int32 index rows, ascending within a person
    edge: np.ndarray  # bool per authorship: the first or the last author (or the only one)
    first: np.ndarray  # bool per authorship: the first author (the learned ranker tells first from last)
    entry_edge: np.ndarray  # bool per entry of the index's author column, in its order

    @classmethod
    def build(cls, author_indptr: np.ndarray, authors: np.ndarray) -> "PersonProfiles":
        """From the index's author column: `authors[author_indptr[r]:author_indptr[r+1]]` are the
        people of row r, in author order."""
        author_indptr = np.asarray(author_indptr, dtype=np.int64)
        authors = np.asarray(authors, dtype=np.int64)
        counts = np.diff(author_indptr)
        entry_row = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        place = np.arange(len(authors), dtype=np.int64) - np.repeat(author_indptr[:-1], counts)
        entry_edge = (place == 0) | (place == np.repeat(counts, counts) - 1)
        known = authors > 0
        order = np.flatnonzero(known)[np.argsort(authors[known], kind="stable")]
        ids, starts = np.unique(authors[order], return_index=True)
        indptr = np.append(starts, len(order)).astype(np.int64)
        return cls(ids, indptr, entry_row[order], entry_edge[order], (place == 0)[order], entry_edge)

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in (self.ids, self.indptr, self.rows, self.edge, self.first,
                                               self.entry_edge))

    def position(self, author_id: int) -> int:
        """Index of `author_id` in `ids`, or -1 for a person with no paper."""
        i = int(np.searchsorted(self.ids, author_id))
        return i if i < len(self.ids) and int(self.ids[i]) == author_id else -1

    def rows_of(self, author_id: int) -> np.ndarray:
        i = self.position(author_id)
        return self.rows[self.indptr[i]:self.indptr[i + 1]] if i >= 0 else self.rows[:0]

    def span(self, author_id: int) -> slice:
        """The person's authorships as a slice of `rows`, `edge` and `first` (empty for none)."""
        i = self.position(author_id)
        return slice(int(self.indptr[i]), int(self.indptr[i + 1])) if i >= 0 else slice(0, 0)

    def works_counted(self, author_ids: list[int], eligible: np.ndarray | None,
                      work: np.ndarray) -> list[int]:
        """Per person, their works (versions counted once) among the `eligible` rows (None: all)."""
        out = []
        for author_id in author_ids:
            rows = self.rows_of(int(author_id))
            if eligible is not None:
                rows = rows[eligible[rows]]
            out.append(int(len(np.unique(work[rows]))))
        return out
