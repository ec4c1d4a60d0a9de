"""The positions of an array's k best values as a set: what a cut to the best k needs when the
caller keeps its own order afterwards.

A stable argsort of every value, or a partition then a sort of the kept ones by two keys,
orders entries that the caller then puts back in row order (the engine's candidates) or sorts
by its own key (a facet's top labels). Here the k-th best value is found by one partition and
the entries above it, with the first of those tied at it, are the k: the same entries as the
sort's first k (tests/index/test_best.py compares them, ties included).
"""

from __future__ import annotations

import numpy as np


def best_positions(values: np.ndarray, k: int, ties: np.ndarray | None = None) -> np.ndarray:
    """The ascending positions of the `k` largest `values` (signed or float), of those tied at
    the cut the ones with the smallest `ties` (default: the smallest positions): the entries of
    `np.lexsort((ties, -values))[:k]`, or of `np.argsort(-values, kind="stable")[:k]`."""
    n = len(values)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.arange(n, dtype=np.int64)
    # the k-th largest value, as the k-th smallest of the negated values: numpy's partition at
    # the high end of a set of one value repeated (a short name's 27k tied scores) took 13x as long
    negated = -values
    cut = np.partition(negated, k - 1)[k - 1]
    chosen = negated < cut
    tied = np.flatnonzero(negated == cut)
    short = k - int(np.count_nonzero(chosen))
    if short < len(tied) and ties is not None:
        tied = tied[np.argsort(ties[tied], kind="stable")]
    chosen[tied[:short]] = True
    return np.flatnonzero(chosen)
