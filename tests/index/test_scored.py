"""A query scored at the rows it touches gives what the full scoring gives every row, bit for
bit: scores and groups matched of any handles, and the matching rows under any min_match and
mask (paperfind.index.scored)."""

from __future__ import annotations

import numpy as np

from paperfind.index.scored import score_query
from tests.index.test_kernels import title_queries


def _small_queries(index) -> list:
    """Queries of one to three title words with few postings (each word one field, boost 1),
    the kind a name or a rare word makes, plus a word the index lacks."""
    seq, lex = index.docs.title_seq, index.lexical
    out = []
    for row in range(0, index.docs.n, max(1, index.docs.n // 30)):
        terms = [int(t) for t in seq.row(row) if t >= 0]
        rare = sorted(terms, key=lambda t: lex.fields["title"].doc_freq[t])[:3]
        out.append([[("title", t, 1.0), ("abstract", t, 0.5)] for t in rare] + [[("text", -1, 1.0)]])
    return out


def test_rows_touched_score_as_every_row(colt_index) -> None:
    lex = colt_index.lexical
    mask = np.zeros(lex.n_docs, dtype=bool)
    mask[1::2] = True
    every = np.arange(lex.n_docs)
    rng = np.random.default_rng(33)
    sparse_seen = 0
    for groups in _small_queries(colt_index) + title_queries(colt_index, 20):
        scores, matched = lex.score(groups)
        for share in (np.inf, 0.0):  # at the rows touched whatever the postings, then dense
            got = score_query(lex, groups, sparse_share=share, min_papers=0)
            sparse_seen += got.rows is not None
            assert (got.rows is None) == (share == 0.0)
            s, m = got.of(every)
            assert np.array_equal(s, scores) and np.array_equal(m, matched)
            assert s.dtype == np.float32 and m.dtype == np.int16
            handles = rng.integers(0, lex.n_docs, 50)
            assert np.array_equal(got.of(handles)[0], scores[handles])
            for min_match in (0, 1, 2, 3):
                for restriction in (None, mask):
                    keep = (matched >= min_match) & (scores > 0)
                    want = np.flatnonzero(keep if restriction is None else keep & restriction)
                    rows = got.matching(min_match, restriction)
                    assert rows.dtype == np.int64 and np.array_equal(rows, want)
    assert sparse_seen


def test_the_rule_follows_the_postings(colt_index) -> None:
    """A query with fewer postings than the share of the papers is scored at its rows alone, in
    a corpus large enough (the slice has 127 papers: share and size lowered to reach it)."""
    lex = colt_index.lexical
    small = _small_queries(colt_index)[0]
    postings = sum(len(d) for cols in lex.group_columns(small) for d, _, _ in cols)
    assert 0 < postings < lex.n_docs / 2
    assert score_query(lex, small).rows is None  # 127 papers: too few for the look-ups to pay
    assert score_query(lex, small, sparse_share=0.5).rows is None
    scored = score_query(lex, small, sparse_share=0.5, min_papers=100)
    assert scored.rows is not None and len(scored.rows) <= postings
    broad = [[("venue", lex.term_id("colt"), 1.0)]]  # every paper
    assert score_query(lex, broad, sparse_share=0.5, min_papers=100).rows is None
    empty = score_query(lex, [[("text", -1, 1.0)]], min_papers=0)
    assert len(empty.rows) == 0 and len(empty.matching(0)) == 0 and not empty.of(np.arange(5))[1].any()


def test_the_scores_alone_are_those_of_of(colt_index) -> None:
    """`Scored.scores_of` (a search's cut to its best k reads only the scores, issue 33) gives
    `of`'s scores, dense or at the rows touched, for handles in any order with repeats."""
    lex = colt_index.lexical
    rng = np.random.default_rng(7)
    for groups in _small_queries(colt_index) + title_queries(colt_index, 10):
        for share in (np.inf, 0.0):
            got = score_query(lex, groups, sparse_share=share, min_papers=0)
            handles = np.concatenate([rng.integers(0, lex.n_docs, 40), np.arange(lex.n_docs)])
            scores = got.scores_of(handles)
            assert scores.dtype == np.float32 and np.array_equal(scores, got.of(handles)[0])

