"""Scores looked up for a few rows are what the full scoring gives them, bit for bit."""

from __future__ import annotations

import numpy as np

from paperfind.index.retrieval import score_handles, score_rows
from tests.index.test_kernels import title_queries


def test_rows_scored_alone_as_in_the_full_scoring(colt_index):
    lex = colt_index.lexical
    rng = np.random.default_rng(3)
    for query in title_queries(colt_index, 40):
        scores, matched = lex.score(query)
        hits = np.flatnonzero(matched)
        # the matches, a sample of them (the look-up path) and rows that match nothing
        for rows in (hits, np.sort(rng.choice(hits, min(20, len(hits)), replace=False)),
                     np.arange(0, lex.n_docs, 97)):
            got_scores, got_matched = score_rows(lex, query, rows)
            assert np.array_equal(got_scores, scores[rows])
            assert np.array_equal(got_matched, matched[rows])


def test_handles_in_any_order_with_repeats(colt_index):
    lex = colt_index.lexical
    query = title_queries(colt_index, 5)[2]
    scores, matched = lex.score(query)
    handles = np.array([40, 3, 40, lex.n_docs - 1, 0, 3])
    got_scores, got_matched = score_handles(lex, query, handles)
    assert np.array_equal(got_scores, scores[handles]) and np.array_equal(got_matched, matched[handles])
    assert len(score_handles(lex, query, np.zeros(0, dtype=np.int64))[0]) == 0
