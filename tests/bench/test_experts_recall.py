"""bench.experts_recall's ranks: a relevant person's first place, a paper's rank among the eligible
ones, and people's profiles made only of papers before the query's year (a real index of two
COLT years; the vectors are random, as the profile's arithmetic does not depend on them)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.experts_recall import MISSING, centroids, first_rank, paper_rank, shares


def test_first_rank_is_the_first_relevant_place_or_missing():
    assert first_rank([5, 7, 9], {9, 7}) == 1
    assert first_rank(np.array([5, 7]), {3}) == MISSING
    assert first_rank([], {1}) == MISSING


def test_paper_rank_counts_only_eligible_papers_ahead_and_breaks_ties_by_row():
    scores = np.array([0.9, 0.5, 0.7, 0.5, 0.0])
    eligible = np.array([False, True, True, True, True])
    # row 0 scores best but may not count; row 2 is ahead of the relevant row 3, and so is row 1
    # (the same score, a lower row)
    assert paper_rank(scores, eligible, np.array([3])) == 2
    assert paper_rank(scores, eligible, np.array([1, 3])) == 1
    # an ineligible relevant paper is not found, however well it scores; nor is one scoring 0
    assert paper_rank(scores, eligible, np.array([0])) == MISSING
    assert paper_rank(scores, eligible, np.array([4])) == MISSING


def test_shares_count_queries_below_each_cut_and_found():
    s = shares([0, 50, 500, MISSING])
    assert s["<10"] == 0.25 and s["<100"] == 0.5 and s["<1000"] == 0.75 and s["found"] == 0.75


@pytest.fixture(scope="module")
def index(colt_two_years):
    backend = colt_two_years.searcher().backend()
    return backend.index.docs, backend.profiles()


def test_a_profile_is_made_of_papers_before_the_year_alone(index):
    docs, profiles = index
    years, work = np.asarray(docs.year, dtype=np.int64), np.asarray(docs.work, dtype=np.int64)
    vectors = np.random.default_rng(0).standard_normal((docs.n, 8)).astype(np.float32)
    has_vector = np.ones(docs.n, dtype=bool)
    both = [i for i in range(len(profiles.ids))
            if {2018, 2019} <= set(years[profiles.rows[profiles.indptr[i]:profiles.indptr[i + 1]]].tolist())]
    assert both, "the slice has people with papers in both years"
    person = both[0]
    rows = profiles.rows[profiles.indptr[person]:profiles.indptr[person + 1]].astype(np.int64)
    got = centroids(profiles, years, work, vectors, has_vector, 2019, 4.0)
    early = rows[years[rows] < 2019]
    expected = vectors[early].sum(axis=0)  # all of 2018: one age, one weight
    np.testing.assert_allclose(got.unit[person], expected / np.linalg.norm(expected), rtol=1e-5)
    assert got.works[person] == len(set(work[early].tolist())) < len(set(work[rows].tolist()))
    # with a paper of 2019 counted the profile would differ: the year itself never counts
    later = centroids(profiles, years, work, vectors, has_vector, 2020, 4.0)
    assert not np.allclose(later.unit[person], got.unit[person])
    # people with no paper before 2019 have no profile and no works
    only_later = [i for i in range(len(profiles.ids))
                  if years[profiles.rows[profiles.indptr[i]:profiles.indptr[i + 1]]].min() >= 2019]
    assert only_later and not got.works[only_later].any() and not got.unit[only_later].any()
    ranks = got.ranks(vectors[early[0]] / np.linalg.norm(vectors[early[0]]), min_works=1)
    assert (ranks[only_later] == MISSING).all() and ranks[got.works >= 1].min() == 0
