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

SEPARATOR = -2  # marks a keyword boundary in a mapped keyword sequence


@dataclass(frozen=True)
class RankWeights:
    """How much each feature adds to the BM25 score divided by the best candidate's."""

    title_match: float = 0.6  # (query covered by title) x (title covered by query), squared
    title_cover: float = 0.15  # query words found in the title, idf-weighted
    title_in_query: float = 0.2  # title words found in the query
    # the title is exactly the query's words: "Denoising Diffusion Probabilistic Models" is that
    # paper, not "Improved Denoising ..." whose keyword and citations otherwise win
    title_exact: float = 0.4
    coverage: float = 0.3  # query words found anywhere in the paper, idf-weighted
    proximity: float = 0.5  # query word pairs adjacent in title or abstract
    keyword: float = 0.5  # the query is exactly one of the paper's author keywords
    author: float = 0.6  # the paper is by a person the query names
    phrase: float = 0.3  # share of quoted phrases present, where quotes do not filter (descriptions)
    # the paper's standing (paperfind.index.paper_names) times its title's cover of the query,
    # for queries of a few words: which of several matching titles the field means. On the
    # bundled corpus (lexical): nickname dev R@1 .705 at 0.3, .716 at 0.6, .747 at 1.0; topical
    # nDCG@10 .161 without, .227, .226, .199; title_typo MRR .984 without, .995, .995, .985
    standing: float = 0.6


def top_order(rows: np.ndarray, relevance: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` best entries by (relevance desc, row asc), best first.

    The same as a full sort's first `k` (ties at the cut included), at the cost of a
    partition instead of a sort of every matching paper.
    """
    n = len(rows)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.lexsort((rows, -relevance))
    cut = np.partition(-relevance, k - 1)[k - 1]
    pool = np.flatnonzero(-relevance <= cut)
    return pool[np.lexsort((rows[pool], -relevance[pool]))][:k]


class GroupMap:
    """Query term codes (`SearchBackend.sequences`) → the query word (group) they stand for."""

    def __init__(self, groups: list[list[int]], idf: list[float], n_terms: int) -> None:
        self.n_groups = len(groups)
        self.idf = np.asarray(idf, dtype=np.float64)
        # the last two slots: OTHER_TERM (-1) and BOUNDARY (-2) read from the end
        self._table = np.full(n_terms + 2, -1, dtype=np.int32)
        self._table[-2] = SEPARATOR
        for g in reversed(range(len(groups))):  # a term shared by two words maps to the first
            for t in groups[g]:
                if 0 <= t < n_terms:
                    self._table[t] = g

    def lookup(self, seq: np.ndarray) -> np.ndarray:
        """Group number per element of `seq`, -1 where it is no query term, SEPARATOR at a
        keyword boundary."""
        if len(seq) == 0:
            return np.zeros(0, dtype=np.int32)
        return self._table[seq]


@dataclass
class Mapped:
    """One field's sequences of all candidates, concatenated and mapped to query groups."""

    groups: np.ndarray  # group per element (-1: other word, SEPARATOR: keyword boundary)
    owner: np.ndarray  # candidate number per element
    lengths: np.ndarray  # sequence length per candidate

    @classmethod
    def gather(cls, gm: GroupMap, seqs) -> "Mapped":
        """From one field's `TermSequences` of the candidates."""
        lengths = np.diff(seqs.indptr).astype(np.int64)
        owner = np.repeat(np.arange(len(lengths)), lengths)
        if int(lengths.sum()) == 0:
            return cls(np.zeros(0, dtype=np.int32), owner, lengths)
        return cls(gm.lookup(seqs.codes), owner, lengths)


def _group_bits(fields: list[Mapped], n: int) -> np.ndarray:
    """Per candidate, a bit mask of the query words (groups) it contains in any of `fields`."""
    bits = np.zeros(n, dtype=np.uint64)
    for m in fields:
        hit = m.groups >= 0
        np.bitwise_or.at(bits, m.owner[hit], np.left_shift(np.uint64(1), m.groups[hit].astype(np.uint64)))
    return bits


def idf_share(gm: GroupMap, fields: list[Mapped], n: int) -> np.ndarray:
    """Per candidate, the idf-weighted share of query words found in any of `fields`."""
    if gm.n_groups == 0:
        return np.zeros(n)
    bits = _group_bits(fields, n)
    present = (bits[:, None] >> np.arange(gm.n_groups, dtype=np.uint64)) & np.uint64(1)
    return present.astype(np.float64) @ gm.idf / (gm.idf.sum() or 1.0)


def title_in_query(title: Mapped, n: int) -> np.ndarray:
    """Per candidate, the share of its title terms that are query terms."""
    hit = title.groups >= 0
    return np.bincount(title.owner[hit], minlength=n) / np.maximum(title.lengths, 1)


def adjacent_pairs(gm: GroupMap, m: Mapped, n: int) -> np.ndarray:
    """Per candidate, how many distinct consecutive query word pairs occur side by side."""
    if gm.n_groups < 2 or len(m.groups) < 2:
        return np.zeros(n)
    a, b = m.groups[:-1], m.groups[1:]
    hit = (m.owner[:-1] == m.owner[1:]) & (a >= 0) & (b == a + 1)
    pairs = np.unique(m.owner[:-1][hit] * gm.n_groups + a[hit])
    return np.bincount(pairs // gm.n_groups, minlength=n).astype(np.float64)


def keyword_match(gm: GroupMap, keywords: Mapped, n: int) -> np.ndarray:
    """1 where one of the paper's keywords is exactly the query's words, in order."""
    out = np.zeros(n)
    if gm.n_groups == 0 or len(keywords.groups) == 0:
        return out
    target = list(range(gm.n_groups))
    groups, owner = keywords.groups, keywords.owner
    for i in np.unique(owner[groups >= 0]).tolist():
        current: list[int] = []
        for g in groups[owner == i].tolist() + [SEPARATOR]:
            if g == SEPARATOR:
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
