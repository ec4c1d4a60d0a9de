"""People as the expert finder reads them: per person, their papers' index rows.

Derived from the index's own author column (`meta.author`, one entry per paper and author in
author order), so a profile is rebuilt whenever the index is (and so updated when papers are
added), and is never stale against the rows it points at. Nothing is precomputed per person
beyond the grouping: what a person works on is read at query time from the papers eligible
for that query (`before`, venue, institution, year), which a centroid made at index time could
not honour exactly (paperfind.search.experts).

Arrays only (about 11 bytes an authorship: 7 MB at the bundled corpus), made in two sorts.
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
    work: np.ndarray  # int64 per authorship: its row's work (a paper's versions share one)
    shared: np.ndarray  # bool per authorship: the person has another version of that work

    @classmethod
    def build(cls, author_indptr: np.ndarray, authors: np.ndarray,
              work: np.ndarray | None = None) -> "PersonProfiles":
        """From the index's author column: `authors[author_indptr[r]:author_indptr[r+1]]` are the
        people of row r, in author order; `work[r]` is row r's work (None: each row its own)."""
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
        rows = entry_row[order]
        works = rows.astype(np.int64) if work is None else np.asarray(work, dtype=np.int64)[rows]
        return cls(ids, indptr, rows, entry_edge[order], (place == 0)[order], entry_edge, works,
                   _shared(indptr, works))

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in (self.ids, self.indptr, self.rows, self.edge, self.first,
                                               self.entry_edge, self.work, self.shared))

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

    def works_counted(self, author_ids: list[int], eligible: np.ndarray | None) -> list[int]:
        """Per person, their works (versions counted once) among the `eligible` rows (None: all)."""
        return self.eligible_works(np.asarray(author_ids, dtype=np.int64), eligible).tolist()

    def eligible_works(self, author_ids: np.ndarray, eligible: np.ndarray | None) -> np.ndarray:
        """`works_counted` for many people at once (the expert finder's floor reads every
        candidate's: thousands a query). Only the authorships of those people are read, and only
        those of works the person has in several versions are sorted (2% at the bundled corpus),
        so the cost is a gather, not a sort of every authorship."""
        author_ids = np.asarray(author_ids, dtype=np.int64)
        if not len(self.ids) or not len(author_ids):
            return np.zeros(len(author_ids), dtype=np.int64)
        where = np.minimum(np.searchsorted(self.ids, author_ids), len(self.ids) - 1)
        starts = self.indptr[where]
        counts = np.where(self.ids[where] == author_ids, self.indptr[where + 1] - starts, 0)
        entries = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        owner = np.repeat(np.arange(len(author_ids)), counts)
        if eligible is not None:
            ok = eligible[self.rows[entries]]
            entries, owner = entries[ok], owner[ok]
        out = np.bincount(owner, minlength=len(author_ids))
        versions = self.shared[entries]
        if versions.any():  # a work's versions count once: those beyond its first are taken off
            owner, work = owner[versions], self.work[entries[versions]]
            span = int(work.max()) + 1
            distinct = np.unique(owner * span + work) // span
            out += np.bincount(distinct, minlength=len(author_ids)) - np.bincount(owner, minlength=len(author_ids))
        return out.astype(np.int64)


def _shared(indptr: np.ndarray, works: np.ndarray) -> np.ndarray:
    """Per authorship (grouped by person by `indptr`): whether the same person has another
    authorship of the same work."""
    owner = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    key = owner * (int(works.max(initial=0)) + 1) + works
    _, inverse, sizes = np.unique(key, return_inverse=True, return_counts=True)
    return sizes[inverse] > 1
