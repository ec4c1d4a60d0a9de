"""A page lists one result per work, by its best-placed version (paperfind.search.pool)."""

from __future__ import annotations

import numpy as np

from paperfind.search import pool as pool_module
from paperfind.search.pool import Pool, _first_of_each


def _by_unique(works: np.ndarray) -> np.ndarray:
    _, first = np.unique(works, return_index=True)
    return np.sort(first)


def test_the_first_of_each_work_is_numpys_at_every_size() -> None:
    """A page's few positions are told apart by a set (issue 33, lat33), a longer list by numpy:
    both give the positions of each work's first, in order."""
    rng = np.random.default_rng(33)
    for size in (0, 1, 2, 20, 40, pool_module.FEW_POSITIONS, pool_module.FEW_POSITIONS + 1, 2000):
        for spread in (3, 50, 10**6):
            works = rng.integers(0, spread, size).astype(np.int64)
            got = _first_of_each(works)
            assert got.dtype == np.int64 and got.tolist() == _by_unique(works).tolist(), (size, spread)


def test_a_page_folds_versions_into_their_best_placed_one() -> None:
    handles = np.arange(8, dtype=np.int64)
    relevance = np.array([8.0, 7, 6, 5, 4, 3, 2, 1])
    works = np.array([10, 10, 11, 12, 11, 13, 14, 12], dtype=np.int64)  # 10, 11 and 12: two versions
    pool = Pool(handles, relevance, works, np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64))
    assert pool.page("relevance", 0, 3).tolist() == [0, 2, 3]
    assert pool.page("relevance", 3, 3).tolist() == [5, 6]
