"""`distinct` and `union` give numpy's `unique` and `union1d` arrays (values and dtype), on the
columns of a real index and the arrays a query builds from them (paperfind.index.distinct)."""

from __future__ import annotations

import numpy as np

from paperfind.index.distinct import distinct, distinct_sorted, union


def _same(ours: np.ndarray, numpys: np.ndarray) -> None:
    assert ours.dtype == numpys.dtype and ours.shape == numpys.shape
    assert np.array_equal(ours, numpys)


def test_distinct_and_union_are_numpys_on_a_real_indexs_columns(colt_index) -> None:
    docs, lexical = colt_index.docs, colt_index.lexical
    text = lexical.fields["text"]
    columns = [text.indices[text.indptr[t]:text.indptr[t + 1]] for t in range(len(text.indptr) - 1)]
    columns = [c for c in columns if len(c)]
    assert len(columns) > 500
    arrays = [docs.work, docs.year, docs.venue, docs.inst, np.concatenate(columns[:300]),
              docs.work * 40 + docs.year % 40, docs.work[::-1].astype(np.int32), np.zeros(0, np.int64),
              docs.work[:1], np.full(7, 3, dtype=np.int16)]
    for values in arrays:
        _same(distinct(values), np.unique(values))
    for a, b in zip(columns[:200], columns[1:201]):
        _same(union(a, b), np.union1d(a, b))
    _same(union(docs.work, np.zeros(0, np.int64)), np.union1d(docs.work, np.zeros(0, np.int64)))
    _same(union(columns[0], docs.work), np.union1d(columns[0], docs.work))  # int32 with int64


def test_a_plain_list_and_a_2d_array_are_flattened_as_numpy_does() -> None:
    _same(distinct(np.asarray([[3, 1], [3, 2]])), np.unique(np.asarray([[3, 1], [3, 2]])))
    _same(distinct(np.asarray([5, 5, -1, 0])), np.unique([5, 5, -1, 0]))


def test_distinct_of_sorted_keys_and_of_their_high_parts(colt_index) -> None:
    """`distinct_sorted` of a sorted array, and of a key's high part along sorted keys (the
    trend's works and (work, venue) pairs read from its sorted (work, venue-year) keys), is
    `distinct` of the same values."""
    docs = colt_index.docs
    keys = np.sort(docs.work.astype(np.int64) * 40 * 16 + docs.venue.astype(np.int64) * 40 + docs.year % 40)
    _same(distinct_sorted(keys), np.unique(keys))
    for span in (40, 40 * 16):
        _same(distinct_sorted(keys // span), np.unique(keys // span))
    for values in (np.zeros(0, np.int64), np.asarray([4]), np.asarray([2, 2, 2])):
        _same(distinct_sorted(values), np.unique(values))
