"""The BM25 columns made a range of terms at a time are byte for byte the whole-field ones."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from paperfind.index.analysis import Ragged
from paperfind.index.lexical import (FIELD_PARAMS, TEXT_FIELD_PARAMS, TEXT_K1, build_bm25f_matrix,
                                     build_field_matrix)
from paperfind.index.term_blocks import term_ranges


def _rows(seq, n: int) -> Ragged:
    rows = [seq.row(i) for i in range(n)]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    return Ragged(indptr, np.concatenate(rows).astype(np.int32))


def _fields(colt_index) -> dict[str, Ragged]:
    docs = colt_index.docs
    title, abstract = _rows(docs.title_seq, docs.n), _rows(docs.abstract_seq, docs.n)
    # keywords: every third abstract's first words, so a term is in a doc two or three times
    keywords = Ragged(title.indptr // 3, abstract.ids[:int(title.indptr[-1] // 3)])
    return {"title": title, "abstract": abstract, "keywords": keywords}


def _whole_field_bm25f(fields, n_terms):
    """What the build did before ranges: scipy's conversion of every entry at once."""
    docs, terms, data = [], [], []
    for name, (weight, b) in TEXT_FIELD_PARAMS.items():
        rows = fields[name]
        n = len(rows.indptr) - 1
        lengths = rows.lengths
        norm = weight / (1 - b + b * lengths / float(lengths.mean()))
        docs.append(np.repeat(np.arange(n, dtype=np.int32), lengths))
        terms.append(rows.ids)
        data.append(np.repeat(norm, lengths).astype(np.float32))
    tf = sp.csc_matrix((np.concatenate(data), (np.concatenate(docs), np.concatenate(terms))),
                       shape=(n, n_terms))
    tf.sum_duplicates()
    tf.sort_indices()
    df = np.diff(tf.indptr).astype(np.int32)
    idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
    weights = idf[np.repeat(np.arange(n_terms, dtype=np.int32), df)] * tf.data * (TEXT_K1 + 1) / (tf.data + TEXT_K1)
    return tf.indptr.astype(np.int64), tf.indices.astype(np.int32), weights.astype(np.float32), df


def _same_bytes(matrix, expected) -> None:
    for got, want in zip((matrix.indptr, matrix.indices, matrix.data, matrix.doc_freq), expected):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_bm25f_by_term_ranges_is_the_whole_field_conversion(colt_index):
    fields = _fields(colt_index)
    n_terms = colt_index.params["n_terms"]
    assert len(term_ranges([(r, None) for r in fields.values()], n_terms, 500)) > 20
    expected = _whole_field_bm25f(fields, n_terms)
    for block in (500, 37, 1 << 24):  # many ranges, ranges of a term or two, one range
        _same_bytes(build_bm25f_matrix(fields, n_terms, TEXT_FIELD_PARAMS, TEXT_K1, block_entries=block),
                    expected)


def test_field_matrix_by_term_ranges_is_the_whole_field_conversion(colt_index):
    rows = _fields(colt_index)["abstract"]  # terms repeated within a doc: counts above 1
    n, n_terms = len(rows.indptr) - 1, colt_index.params["n_terms"]
    k1, b = FIELD_PARAMS["abstract"]
    tf = sp.csc_matrix((np.ones(len(rows.ids), dtype=np.float32),
                        (np.repeat(np.arange(n, dtype=np.int32), rows.lengths), rows.ids)), shape=(n, n_terms))
    tf.sum_duplicates()
    tf.sort_indices()
    assert tf.data.max() > 1
    df = np.diff(tf.indptr).astype(np.int32)
    idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
    norm = (k1 * (1 - b + b * rows.lengths / float(rows.lengths.mean()))).astype(np.float32)
    weights = (idf[np.repeat(np.arange(n_terms, dtype=np.int32), df)] * tf.data * (k1 + 1)
               / (tf.data + norm[tf.indices]))
    for block in (200, 3):
        _same_bytes(build_field_matrix(rows, n_terms, k1, b, block_entries=block),
                    (tf.indptr.astype(np.int64), tf.indices.astype(np.int32), weights.astype(np.float32), df))


def test_term_ranges_cover_every_term_once_within_the_bound():
    rows = Ragged(np.array([0, 4, 9], dtype=np.int64), np.array([0, 0, 0, 1, 2, 3, 3, 5, 5], dtype=np.int32))
    ranges = term_ranges([(rows, None)], 7, 2)
    assert ranges[0][0] == 0 and ranges[-1][1] == 7
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    counts = np.bincount(rows.ids, minlength=7)
    for start, stop in ranges:  # at most 2 entries, unless a single term has more
        assert counts[start:stop].sum() <= 2 or stop - start == 1
    assert (0, 1) in ranges and term_ranges([(rows, None)], 0, 2) == []
