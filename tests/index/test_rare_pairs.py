"""The expert finder's rare word pairs, made a block of rows at a time from a real index's
sequences: the same table whatever the block (a pair counted once per paper, across blocks),
and made without widening every pair of the corpus to int64 at once."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from paperfind.index.doctable import Sequences
from paperfind.index.rare_pairs import RarePairs, pair_keys, row_terms


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


def _rows_with_empty_ones(docs) -> np.ndarray:
    """Every row, last first, some twice: the finder's rows come in any order."""
    rows = np.arange(docs.n, dtype=np.int64)[::-1]
    return np.r_[rows, rows[:5]]


def test_row_terms_are_each_rows_own_terms_one_after_another(colt_index):
    docs = colt_index.docs
    rows = _rows_with_empty_ones(docs)
    for seq in (docs.title_seq, docs.abstract_seq, docs.keyword_seq):
        ids, row_ends = row_terms(seq, rows)
        by_hand = [seq.row(int(r)) for r in rows]
        assert ids.dtype == seq.indices.dtype
        assert ids.tolist() == np.concatenate(by_hand).tolist()
        assert row_ends.tolist() == np.cumsum([len(r) for r in by_hand]).tolist()
    assert any(len(docs.keyword_seq.row(r)) == 0 for r in range(docs.n))  # empty rows among them
    ids, row_ends = row_terms(docs.title_seq, np.zeros(0, dtype=np.int64))
    assert len(ids) == 0 and len(row_ends) == 0


def _query_keys(docs, vocab_size: int) -> np.ndarray:
    """The pairs of a long abstract and of every title: some held by many rows, some by one."""
    long_row = max(range(docs.n), key=lambda r: len(docs.abstract_seq.row(r)))
    keys = [pair_keys(docs.abstract_seq.row(long_row), vocab_size)]
    keys += [pair_keys(docs.title_seq.row(r), vocab_size) for r in range(0, docs.n, 3)]
    return np.unique(np.concatenate(keys))


def test_held_by_is_each_rows_own_pairs_counted_by_hand(colt_index):
    """Over titles, abstracts and abstracts with breaks (-1, which read a byte of the filter but
    never make a pair), every (row, query pair) a row holds, once, by row then pair."""
    docs = colt_index.docs
    vocab_size = int(colt_index.params["n_terms"])
    table = RarePairs.build((docs.title_seq, docs.abstract_seq), docs.n, vocab_size, 10 ** 6)
    query_keys = _query_keys(docs, vocab_size)
    sequences = (docs.title_seq, docs.abstract_seq, _with_breaks(docs.abstract_seq))
    rows = _rows_with_empty_ones(docs)
    held_rows, held_pair = table.held_by(sequences, rows, query_keys)
    position = {int(k): i for i, k in enumerate(query_keys)}
    expected = sorted({(r, position[k]) for r in rows.tolist() for seq in sequences
                       for k in pair_keys(seq.row(r), vocab_size).tolist() if k in position})
    assert list(zip(held_rows.tolist(), held_pair.tolist())) == expected
    assert len({r for r, _ in expected}) > docs.n // 2 and len(expected) > 2 * docs.n


def _with_breaks(seq: Sequences) -> Sequences:
    """The rows of `seq` with every fifth term a break (-1), as keyword sequences hold them."""
    indices = np.array(seq.indices)
    indices[::5] = -1
    return Sequences(np.asarray(seq.indptr), indices)


def test_a_break_beside_a_term_never_makes_a_pair():
    """A break id (-2 here) reads the byte of the vocabulary's last term, which ends a query
    pair: [7, -2] would key as the pair (6, vocab - 2) were both ids not checked."""
    vocab_size = 10
    table = RarePairs(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), vocab_size, 1, 1)
    query_keys = np.array(sorted([6 * vocab_size + 8, 7 * vocab_size + 9]), dtype=np.int64)
    seq = Sequences(np.array([0, 2, 4], dtype=np.int64), np.array([7, -2, 7, 9], dtype=np.int32))
    held_rows, held_pair = table.held_by((seq,), np.array([0, 1], dtype=np.int64), query_keys)
    assert held_rows.tolist() == [1] and held_pair.tolist() == [1]


def test_held_by_keys_no_int64_pair_of_every_word(colt_index):
    """The text route asks for 5,000 papers' pairs per query: main made every word's row,
    position, id and key as int64 side by side (50 bytes a word at the peak here, for one long
    abstract's pairs); now one int64 a word is made (the positions) besides the term ids and a
    byte or two (13 bytes a word)."""
    docs = colt_index.docs
    vocab_size = int(colt_index.params["n_terms"])
    sequences = (_tiled(docs.title_seq, 50), _tiled(docs.abstract_seq, 50))
    table = RarePairs(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), vocab_size, docs.n * 50, 1)
    long_row = max(range(docs.n), key=lambda r: len(docs.abstract_seq.row(r)))
    query_keys = np.unique(pair_keys(docs.abstract_seq.row(long_row), vocab_size))
    rows = np.arange(docs.n * 50, dtype=np.int64)
    words = int(sequences[1].indptr[-1])
    tracemalloc.start()
    try:
        held_rows, _ = table.held_by(sequences, rows, query_keys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(held_rows) >= 50  # the long abstract's own copies at least
    assert peak < 20 * words
