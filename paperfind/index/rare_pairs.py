"""Rare word pairs of the corpus: the signature phrases the expert finder matches people by.

People reuse their own wording: the two-word terms of their method, setting or data ("masked
image", "weak-to-strong generalisation") recur in their abstracts year after year, while the
many others whose papers match a topic as well write it their own way. A pair of consecutive
content stems (the index's own term sequences of titles and abstracts, stop words dropped)
that few papers of the corpus hold is such a signature; a query's rare pairs that a person's
earlier papers hold tell the query's authors from the crowd (paperfind.search.experts).

Derived from the index's sequences alone, so the table is rebuilt whenever the index is (and
follows papers added) and is never stale against its rows; made on first use, like the
person profiles, from every paper's distinct pairs (about 17M pairs at the bundled corpus, 110M
at a million papers), a block of rows at a time (`RarePairs.build`). Only pairs held by at most
`max_df` papers are kept, with their paper counts: a pair not in the table is either common or
unknown, and neither says who wrote a text. The finder's text route also weighs a paper by the
query's pairs it holds, common ones too (paperfind.search.expert_pairs): the server then makes
one table of every pair (`ExpertSettings.pairs_max_df`: 3.18M pairs, 38.1 MB at the bundled corpus, against
3.07M and 36.9 MB for pairs of <= 20 papers), and the phrases read its rare part.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from paperfind.index.distinct import distinct
from paperfind.index.doctable import Sequences


def pair_keys(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """The keys of the consecutive pairs of one term-id sequence (first * vocab + second);
    a pair with an unknown or break id (< 0) has none."""
    ids = np.asarray(ids, dtype=np.int64)
    if len(ids) < 2:
        return np.zeros(0, dtype=np.int64)
    first, second = ids[:-1], ids[1:]
    ok = (first >= 0) & (second >= 0)
    return first[ok] * vocab_size + second[ok]


def _row_pairs(seq: Sequences, rows: np.ndarray, vocab_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, pair key) of every consecutive pair within each of `rows`' sequences."""
    rows = np.asarray(rows, dtype=np.int64)
    # the rows' bounds and words taken first, then widened: the whole corpus's arrays never are
    starts = np.asarray(seq.indptr[rows], dtype=np.int64)
    ends = np.asarray(seq.indptr[rows + 1], dtype=np.int64)
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    positions = np.arange(total, dtype=np.int64) + np.repeat(starts - offsets, lengths)
    ids = np.asarray(seq.indices[positions], dtype=np.int64)
    owner = np.repeat(rows, lengths)
    # a pair is two neighbours of one row: the last word of a row has no pair
    last = np.zeros(total, dtype=bool)
    last[np.cumsum(lengths)[lengths > 0] - 1] = True
    ok = ~last[:-1] & (ids[:-1] >= 0) & (ids[1:] >= 0)
    return owner[:-1][ok], ids[:-1][ok] * vocab_size + ids[1:][ok]


ROWS_PER_BLOCK = 1 << 13  # papers whose pairs are made together (~0.9M pairs at 110 a paper)
COUNT_BLOCK = 1 << 22  # sorted pairs counted together


def _distinct_pairs(sequences: list[Sequences], rows: np.ndarray, vocab_size: int) -> np.ndarray:
    """The pair keys of `rows` (consecutive), each paper's distinct pairs once, in no set order."""
    owners, keys = [], []
    for seq in sequences:
        owner, key = _row_pairs(seq, rows, vocab_size)
        owners.append(owner)
        keys.append(key)
    owner, key = np.concatenate(owners), np.concatenate(keys)
    if not len(key):
        return key
    span = np.int64(len(rows))
    combined = key * span + (owner - rows[0])  # (pair, row) in order, a paper's repeats together
    return distinct(combined) // span


def _rare_counts(keys: np.ndarray, filled: int, max_df: int) -> tuple[np.ndarray, np.ndarray]:
    """(pairs, papers holding each) of the pairs in `keys[:filled]` (a pair once per paper)
    held at most `max_df` times, the pairs ascending. Sorts `keys[:filled]` in place, counts it a
    block of whole runs at a time and writes the rare pairs over its front: no copy of the
    corpus's pairs is made besides the result."""
    pairs = keys[:filled]
    pairs.sort()
    written, at = 0, 0
    counts = []
    while at < filled:
        end = min(at + COUNT_BLOCK, filled)
        if end < filled:  # a block ends with a pair's last paper
            end = int(np.searchsorted(pairs, pairs[end - 1], side="right"))
        block = pairs[at:end]
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        df = np.diff(np.r_[starts, len(block)])
        rare = df <= max_df
        found = block[starts[rare]]  # a copy: written below `at`, where counted pairs were
        pairs[written:written + len(found)] = found
        counts.append(df[rare].astype(np.int32))
        written += len(found)
        at = end
    return keys[:written].copy(), (np.concatenate(counts) if counts else np.zeros(0, dtype=np.int32))


@dataclass(frozen=True)
class RarePairs:
    """The corpus's word pairs held by at most `max_df` papers: `keys` sorted, `df` their counts."""

    keys: np.ndarray  # int64, sorted
    df: np.ndarray  # int32, papers holding the pair
    vocab_size: int
    n_docs: int
    max_df: int

    @classmethod
    def build(cls, sequences: Iterable[Sequences], n_docs: int, vocab_size: int,
              max_df: int, rows_per_block: int = ROWS_PER_BLOCK) -> "RarePairs":
        """From the index's term sequences (titles and abstracts): a paper counts a pair once.

        A block of `rows_per_block` rows at a time: its papers' distinct pairs go into one buffer
        of the corpus's pair count (int64), which is then sorted and counted in place. Made at
        once, every pair's row, position and key were widened to int64 side by side (~5 GB of
        a server's start-up at a million papers, its peak); a block's are a few MB."""
        sequences = list(sequences)
        capacity = sum(max(int(seq.indptr[n_docs]) - int(seq.indptr[0]) - 1, 0) for seq in sequences) \
            if n_docs else 0
        keys = np.empty(capacity, dtype=np.int64)  # every paper's distinct pairs, block by block
        filled = 0
        for start in range(0, n_docs, rows_per_block):
            rows = np.arange(start, min(start + rows_per_block, n_docs), dtype=np.int64)
            held = _distinct_pairs(sequences, rows, vocab_size)
            keys[filled:filled + len(held)] = held
            filled += len(held)
        return cls(*_rare_counts(keys, filled, max_df), vocab_size, n_docs, max_df)

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.df.nbytes)

    def rare_in(self, term_ids: np.ndarray, max_df: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(keys, idf) of the pairs a query's term-id sequence holds that at most `max_df` papers
        hold (the table's own bound when None), each once."""
        keys, df = self.counts_in(term_ids)
        rare = df <= (self.max_df if max_df is None else max_df)
        return keys[rare], np.log(max(self.n_docs, 1) / df[rare].astype(np.float64))

    def counts_in(self, term_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(keys, papers holding each) of the table's pairs a term-id sequence holds, each once."""
        keys = np.unique(pair_keys(term_ids, self.vocab_size))
        if not len(keys) or not len(self.keys):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[at] == keys
        return keys[found], self.df[at[found]]

    def held_by(self, sequences: Iterable[Sequences], rows: np.ndarray,
                query_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, index into `query_keys`) of each of the query's pairs (`query_keys` sorted)
        that a row of `rows` holds in one of `sequences`, each (row, pair) once, by row then pair.

        The text route asks this of its 5,000 papers per query (~900k words at the bundled
        corpus): making every pair's key of every word (int64 products, a search each) cost
        ~8 ms for a topic and ~16 ms for an abstract. Instead each word is looked up once in a
        byte per term (does it start / end one of the query's pairs), and only the neighbours
        where both hold are keyed and searched (bench/RESULTS.md, issue 30, exp30p)."""
        if not len(rows) or not len(query_keys):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.int64)
        role_of_term = _pair_roles(query_keys, self.vocab_size)
        owners, which = [], []
        for seq in sequences:
            ids, row_ends = row_terms(seq, rows)
            if len(ids) < 2:
                continue
            # a break or unknown id (< 0) reads some term's byte: the bytes only filter, the
            # key's own test below is exact
            role = np.take(role_of_term, ids)
            may_pair = role[1:] >> 1
            may_pair &= role[:-1]  # 1 where a word may start a pair its next word may end
            at = np.flatnonzero(may_pair.view(np.bool_))
            row = np.searchsorted(row_ends, at, side="right")
            within = at + 1 < row_ends[row]  # a row's last word has no pair
            at, row = at[within], row[within]
            first, second = ids[at].astype(np.int64), ids[at + 1].astype(np.int64)
            key = first * self.vocab_size + second
            found = np.minimum(np.searchsorted(query_keys, key), len(query_keys) - 1)
            hit = (query_keys[found] == key) & (first >= 0) & (second >= 0)
            owners.append(rows[row[hit]])
            which.append(found[hit])
        if not owners:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        owner, pair = np.concatenate(owners), np.concatenate(which)
        both = distinct(owner * np.int64(len(query_keys)) + pair)
        return both // len(query_keys), both % len(query_keys)


STARTS_A_PAIR, ENDS_A_PAIR = np.uint8(1), np.uint8(2)


def _pair_roles(query_keys: np.ndarray, vocab_size: int) -> np.ndarray:
    """Per term id (and one byte more, read by a break id -1): bit 1 if it starts one of the
    query's pairs, bit 2 if it ends one."""
    role = np.zeros(vocab_size + 1, dtype=np.uint8)
    role[query_keys // vocab_size] |= STARTS_A_PAIR
    role[query_keys % vocab_size] |= ENDS_A_PAIR
    return role


def row_terms(seq: Sequences, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`rows`' term ids one row after another (the sequences' own dtype) and where each row's
    ends among them (cumulative lengths). The positions are a running sum of steps (1 within a
    row, a jump between rows) made in place: one int64 a word, against an arange plus a repeat
    of every row's offset and their sum."""
    starts = np.asarray(seq.indptr[rows], dtype=np.int64)
    ends = np.asarray(seq.indptr[rows + 1], dtype=np.int64)
    row_ends = np.cumsum(ends - starts)
    total = int(row_ends[-1]) if len(row_ends) else 0
    if total == 0:
        return np.zeros(0, dtype=seq.indices.dtype), row_ends
    held = ends > starts
    starts, ends, firsts = starts[held], ends[held], row_ends[held] - (ends[held] - starts[held])
    step = np.ones(total, dtype=np.int64)
    step[0] = starts[0]
    step[firsts[1:]] = starts[1:] - ends[:-1] + 1  # from the last word of one row to the next's first
    return np.take(seq.indices, np.cumsum(step, out=step)), row_ends
