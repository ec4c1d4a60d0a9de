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

from paperfind.index.best import best_positions

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


# `top_order` cuts a set of at least this many k at a threshold read from a strided sample of
# ~8·k of its entries: a pass over the set instead of a partition of it
SAMPLED_CUT_MIN_SETS = 16
SAMPLED_CUT_SPARE = 2  # the threshold leaves ~this many k above it, so it rarely falls short


def top_order(rows: np.ndarray, relevance: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` best entries by (relevance desc, row asc), best first.

    The same as a full sort's first `k` (ties at the cut included), at the cost of a
    partition instead of a sort of every matching paper; for a large set (a broad query's
    200k matches at a million papers, where the partition took ~1.3 ms), of one pass
    (`_sampled_cut`).
    """
    n = len(rows)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.lexsort((rows, -relevance))
    if n >= SAMPLED_CUT_MIN_SETS * k:
        pool = _sampled_cut(relevance, k)
        if pool is not None:
            return pool[np.lexsort((rows[pool], -relevance[pool]))][:k]
    negated = -relevance  # once: a broad query's 50k matches were negated twice
    cut = np.partition(negated, k - 1)[k - 1]
    pool = np.flatnonzero(negated <= cut)
    return pool[np.lexsort((rows[pool], negated[pool]))][:k]


def top_set(rows: np.ndarray, relevance: np.ndarray, k: int) -> np.ndarray:
    """The positions of `top_order(rows, relevance, k)`, ascending: the same `k` best entries,
    ties at the cut by row, not put in order. A caller that keeps them in row order (the
    engine's candidates) skipped the order's sort of the ~2k kept entries by two keys: ~0.1-0.15
    ms of a broad query's 50-80k matches at the bundled corpus (bench/RESULTS.md, lat34)."""
    n = len(rows)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    pool = _sampled_cut(relevance, k) if n >= SAMPLED_CUT_MIN_SETS * k else None
    if pool is None:
        return best_positions(relevance, k, rows)
    return pool[best_positions(relevance[pool], k, rows[pool])]


def _sampled_cut(relevance: np.ndarray, k: int) -> np.ndarray | None:
    """The positions of the entries at or above a threshold that at least `k` reach, or None
    when the threshold read from a strided sample leaves fewer (the caller partitions then).

    Every entry left out is below the threshold and so below each of the >= k kept: the best
    `k` are among the kept, whatever the sample, so the answer is the partition's. The
    sample (every `step`-th entry, no randomness) puts the threshold near the
    SAMPLED_CUT_SPARE·k-th best."""
    step = len(relevance) // (8 * k)
    sample = relevance[::step]
    above = -(-SAMPLED_CUT_SPARE * k // step)  # sample entries expected at or above it
    if above >= len(sample):
        return None
    threshold = np.partition(sample, len(sample) - above)[len(sample) - above]
    pool = np.flatnonzero(relevance >= threshold)
    return pool if len(pool) >= k else None


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


def _present(fields: list[Mapped], n: int, n_groups: int) -> np.ndarray:
    """Per candidate and query word (group), whether any of `fields` holds it: an n x n_groups
    bool array, set by one indexed write per field (a bit mask per candidate by
    `np.bitwise_or.at` took ~3x as long: numpy's `ufunc.at` is a Python-speed loop)."""
    present = np.zeros(n * n_groups, dtype=bool)
    for m in fields:
        hit = m.groups >= 0
        present[m.owner[hit] * n_groups + m.groups[hit]] = True
    return present.reshape(n, n_groups)


def idf_share(gm: GroupMap, fields: list[Mapped], n: int) -> np.ndarray:
    """Per candidate, the idf-weighted share of query words found in any of `fields`."""
    if gm.n_groups == 0:
        return np.zeros(n)
    present = _present(fields, n, gm.n_groups)
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
    # each (candidate, pair) once: flagged in a candidates x words table, then counted per
    # candidate (a sort of the pairs by `np.unique` was ~1.3% of a served lexical search)
    seen = np.zeros(n * gm.n_groups, dtype=bool)
    seen[m.owner[:-1][hit] * gm.n_groups + a[hit]] = True
    return np.count_nonzero(seen.reshape(n, gm.n_groups), axis=1).astype(np.float64)


def keyword_match(gm: GroupMap, keywords: Mapped, n: int) -> np.ndarray:
    """1 where one of the paper's keywords is exactly the query's words, in order.

    A keyword is a run of a candidate's sequence between separators; it is the query when it
    is n_groups words long and its i-th word is group i. Found for every run at once (a run
    per candidate in a Python loop cost ~0.15 ms a query)."""
    out = np.zeros(n)
    groups, owner = keywords.groups, keywords.owner
    if gm.n_groups == 0 or len(groups) == 0:
        return out
    separator = groups == SEPARATOR
    starts = np.ones(len(groups), dtype=bool)  # a run begins after a separator or a candidate's end
    starts[1:] = separator[:-1] | (owner[1:] != owner[:-1])
    first = np.flatnonzero(starts)
    run = np.cumsum(starts) - 1
    words = ~separator
    run_of = run[words]
    in_place = groups[words] == np.flatnonzero(words) - first[run_of]  # word i of its run is group i
    length = np.bincount(run_of, minlength=len(first))
    misplaced = np.bincount(run_of[~in_place], minlength=len(first))
    out[owner[first[(length == gm.n_groups) & (misplaced == 0)]]] = 1.0
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
