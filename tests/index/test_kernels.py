"""The compiled column kernel scores as numpy's indexing does, bit for bit, on real queries
(paperfind.index.kernels), and both as the obvious reference: a dense scatter per column and
one bit per group."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.index.lexical import MAX_SCORED_GROUPS, LexicalIndex


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
