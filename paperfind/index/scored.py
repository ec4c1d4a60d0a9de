"""A query's BM25F and groups matched over every row, made at the cost of its postings when
they are few.

`LexicalIndex.score` adds a query's columns into two arrays over the whole corpus, then the
backend compares, masks and selects over them: a dozen passes over every row whatever the
query touches, ~0.1 ms at the bundled corpus's 156k papers and ~6x that at a million, for a
name or a rare title word with a few hundred postings. Such a query is scored at the rows its
columns hold alone (their distinct docs, looked up by paperfind.index.retrieval, bit for bit
the full scoring); every other row scores 0 with no group matched, which is what the full
arrays hold there. A query with many postings keeps the dense arrays: there one compiled pass
over its postings (~1 ns each) beats the look-ups (bench.lexical_skips and RESULTS.md: at the
bundled corpus the two cost the same near 1/64 posting per paper), and so do the dense passes
themselves in a small corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperfind.index.distinct import distinct
from paperfind.index.lexical import LexicalIndex
from paperfind.index.retrieval import Resolved, score_rows

# a query is scored at its rows when its columns hold fewer postings than this share of the papers
SPARSE_POSTINGS_SHARE = 1 / 64
# ... in a corpus of at least this many: below it the dense passes cost less than the look-ups'
# own few dozen calls (~0.05 ms; 16.5k papers: 0.03 ms dense against 0.06 at the rows)
SPARSE_MIN_PAPERS = 1 << 16


@dataclass(frozen=True)
class Scored:
    """BM25F (float32) and groups matched (int16) of one query: over every row (`rows` None),
    or at `rows` (ascending, int64: every row with a posting of the query) and 0 elsewhere."""

    rows: np.ndarray | None
    scores: np.ndarray
    matched: np.ndarray

    def of(self, handles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(scores, groups matched) of `handles` (any order, repeats allowed)."""
        if self.rows is None:
            return self.scores[handles], self.matched[handles]
        handles = np.asarray(handles, dtype=np.int64)
        scores = np.zeros(len(handles), dtype=np.float32)
        matched = np.zeros(len(handles), dtype=np.int16)
        if len(self.rows) and len(handles):
            at = np.searchsorted(self.rows, handles)
            at[at == len(self.rows)] = 0
            hit = np.flatnonzero(self.rows[at] == handles)
            scores[hit], matched[hit] = self.scores[at[hit]], self.matched[at[hit]]
        return scores, matched

    def scores_of(self, handles: np.ndarray) -> np.ndarray:
        """The scores of `of(handles)` alone: a search's cut to its best k reads the scores of
        every match, and gathering their groups matched beside them doubled the work."""
        if self.rows is None:
            return self.scores[handles]
        return self.of(handles)[0]

    def matching(self, min_match: int, mask: np.ndarray | None = None) -> np.ndarray:
        """The rows (ascending, int64) with at least `min_match` groups, a score above 0 and,
        with `mask`, let through by it."""
        keep = (self.matched >= min_match) & (self.scores > 0)
        if self.rows is None:
            return np.flatnonzero(keep & mask if mask is not None else keep)
        if mask is not None:
            keep &= mask[self.rows]
        return self.rows[keep]


def score_query(lex: LexicalIndex, groups: Resolved, sparse_share: float = SPARSE_POSTINGS_SHARE,
                min_papers: int = SPARSE_MIN_PAPERS) -> Scored:
    """`groups` scored over every row, at the rows it touches when its postings are fewer than
    `sparse_share` of the papers and those are at least `min_papers` (module doc)."""
    group_columns = lex.group_columns(groups)
    if lex.n_docs < min_papers or sum(len(d) for columns in group_columns for d, _, _ in columns
                                      ) >= sparse_share * lex.n_docs:
        scores, matched = lex.score_columns(group_columns)
        return Scored(None, scores, matched)
    docs = [d for columns in group_columns for d, _, _ in columns]
    rows = distinct(np.concatenate(docs)).astype(np.int64) if docs else np.zeros(0, dtype=np.int64)
    scores, matched = score_rows(lex, groups, rows)
    return Scored(rows, scores, matched)
