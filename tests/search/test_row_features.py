"""The query's per-row features kept across the ranking (issue 33) equal those computed afresh."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.backend import CandidateRequest
from paperfind.search.filters import Filters
from paperfind.search.learned import FEATURES, FirstStage, candidate_features
from paperfind.search.pool import Pool
from paperfind.search.query import parse_query
from paperfind.search.row_features import QueryFeatures
from paperfind.search.second_stage import features, query_terms

QUERIES = ["a robot learns to grasp objects from demonstrations",
           "regret bounds for online convex optimization",
           "adversarial examples"]


def _candidates(searcher, text: str):
    backend = searcher.backend()
    query = searcher._read(backend, parse_query(text), Filters(), "lexical")
    found = backend.candidates(CandidateRequest(query.plan.lexical(), query.restriction, 1, 200))
    order = np.lexsort((found.handles, -found.scores))
    return backend, query.plan, found.handles[order], found.scores[order].astype(np.float64)


def _equal(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("text", QUERIES)
def test_kept_rows_equal_fresh_ones_whatever_rows_came_first(searcher, text):
    backend, plan, handles, _ = _candidates(searcher, text)
    assert len(handles) > 20
    terms = query_terms(plan)
    memo = QueryFeatures(backend, plan, terms, searcher.settings.max_people)
    memo.prepare(handles[:10])  # the leaders first, as while the vector is made
    later = np.concatenate([handles[15:3:-1], handles[-5:]])  # some held, some not, reordered
    _equal(memo.second_stage(later), features(backend, plan, terms, later, searcher.settings.max_people))
    lexical, matched = backend.scores(plan.lexical(), later)
    got = memo.lexical_scores(later)
    np.testing.assert_array_equal(got["bm25f"], lexical)
    np.testing.assert_array_equal(got["matched"], matched)
    for field in ("title", "abstract"):
        groups = [[(field, s, w) for s, w in g.stems] for g in plan.groups]
        np.testing.assert_array_equal(got[f"bm25_{field}"], backend.scores(groups, later)[0])


@pytest.mark.parametrize("text", QUERIES)
def test_learned_features_from_kept_rows_equal_fresh_ones(searcher, text):
    backend, plan, handles, scores = _candidates(searcher, text)
    terms = query_terms(plan)
    stage = FirstStage(handles[::3].copy(), np.linspace(0.9, 0.5, len(handles[::3])), len(plan.groups),
                       "natural", len(text))
    pool = Pool(handles, scores, handles.copy(), np.zeros(len(handles), dtype=np.int64),
                np.zeros(len(handles), dtype=np.int64))
    fresh = candidate_features(backend, plan, terms, stage, pool, searcher.settings.max_people)
    memo = QueryFeatures(backend, plan, terms, searcher.settings.max_people)
    memo.prepare(handles[:len(handles) // 2])
    kept = candidate_features(backend, plan, terms, stage, pool, searcher.settings.max_people, memo)
    assert kept.shape == (len(handles), len(FEATURES))
    np.testing.assert_array_equal(kept, fresh)


def test_rows_not_held_are_computed_once(searcher):
    backend, plan, handles, _ = _candidates(searcher, QUERIES[0])
    memo = QueryFeatures(backend, plan, query_terms(plan), searcher.settings.max_people)
    memo.second_stage(handles[:5])
    memo.second_stage(handles[3:8])
    assert len(memo._second) == 8
