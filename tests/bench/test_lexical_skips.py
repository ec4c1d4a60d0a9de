"""bench.lexical_skips: MaxScore's split never leaves out a paper of the true top k, and the
look-up paths it times give the exhaustive scoring's answer, on a real slice (COLT 2019)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.lexical_skips import (by_lookups, column_maxima, counted_rows, exhaustive, kth_best,
                                 non_essential, pool_size, require_built, skips)
from paperfind.search.rank import top_order
from tests.index.conftest import colt_index, colt_store  # noqa: F401  (the slice's fixtures)
from tests.index.test_kernels import title_queries


def _top(rows: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    return rows[top_order(rows, scores, k)] if len(rows) > k else rows


def _queries(index) -> list:
    """Title-word queries, and one word every paper has with the same weight (the venue: BM25
    with b = 0), where the k-th best ties with the column's maximum."""
    venue = index.lexical.term_id("colt")
    assert venue >= 0
    return title_queries(index, 30) + [[[("venue", venue, 1.0)]],
                                       [[("venue", venue, 1.0)], [("text", venue, 0.5)]]]


def test_no_paper_of_the_top_k_is_only_in_non_essential_columns(colt_index) -> None:  # noqa: F811
    lex = colt_index.lexical
    checked = 0
    for groups in _queries(colt_index):
        for k in (1, 5, 20):
            rows, scores, _ = exhaustive(lex, groups, 1, None)
            columns = column_maxima(lex, groups)
            skipped = set(non_essential(columns, kth_best(scores, k)))
            essential = [docs for i, (docs, _, _) in
                         enumerate(c for cols in lex.group_columns(groups) for c in cols) if i not in skipped]
            kept = np.unique(np.concatenate(essential)) if essential else np.zeros(0, dtype=np.int64)
            assert np.isin(_top(rows, scores, k), kept).all(), (groups, k)
            checked += len(skipped) > 0
    assert checked  # some queries had columns to skip


def test_the_tied_column_is_never_skipped(colt_index) -> None:  # noqa: F811
    """Every paper scores the venue column's maximum: at θ equal to it nothing can be skipped."""
    lex = colt_index.lexical
    groups = _queries(colt_index)[-2]
    _, scores, _ = exhaustive(lex, groups, 1, None)
    assert kth_best(scores, 5) == column_maxima(lex, groups)[0][1]
    assert non_essential(column_maxima(lex, groups), kth_best(scores, 5)) == []


def test_lookup_paths_answer_as_the_exhaustive_scoring(colt_index) -> None:  # noqa: F811
    lex = colt_index.lexical
    mask = np.zeros(lex.n_docs, dtype=bool)
    mask[::3] = True
    for groups in title_queries(colt_index, 20):
        for min_match in (1, 2, 3):
            for restriction in (None, mask):
                want = exhaustive(lex, groups, min_match, restriction)
                assert np.array_equal(counted_rows(lex, groups, min_match, restriction), want[0])
                for looked_up in range(min_match):
                    got = by_lookups(lex, groups, min_match, restriction, looked_up)
                    assert all(np.array_equal(a, b) for a, b in zip(want, got)), (min_match, looked_up)


def test_skips_counts_what_the_request_reads(colt_index) -> None:  # noqa: F811
    lex = colt_index.lexical
    groups = title_queries(colt_index, 20)[3]
    s = skips(lex, groups, 2, None, 200)
    assert s.postings == sum(n for n, _ in column_maxima(lex, groups))
    assert s.matches == len(exhaustive(lex, groups, 2, None)[0])
    assert 0 < s.msm_unread < s.postings and s.maxscore_skipped <= s.page_skipped <= s.postings
    assert pool_size() >= 2000 and pool_size(5000) == 10000


def test_a_database_without_its_index_is_refused_not_built(tmp_path) -> None:
    with pytest.raises(SystemExit, match="only reads"):
        require_built(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()
