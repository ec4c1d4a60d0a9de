"""The lexical scores of a few given papers, without a pass over the corpus.

The re-ranker and the learned model ask the engine for the BM25F of a query (and per field, of
its title and abstract words) for their few hundred candidates (`SearchBackend.scores`).
`LexicalIndex.score` scatter-adds every posting of every word into arrays over the whole corpus,
so each such ask cost a full scoring; here each column is looked up for the asked rows alone
(a binary search into its sorted docs, or a read of a short column), so the cost follows the
candidates, not the corpus.

The answers are the reference's, bit for bit: each row's score added up in float32 in the same
order (group by group, column by column), and the same groups matched
(tests/index/test_retrieval.py compares the two on real queries).
"""

from __future__ import annotations

import numpy as np

from paperfind.index.lexical import LexicalIndex

# A column is read whole (a gather over its postings) when it is at most this many times longer
# than the candidates; beyond that a binary search per candidate costs less (measured on the
# bundled corpus: a search costs ~log2(length) gathers, a read one gather per posting).
READ_WHOLE_RATIO = 3

Resolved = list[list[tuple[str, int, float]]]  # groups of (field, term id, boost)


def _lookup(rows: np.ndarray, docs: np.ndarray, position: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray]:
    """(positions into `rows`, positions into `docs`) of the rows the column has. `position`
    (row -> its position in `rows`, -1 elsewhere) lets a short column be read whole."""
    if position is not None and len(docs) <= READ_WHOLE_RATIO * len(rows):
        at = position[docs]
        hit = np.flatnonzero(at >= 0)
        return at[hit], hit
    where = np.searchsorted(docs, rows.astype(docs.dtype, copy=False))  # never a copy of `docs`
    where[where == len(docs)] = 0
    found = np.flatnonzero(docs[where] == rows) if len(docs) else np.zeros(0, dtype=np.int64)
    return found, where[found]


def _position_map(lex: LexicalIndex, rows: np.ndarray) -> np.ndarray:
    position = np.full(lex.n_docs, -1, dtype=np.int32)
    position[rows] = np.arange(len(rows), dtype=np.int32)
    return position


def score_rows(lex: LexicalIndex, groups: Resolved, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(BM25F, groups matched) of `rows` (ascending, distinct): what `LexicalIndex.score` gives
    them, computed from look-ups of these rows alone."""
    rows = np.asarray(rows, dtype=np.int64)
    # a map over every row pays for many rows; a few are binary-searched (O(rows log column))
    position = _position_map(lex, rows) if len(rows) * 256 > lex.n_docs else None
    scores = np.zeros(len(rows), dtype=np.float32)
    dtype = np.uint32 if len(groups) <= 32 else np.uint64
    bits = np.zeros(len(rows), dtype=dtype)
    if not len(rows):
        return scores, bits.astype(np.int16)
    for g, cols in enumerate(lex.group_columns(groups)):
        flag = dtype(1 << g)
        for docs, weights, boost in cols:
            at, where = _lookup(rows, docs, position)
            if not len(at):
                continue
            w = weights[where]
            scores[at] += w if boost == 1.0 else w * np.float32(boost)
            bits[at] |= flag
    return scores, np.bitwise_count(bits).astype(np.int16)


def score_handles(lex: LexicalIndex, groups: Resolved, handles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`score_rows` of any handles (any order, repeats allowed), in their order."""
    handles = np.asarray(handles, dtype=np.int64)
    rows, back = np.unique(handles, return_inverse=True)
    scores, matched = score_rows(lex, groups, rows)
    return scores[back], matched[back]
