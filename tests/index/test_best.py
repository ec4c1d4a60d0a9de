"""`best_positions` keeps the entries a full sort's first k keeps (paperfind.index.best): on a
real index's columns, whose values tie by the hundred (a facet's counts, a term's frequencies),
ties at the cut by position or by a second key."""

from __future__ import annotations

import numpy as np

from paperfind.index.best import best_positions


def _values(colt_index) -> list[np.ndarray]:
    docs, text = colt_index.docs, colt_index.lexical.fields["text"]
    lengths = np.diff(text.indptr)
    return [np.bincount(docs.inst), np.bincount(docs.work), lengths, lengths.astype(np.float32) / 7,
            docs.year, np.zeros(40, dtype=np.int64), np.arange(25)[::-1].copy()]


def test_the_k_best_by_value_ties_by_position_are_a_stable_sorts_first_k(colt_index) -> None:
    for values in _values(colt_index):
        for k in (1, 2, 5, 20, 80, len(values) // 2, len(values) - 1, len(values), len(values) + 3):
            expected = np.sort(np.argsort(-values, kind="stable")[:max(k, 0)])
            got = best_positions(values, k)
            assert got.dtype == np.int64
            assert np.array_equal(got, expected), (len(values), k)


def test_ties_at_the_cut_go_to_the_smallest_second_key(colt_index) -> None:
    rng = np.random.default_rng(4)
    for values in _values(colt_index):
        ties = rng.permutation(len(values))  # a second key in no relation to the positions
        for k in (1, 3, 20, len(values) // 3):
            expected = np.sort(np.lexsort((ties, -values))[:k])
            assert np.array_equal(best_positions(values, k, ties), expected), (len(values), k)


def test_nothing_asked_or_nothing_there_is_nothing() -> None:
    assert len(best_positions(np.arange(5), 0)) == 0
    assert len(best_positions(np.zeros(0), 3)) == 0
