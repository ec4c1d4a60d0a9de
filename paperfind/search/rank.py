"""Second-stage ranking of the top lexical candidates, with features BM25 cannot see.

BM25 treats a query as a bag of words. Users type titles (a near-exact title should win),
descriptions (words in the same order as the abstract's phrases matter), author keywords
(a paper tagged with exactly the query is on topic) and names (that person's papers). Each
feature is a share in [0, 1], computed for all candidates at once with array operations over
the candidates' stored term sequences, and added to the normalised BM25 score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RankWeights:
    """How much each feature adds to the BM25 score divided by the best candidate's."""

    title_match: float = 0.6  # (query covered by title) x (title covered by query), squared
    title_cover: float = 0.15  # query words found in the title, idf-weighted
    title_in_query: float = 0.2  # title words found in the query
    coverage: float = 0.3  # query words found anywhere in the paper, idf-weighted
    proximity: float = 0.5  # query word pairs adjacent in title or abstract
    keyword: float = 0.5  # the query is exactly one of the paper's author keywords
    author: float = 0.6  # the paper is by a person the query names


def _gather(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated sequences of `rows` and, per element, the candidate number it belongs to."""
    starts = np.asarray(indptr[rows], dtype=np.int64)
    lengths = np.asarray(indptr[rows + 1], dtype=np.int64) - starts
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(rows)), lengths)
    if total == 0:
        return np.zeros(0, dtype=np.int64), owner
    offsets = np.cumsum(lengths) - lengths
    pos = np.arange(total) - np.repeat(offsets, lengths) + np.repeat(starts, lengths)
    return np.asarray(indices[pos]), owner


@dataclass
class GroupMap:
    """Query term ids → the query word (group) they stand for."""

    term_ids: np.ndarray  # sorted
    group_of: np.ndarray  # aligned group numbers
    idf: np.ndarray  # per group
    n_groups: int

    @classmethod
    def build(cls, groups: list[list[int]], idf: list[float]) -> "GroupMap":
        pairs = {}
        for g, terms in enumerate(groups):
            for t in terms:
                if t >= 0:
                    pairs.setdefault(t, g)
        ids = np.asarray(sorted(pairs), dtype=np.int64)
        return cls(ids, np.asarray([pairs[t] for t in ids], dtype=np.int64),
                   np.asarray(idf, dtype=np.float64), len(groups))

    def lookup(self, seq: np.ndarray) -> np.ndarray:
        """Group number per element of `seq`, -1 where it is no query term."""
        if len(self.term_ids) == 0 or len(seq) == 0:
            return np.full(len(seq), -1, dtype=np.int64)
        pos = np.clip(np.searchsorted(self.term_ids, seq), 0, len(self.term_ids) - 1)
        return np.where(self.term_ids[pos] == seq, self.group_of[pos], -1)


def title_features(gm: GroupMap, indptr, indices, rows) -> tuple[np.ndarray, np.ndarray]:
    """(share of query idf found in the title, share of title terms that are query terms)."""
    seq, owner = _gather(indptr, indices, rows)
    groups = gm.lookup(seq)
    n = len(rows)
    lengths = np.bincount(owner, minlength=n).astype(np.float64)
    hit = groups >= 0
    title_in_query = np.bincount(owner[hit], minlength=n) / np.maximum(lengths, 1)
    pairs = np.unique(owner[hit] * max(gm.n_groups, 1) + groups[hit])
    total_idf = gm.idf.sum() or 1.0
    query_in_title = np.bincount(pairs // max(gm.n_groups, 1),
                                 weights=gm.idf[pairs % max(gm.n_groups, 1)], minlength=n) / total_idf
    return query_in_title, title_in_query


def coverage(gm: GroupMap, sequences: list[tuple[np.ndarray, np.ndarray]], rows) -> np.ndarray:
    """Per candidate, the idf-weighted share of query words found in any of the sequences."""
    n = len(rows)
    if gm.n_groups == 0:
        return np.zeros(n)
    found = []
    for indptr, indices in sequences:
        seq, owner = _gather(indptr, indices, rows)
        groups = gm.lookup(seq)
        hit = groups >= 0
        found.append(owner[hit] * gm.n_groups + groups[hit])
    pairs = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    return np.bincount(pairs // gm.n_groups, weights=gm.idf[pairs % gm.n_groups],
                       minlength=n) / (gm.idf.sum() or 1.0)


def adjacent_pairs(gm: GroupMap, indptr, indices, rows) -> np.ndarray:
    """Per candidate, how many distinct consecutive query word pairs occur side by side."""
    n = len(rows)
    if gm.n_groups < 2:
        return np.zeros(n)
    seq, owner = _gather(indptr, indices, rows)
    groups = gm.lookup(seq)
    if len(groups) < 2:
        return np.zeros(n)
    a, b = groups[:-1], groups[1:]
    same_doc = owner[:-1] == owner[1:]
    hit = same_doc & (a >= 0) & (b == a + 1)
    pairs = np.unique(owner[:-1][hit] * gm.n_groups + a[hit])
    return np.bincount(pairs // gm.n_groups, minlength=n).astype(np.float64)


def keyword_match(gm: GroupMap, indptr, indices, rows) -> np.ndarray:
    """1 where one of the paper's keywords is exactly the query's words, in order."""
    n = len(rows)
    out = np.zeros(n)
    if gm.n_groups == 0:
        return out
    seq, owner = _gather(indptr, indices, rows)
    if len(seq) == 0:
        return out
    groups = gm.lookup(seq)
    groups[seq < 0] = -2  # keyword separators
    target = list(range(gm.n_groups))
    for i in np.unique(owner[groups >= 0]):
        current: list[int] = []
        for g in groups[owner == i].tolist() + [-2]:
            if g == -2:
                if current == target:
                    out[i] = 1.0
                    break
                current = []
            else:
                current.append(g)
    return out


def phrase_present(terms: list[int], seqs: list[np.ndarray]) -> bool:
    """Whether `terms` occur consecutively in any of the sequences."""
    k = len(terms)
    if k == 0:
        return True
    for seq in seqs:
        s = np.asarray(seq)
        if len(s) < k:
            continue
        ok = s[: len(s) - k + 1] == terms[0]
        for j in range(1, k):
            ok &= s[j: len(s) - k + 1 + j] == terms[j]
        if ok.any():
            return True
    return False
