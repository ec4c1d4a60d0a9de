"""The compiled column kernel scores as numpy's indexing does, bit for bit, on real queries
(paperfind.index.kernels), and both as the obvious reference: a dense scatter per column and
one bit per group."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.index.lexical import (
    MAX_SCORED_GROUPS, UNION_BY_CEILING_SHARE, LexicalIndex, count_union_by_ceiling, count_union_by_sort)


def reference_score(lex: LexicalIndex, groups) -> tuple[np.ndarray, np.ndarray]:
    """The scorer as it was before the kernel: float32 adds column by column, a bit per group."""
    scores = np.zeros(lex.n_docs, dtype=np.float32)
    bits = np.zeros(lex.n_docs, dtype=np.uint64)
    for g, group in enumerate(groups[:MAX_SCORED_GROUPS]):
        for field, term, boost in group:
            if term < 0 or boost <= 0:
                continue
            docs, weights = lex.fields[field].column(term)
            scores[docs] += weights if boost == 1.0 else weights * np.float32(boost)
            bits[docs] |= np.uint64(1 << g)
    return scores, np.bitwise_count(bits).astype(np.int16)


def title_queries(index, n: int = 60) -> list[list[list[tuple[str, int, float]]]]:
    """Queries made of real titles' words, each word a group of several fields (so one paper is
    often in two columns of a group) with the boosts the planner gives, plus an unknown term."""
    seq = index.docs.title_seq
    out = []
    for row in range(0, index.docs.n, max(1, index.docs.n // n))[:n]:
        terms = [int(t) for t in seq.row(row) if t >= 0][:12]
        out.append([[("text", t, 1.0), ("title", t, 0.5), ("abstract", t, 0.3), ("authors", t, 0.5),
                     ("venue", -1, 0.2)] for t in terms])
    return out


@pytest.fixture
def lexical(colt_index):
    lex = colt_index.lexical
    yield lex
    lex.adder._matvec = None  # the session's index: leave it as numpy's for the other tests


def test_kernel_scores_as_numpy_bit_for_bit(colt_index, lexical):
    queries = title_queries(colt_index)
    assert len(queries) >= 40
    numpy_side = [lexical.score(q) for q in queries]
    assert not lexical.adder.compiled
    assert lexical.load_kernel() and lexical.adder.compiled
    for q, (scores, matched) in zip(queries, numpy_side):
        fast_scores, fast_matched = lexical.score(q)
        ref_scores, ref_matched = reference_score(lexical, q)
        assert np.array_equal(fast_scores, scores) and np.array_equal(fast_scores, ref_scores)
        assert np.array_equal(fast_matched, matched) and np.array_equal(fast_matched, ref_matched)
        assert matched.max() >= 2  # several groups of a title match its own paper


def test_a_paper_in_two_columns_of_a_group_counts_once(colt_index, lexical):
    lexical.load_kernel()
    term = lexical.term_id("learn")
    text_docs = lexical.fields["text"].column(term)[0]
    title_docs = lexical.fields["title"].column(term)[0]
    assert len(np.intersect1d(text_docs, title_docs))  # papers in both columns
    _, matched = lexical.score([[("text", term, 1.0), ("title", term, 1.0)]])
    assert matched.max() == 1 and matched[np.union1d(text_docs, title_docs)].min() == 1


def alternatives_queries(index, n: int = 20) -> list[list[list[tuple[str, int, float]]]]:
    """Queries whose groups hold many alternatives (a Chinese word's senses, a typo's
    corrections): each group a run of 2-9 words of an abstract in the text and abstract
    fields, so the shorter columns share many papers with the longest and lack others."""
    seq = index.docs.abstract_seq
    out = []
    for row in range(0, index.docs.n, max(1, index.docs.n // n))[:n]:
        terms = list(dict.fromkeys(int(t) for t in seq.row(row) if t >= 0))[:40]
        groups, at, width = [], 0, 2
        while at < len(terms):
            run = terms[at:at + width]
            groups.append([(f, t, 0.6) for t in run for f in ("text", "abstract")])
            at, width = at + width, width % 9 + 1
        out.append(groups)
    return out


@pytest.mark.parametrize("share", [0.0, float("inf")])
@pytest.mark.parametrize("compiled", [False, True])
def test_a_groups_union_counted_by_fractions_or_by_a_sort_is_each_paper_once(
        colt_index, lexical, share, compiled):
    """A group's shorter columns counted by fractions and a ceiling (share 0: always) or by a
    sort and a search (inf: never): the same whole counts as one bit per group, and the same
    scores."""
    if compiled:
        assert lexical.load_kernel()
    lexical.union_by_ceiling_share = share
    try:
        queries = title_queries(colt_index) + alternatives_queries(colt_index)
        assert max(len(c) for q in queries for c in lexical.group_columns(q)) >= 9
        for q in queries:
            scores, matched = lexical.score(q)
            ref_scores, ref_matched = reference_score(lexical, q)
            assert np.array_equal(matched, ref_matched) and np.array_equal(scores, ref_scores)
    finally:
        lexical.union_by_ceiling_share = UNION_BY_CEILING_SHARE


@pytest.mark.parametrize("compiled", [False, True])
def test_each_way_of_counting_a_union_adds_one_per_paper(colt_index, lexical, compiled):
    """`count_union_by_ceiling` and `count_union_by_sort` on real groups' columns (2-18 of
    them), over counts that already hold whole numbers: one more at each paper of the union,
    nothing elsewhere."""
    if compiled:
        assert lexical.load_kernel()
    rng = np.random.default_rng(3)
    before = rng.integers(0, 40, lexical.n_docs).astype(np.float32)
    tried = 0
    for q in alternatives_queries(colt_index):
        for columns in lexical.group_columns(q):
            docs = sorted((d for d, _, _ in columns), key=len)
            if len(docs) < 2:
                continue
            expected = before.copy()
            expected[np.unique(np.concatenate(docs))] += 1
            for count in (count_union_by_ceiling, count_union_by_sort):
                counts = before.copy()
                count(lexical.adder, counts, docs)
                assert np.array_equal(counts, expected), count.__name__
            tried += 1
    assert tried >= 20
