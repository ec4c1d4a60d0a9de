"""A field's (doc, term) entries summed into BM25 columns, a range of terms at a time.

Why by ranges: scipy's COO → CSC conversion of a whole field holds every entry several
times over (the coordinates and values given, the converted copy, the per-column sort), and
the text field of a million papers has ~170M entries: that conversion was the index build's
peak. A column's entries are the same whichever other columns are converted with it, and
each range gives scipy every column's entries in the same input order as the whole field
did, so scipy's per-column sort and its float32 sums of duplicates, and the files written,
are the same byte for byte; only a range's worth of entries is converted at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from paperfind.index.analysis import Ragged

BLOCK_ENTRIES = 1 << 24  # entries (with duplicates) converted at once: ~0.5 GB of scipy's copies

# (rows of one field, each doc's value of an entry there, or None for 1.0): what a column sums
Part = tuple[Ragged, np.ndarray | None]
# (df of each term of a range, entries' docs, entries' summed values) -> the entries' weights
Weigh = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def term_ranges(parts: list[Part], n_terms: int, block_entries: int = BLOCK_ENTRIES
                ) -> list[tuple[int, int]]:
    """Consecutive term ranges covering `[0, n_terms)`, each with at most `block_entries`
    entries over all parts (or a single term, however many it has)."""
    counts = np.zeros(n_terms, dtype=np.int64)
    for rows, _ in parts:
        counts += np.bincount(rows.ids, minlength=n_terms)[:n_terms]
    ends = np.cumsum(counts)
    ranges, start = [], 0
    while start < n_terms:
        before = int(ends[start - 1]) if start else 0
        stop = int(np.searchsorted(ends, before + block_entries, side="right"))
        stop = min(max(stop, start + 1), n_terms)
        ranges.append((start, stop))
        start = stop
    return ranges


def range_entries(parts: list[Part], start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of terms `[start, stop)`: docs, terms (less `start`) and values, part after
    part and, within a part, in its own order (the order the whole field's would have)."""
    docs, terms, values = [], [], []
    for rows, value in parts:
        at = np.flatnonzero((rows.ids >= start) & (rows.ids < stop))
        doc = (np.searchsorted(rows.indptr, at, side="right") - 1).astype(np.int32)
        docs.append(doc)
        terms.append(rows.ids[at] - np.int32(start))
        values.append(np.ones(len(at), dtype=np.float32) if value is None else value[doc])
    return np.concatenate(docs), np.concatenate(terms), np.concatenate(values)


def summed_blocks(parts: list[Part], n_docs: int, n_terms: int, block_entries: int = BLOCK_ENTRIES
                  ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Per term range: its first term, its columns' lengths (int32) and their docs (sorted
    within a column) and summed values, as scipy's CSC conversion of the whole field gives them."""
    import scipy.sparse as sp  # building only: a search never needs it (start-up of the CLI)

    for start, stop in term_ranges(parts, n_terms, block_entries):
        docs, terms, values = range_entries(parts, start, stop)
        block = sp.csc_matrix((values, (docs, terms)), shape=(n_docs, stop - start))
        del docs, terms, values
        block.sum_duplicates()
        block.sort_indices()
        yield start, np.diff(block.indptr).astype(np.int32), block.indices, block.data


def weighted_columns(parts: list[Part], n_docs: int, n_terms: int, weigh: Weigh,
                     block_entries: int = BLOCK_ENTRIES
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The CSC arrays of the summed entries weighted by `weigh`: indptr (int64), docs (int32),
    weights (float32) and each term's df (int32), written a range at a time into arrays sized
    for every entry (the duplicates' room is never touched, so never resident)."""
    total = sum(len(rows.ids) for rows, _ in parts)
    docs_out = np.empty(total, dtype=np.int32)
    weights_out = np.empty(total, dtype=np.float32)
    df = np.zeros(n_terms, dtype=np.int32)
    filled = 0
    for start, lengths, docs, sums in summed_blocks(parts, n_docs, n_terms, block_entries):
        df[start:start + len(lengths)] = lengths
        docs_out[filled:filled + len(docs)] = docs
        weights_out[filled:filled + len(docs)] = weigh(lengths, docs, sums)
        filled += len(docs)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return indptr, docs_out[:filled], weights_out[:filled], df
