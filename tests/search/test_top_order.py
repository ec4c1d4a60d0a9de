"""`top_order` cuts a large set at a threshold read from a strided sample (one pass over the
set, not a partition of it): the same positions as a full sort's first k on real BM25 scores,
ties included, whether the sample's threshold keeps enough entries or the partition has to
answer."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search import rank
from paperfind.search.rank import SAMPLED_CUT_MIN_SETS, _sampled_cut, top_order, top_set


def _full_sort(rows: np.ndarray, relevance: np.ndarray, k: int) -> np.ndarray:
    return np.lexsort((rows, -relevance))[:k]


@pytest.fixture(scope="module")
def broad(searcher) -> tuple[np.ndarray, np.ndarray]:
    """(rows, BM25) of every paper of the slice matching a broad query of common words."""
    index = searcher.backend().index
    lex = index.lexical
    groups = [[("text", lex.term_id(w), 1.0), ("title", lex.term_id(w), 0.5)]
              for w in ("learn", "model", "network", "data")]
    scores, _ = lex.score(groups)
    rows = np.flatnonzero(scores > 0)
    return rows, scores[rows]


@pytest.mark.parametrize("ties", [False, True])
def test_a_large_set_cut_by_a_sampled_threshold_is_the_full_sorts_first_k(broad, ties) -> None:
    rows, relevance = broad
    if ties:  # scores rounded to one decimal: hundreds share each value, many at the cut
        relevance = np.round(relevance, 1).astype(np.float32)
    ks = [k for k in (2, 5, 10, 20, 40) if len(rows) >= SAMPLED_CUT_MIN_SETS * k]
    assert len(ks) == 5, len(rows)
    sampled = 0
    for k in ks:
        pool = _sampled_cut(relevance, k)
        sampled += pool is not None and len(pool) >= k  # the sampled way answers, not the partition
        assert np.array_equal(top_order(rows, relevance, k), _full_sort(rows, relevance, k))
    assert sampled >= 3  # a sample of a few dozen entries may hold one of the best k: the partition's


def test_a_threshold_that_keeps_too_few_falls_back_to_the_partition(broad) -> None:
    """The real scores placed so that every sampled entry is among the best: the threshold
    keeps fewer than k, and the partition gives the same answer."""
    rows, relevance = broad
    k = 10  # every 9th entry sampled in the slice's ~760: the threshold keeps ~3
    step = len(rows) // (8 * k)
    order = np.argsort(-relevance, kind="stable")
    placed = np.empty_like(relevance)
    sampled = np.arange(0, len(rows), step)
    placed[sampled] = relevance[order[:len(sampled)]]
    rest = np.setdiff1d(np.arange(len(rows)), sampled)
    placed[rest] = relevance[order[len(sampled):]]
    assert _sampled_cut(placed, k) is None
    assert np.array_equal(top_order(rows, placed, k), _full_sort(rows, placed, k))


def test_small_sets_keep_the_partition(broad, monkeypatch) -> None:
    rows, relevance = broad
    calls = []
    monkeypatch.setattr(rank, "_sampled_cut", lambda *a: calls.append(a) or None)
    k = len(rows) // SAMPLED_CUT_MIN_SETS + 1
    assert np.array_equal(top_order(rows, relevance, k), _full_sort(rows, relevance, k))
    assert not calls


@pytest.mark.parametrize("ties", [False, True])
def test_the_best_k_as_a_set_are_the_orders_entries(broad, ties) -> None:
    """`top_set`, which the engine's candidates keep in row order, holds the entries of
    `top_order` (ties at the cut by row), through the sampled cut and the partition alike."""
    rows, relevance = broad
    if ties:
        relevance = np.round(relevance, 1).astype(np.float32)
    for k in (1, 2, 5, 10, 40, 100, len(rows) // 2, len(rows) - 1, len(rows), len(rows) + 1):
        got = top_set(rows, relevance, k)
        assert np.array_equal(got, np.sort(top_order(rows, relevance, k))), k
        assert np.array_equal(got, np.sort(_full_sort(rows, relevance, k))), k
    shuffled = np.random.default_rng(2).permutation(len(rows))  # rows in no order: ties still by row
    for k in (3, 20, 40):
        got = top_set(rows[shuffled], relevance[shuffled], k)
        assert np.array_equal(got, np.sort(_full_sort(rows[shuffled], relevance[shuffled], k))), k
