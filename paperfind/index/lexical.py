"""Per-field BM25 matrices: the lexical retrieval core.

Why our own scorer: SQLite FTS5 needs hundreds of ms to rank an OR query over 88k abstracts
(../shared/notes/engines.md). Precomputing every (doc, term) BM25 weight per field, as bm25s
does, turns a query into a sum of a few sparse columns, a few ms even for long questions.
Columns are stored CSC-style (`indptr` over terms, doc rows in `indices`, weights in `data`),
memory-mapped from .npy files.

Rows are papers sorted by key, so "ties broken by key" is "ties broken by row".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperfind.index.analysis import Ragged, ragged
from paperfind.index.distinct import distinct
from paperfind.index.kernels import ColumnAdder
from paperfind.index.strings import StringTable, load_array
from paperfind.index.term_blocks import BLOCK_ENTRIES, weighted_columns

# field -> (k1, b). Titles and names are short and their length says little about relevance.
FIELD_PARAMS: dict[str, tuple[float, float]] = {
    "title": (1.2, 0.3),
    "abstract": (1.2, 0.75),
    "keywords": (1.2, 0.3),
    "authors": (1.2, 0.1),
    "venue": (1.2, 0.0),
}
# "text": BM25F over title + abstract + keywords: (weight, b) per field, one k1. Summing
# per-field BM25 scores saturates each field separately and over-rewards a word found in
# several fields; BM25F adds the length-normalised frequencies first, then saturates once.
TEXT_FIELD_PARAMS: dict[str, tuple[float, float]] = {
    "title": (3.0, 0.3),
    "abstract": (1.0, 0.75),
    "keywords": (1.5, 0.3),
}
TEXT_K1 = 1.2
ALL_FIELDS = tuple(FIELD_PARAMS) + ("text",)
MAX_SCORED_GROUPS = 64  # query words per search (one bit each in the match mask)
# a group whose shorter columns hold at least this share of the rows in docs is counted by
# fractions and one ceiling over the rows, not a sort (`count_union_by_ceiling`): ~2,000 docs
# at 1M papers, where the two cost the same on real columns (bench/RESULTS.md, big33h: 0.2 ms
# with a longest column of 20k-200k docs; at 64k shorter docs 2.9 ms by the sort, 0.36 by this)
UNION_BY_CEILING_SHARE = 1 / 512
MAX_CEILING_COLUMNS = 1 << 16  # 7 bits of count and 16 of fraction in float32's 24
TEXT_FIELDS = ("title", "abstract", "keywords")  # stemmed terms
NAME_FIELDS = ("authors", "venue")  # folded, unstemmed words


@dataclass
class FieldMatrix:
    """One field's BM25 weights, column-major: the docs and weights of term t are
    `indices[indptr[t]:indptr[t+1]]`, `data[...]`."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    doc_freq: np.ndarray

    def column(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = int(self.indptr[term]), int(self.indptr[term + 1])
        return self.indices[start:end], self.data[start:end]


def build_field_matrix(rows: list[list[int]] | Ragged, n_terms: int, k1: float, b: float,
                       lengths: np.ndarray | None = None,
                       block_entries: int = BLOCK_ENTRIES) -> FieldMatrix:
    """BM25 weights (Lucene idf) for one field from each doc's term-id list.

    `lengths` (default: the lists' lengths) is what length normalisation sees: added terms
    such as the joined stem of a hyphenated word must not make a paper count as longer.
    The columns are made a range of terms at a time (paperfind.index.term_blocks)."""
    rows = rows if isinstance(rows, Ragged) else ragged(rows)
    n_docs = len(rows.indptr) - 1
    lengths = rows.lengths if lengths is None else lengths
    avgdl = float(lengths.mean()) if n_docs and lengths.sum() else 1.0
    norm = (k1 * (1 - b + b * lengths / avgdl)).astype(np.float32)

    def weigh(df: np.ndarray, docs: np.ndarray, counts: np.ndarray) -> np.ndarray:
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        terms_of_entry = np.repeat(np.arange(len(df), dtype=np.int32), df)  # 4 bytes an entry
        return idf[terms_of_entry] * counts * (k1 + 1) / (counts + norm[docs])

    return FieldMatrix(*weighted_columns([(rows, None)], n_docs, n_terms, weigh, block_entries))


def build_bm25f_matrix(field_rows: dict[str, list[list[int]] | Ragged], n_terms: int,
                       params: dict[str, tuple[float, float]], k1: float,
                       field_lengths: dict[str, np.ndarray] | None = None,
                       block_entries: int = BLOCK_ENTRIES) -> FieldMatrix:
    """One BM25F matrix over several fields: weighted, length-normalised tf summed, then
    saturated; a range of terms at a time (paperfind.index.term_blocks)."""
    parts = []
    n_docs = 0
    for name, (weight, b) in params.items():
        rows = field_rows[name]
        rows = rows if isinstance(rows, Ragged) else ragged(rows)
        n_docs = len(rows.indptr) - 1
        lengths = (field_lengths or {}).get(name, rows.lengths)
        avgdl = float(lengths.mean()) if n_docs and lengths.sum() else 1.0
        norm = weight / (1 - b + b * lengths / avgdl)
        parts.append((rows, np.asarray(norm).astype(np.float32)))

    def weigh(df: np.ndarray, docs: np.ndarray, tf: np.ndarray) -> np.ndarray:
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        return idf[np.repeat(np.arange(len(df), dtype=np.int32), df)] * tf * (k1 + 1) / (tf + k1)

    return FieldMatrix(*weighted_columns(parts, n_docs, n_terms, weigh, block_entries))


class LexicalIndex:
    """The vocabulary plus one `FieldMatrix` per field; scores weighted term queries."""

    def __init__(self, vocab: StringTable, fields: dict[str, FieldMatrix], n_docs: int) -> None:
        self.vocab = vocab
        self.fields = fields
        self.n_docs = n_docs
        self.adder = ColumnAdder()  # compiled once `load_kernel()` ran (paperfind.index.kernels)
        self.union_by_ceiling_share = UNION_BY_CEILING_SHARE  # `_count_group`'s choice

    def load_kernel(self) -> bool:
        """Score with the compiled column kernel from now on (a server's warm-up)."""
        return self.adder.load()

    def term_id(self, term: str) -> int:
        return self.vocab.find(term)

    def doc_freq(self, field: str, term_id: int) -> int:
        return int(self.fields[field].doc_freq[term_id]) if term_id >= 0 else 0

    def score(self, groups: list[list[tuple[str, int, float]]],
              mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Sum the weighted columns of each group of (field, term id, boost).

        A group is one query word with its alternatives (typo corrections, other fields);
        the second array counts, per doc, how many groups matched at all, for
        minimum-should-match. `mask` (bool per doc) zeroes filtered-out docs.
        """
        return self.score_columns(self.group_columns(groups), mask)

    def score_columns(self, group_columns: list[list[tuple[np.ndarray, np.ndarray, float]]],
                      mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """`score` of the groups' columns as `group_columns` gives them (read once by a caller
        that also needs their lengths, paperfind.index.scored)."""
        scores = np.zeros(self.n_docs, dtype=np.float32)
        counts = np.zeros(self.n_docs, dtype=np.float32)  # groups matched (small whole numbers)
        for columns in group_columns:
            for docs, weights, boost in columns:
                self.adder.add(scores, docs, weights, boost)
            self._count_group(counts, [docs for docs, _, _ in columns])
        matched = counts.astype(np.int16)
        if mask is not None:
            scores[~mask] = 0
            matched[~mask] = 0
        return scores, matched

    def group_columns(self, groups: list[list[tuple[str, int, float]]]
                      ) -> list[list[tuple[np.ndarray, np.ndarray, float]]]:
        """Per group (the first `MAX_SCORED_GROUPS`), its non-empty columns as (docs, weights,
        boost), in the group's order: what `score` adds, and what a look-up of a few rows
        (paperfind.index.retrieval) reads in the same order."""
        out = []
        for group in groups[:MAX_SCORED_GROUPS]:
            cols = []
            for field, term, boost in group:
                if term < 0 or boost <= 0:
                    continue
                docs, weights = self.fields[field].column(term)
                if len(docs):
                    cols.append((docs, weights, boost))
            out.append(cols)
        return out

    def _count_group(self, counts: np.ndarray, columns: list[np.ndarray]) -> None:
        """One more for every doc in any of a group's columns (a doc in two counts once): by
        a sort while the shorter columns hold few docs, else by fractions (`count_union_*`)."""
        if not columns:
            return
        columns = sorted(columns, key=len)
        if len(columns) == 1:
            self.adder.count(counts, columns[0])
        elif (sum(len(c) for c in columns[:-1]) >= self.union_by_ceiling_share * len(counts)
              and len(columns) <= MAX_CEILING_COLUMNS):
            count_union_by_ceiling(self.adder, counts, columns)
        else:
            count_union_by_sort(self.adder, counts, columns)

    # -- persistence ------------------------------------------------------------------------
    def save(self, root: Path) -> None:
        for name, fm in self.fields.items():
            np.save(root / f"field.{name}.indptr.npy", fm.indptr)
            np.save(root / f"field.{name}.indices.npy", fm.indices)
            np.save(root / f"field.{name}.data.npy", fm.data)
            np.save(root / f"field.{name}.df.npy", fm.doc_freq)

    @classmethod
    def load(cls, root: Path, n_docs: int) -> "LexicalIndex":
        vocab = StringTable.load(root, "vocab")
        fields = {}
        for name in ALL_FIELDS:
            fields[name] = FieldMatrix(
                load_array(root / f"field.{name}.indptr.npy"),
                load_array(root / f"field.{name}.indices.npy"),
                load_array(root / f"field.{name}.data.npy"),
                load_array(root / f"field.{name}.df.npy"))
        return cls(vocab, fields, n_docs)


def count_union_by_sort(adder: ColumnAdder, counts: np.ndarray, columns: list[np.ndarray]) -> None:
    """`counts` + 1 at every doc of `columns` (ascending docs each, the longest last): the
    longest counted by the kernel, the shorter ones' docs it lacks found by a sort and a
    search (cheap for a few docs; 64k of them took ~2.9 ms at 1M papers)."""
    longest = columns[-1]
    adder.count(counts, longest)
    others = distinct(np.concatenate(columns[:-1]))
    at = np.searchsorted(longest, others)
    at[at == len(longest)] = 0
    counts[others[longest[at] != others]] += 1


def count_union_by_ceiling(adder: ColumnAdder, counts: np.ndarray, columns: list[np.ndarray]) -> None:
    """`counts` + 1 at every doc of `columns`, where `counts` holds whole numbers: every column
    adds 1/2^b (2^b >= the columns) by the kernel, so a doc of any column holds a fraction in
    (0, 1] above its whole count, then one ceiling over every row (~0.1 ms at 1M papers) makes
    it one more (64k shorter docs: ~0.36 ms at 1M). Exact in float32 while counts (<= 64: 7
    bits) and the fraction (b bits) fit its 24 bits: up to MAX_CEILING_COLUMNS columns."""
    step = 0.5 ** max(1, (len(columns) - 1).bit_length())
    for docs in columns:
        adder.count(counts, docs, step)
    np.ceil(counts, out=counts)


def idf(n_docs: int, df: int) -> float:
    return math.log1p((n_docs - df + 0.5) / (df + 0.5))
