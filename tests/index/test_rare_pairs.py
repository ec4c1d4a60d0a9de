"""The expert finder's rare word pairs, made a block of rows at a time from a real index's
sequences: the same table whatever the block (a pair counted once per paper, across blocks),
and made without widening every pair of the corpus to int64 at once."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from paperfind.index.doctable import Sequences
from paperfind.index.rare_pairs import RarePairs, pair_keys


def _counted_by_hand(docs, vocab_size: int) -> dict[int, int]:
    """Papers holding each pair, from every row's own pairs."""
    counts: dict[int, int] = {}
    for r in range(docs.n):
        held = set(pair_keys(docs.title_seq.row(r), vocab_size).tolist()) \
            | set(pair_keys(docs.abstract_seq.row(r), vocab_size).tolist())
        for key in held:
            counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("rows_per_block", [1, 7, 64, 1 << 13])
def test_the_table_is_the_papers_holding_each_pair_whatever_the_block(colt_index, rows_per_block):
    docs = colt_index.docs
    vocab_size = int(colt_index.params["n_terms"])
    counts = _counted_by_hand(docs, vocab_size)
    pairs = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n, vocab_size, 2,
                            rows_per_block=rows_per_block)
    expected = sorted(k for k, c in counts.items() if c <= 2)
    assert pairs.keys.tolist() == expected
    assert pairs.df.tolist() == [counts[k] for k in expected]
    assert pairs.df.dtype == np.int32 and pairs.keys.dtype == np.int64
    assert 0 < len(expected) < len(counts)  # some pairs are held by three papers or more


def test_pairs_held_by_papers_of_two_blocks_are_counted_together(colt_index):
    docs = colt_index.docs
    vocab_size = int(colt_index.params["n_terms"])
    whole = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n, vocab_size, 10 ** 6)
    one_row = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n, vocab_size, 10 ** 6,
                              rows_per_block=1)
    assert whole.df.max() > 1  # pairs of several papers, so several blocks here
    assert np.array_equal(whole.keys, one_row.keys) and np.array_equal(whole.df, one_row.df)


def _tiled(seq: Sequences, times: int) -> Sequences:
    """The rows of `seq` repeated `times` times: a corpus of that many copies of the slice."""
    lengths = np.tile(np.diff(seq.indptr), times)
    return Sequences(np.r_[0, np.cumsum(lengths)], np.tile(np.asarray(seq.indices), times))


def test_the_build_holds_one_int64_a_pair_not_several(colt_index):
    """Made at once, each pair's row, position, id and key were int64 arrays side by side (over
    five words a pair at the peak); by blocks the corpus's pairs are held once (the slice's
    rows 50 times over: ~700k pairs, so that a block's own arrays are a small part)."""
    docs = colt_index.docs
    vocab_size = int(colt_index.params["n_terms"])
    sequences = (_tiled(docs.title_seq, 50), _tiled(docs.abstract_seq, 50))
    n_pairs = sum(int(s.indptr[-1]) for s in sequences)
    tracemalloc.start()
    try:
        RarePairs.build(sequences, docs.n * 50, vocab_size, 20, rows_per_block=64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 8 * n_pairs


def test_an_empty_index_has_no_pairs(colt_index):
    docs = colt_index.docs
    pairs = RarePairs.build((docs.title_seq, docs.abstract_seq), 0, 10, 20)
    assert len(pairs.keys) == 0 and len(pairs.df) == 0
