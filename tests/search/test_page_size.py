"""A page's order does not depend on its size: the first ten results of a query are the same
whether 10 or 100 are asked for, and page two continues page one (SearchSettings.relax_below).
On the real slice (COLT 2019, CoRL 2022, ICLR 2017)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.backend import Candidates
from paperfind.search.engine import SearchRequest, open_searcher
from paperfind.search.pool import Pool, with_tail
from paperfind.search.settings import SearchSettings

# a description with a dozen papers holding its words' share in the slice: between a first
# page and a deep one, where the page's size used to decide whether the query was relaxed
DESCRIPTION = "robot navigation from language instructions in unseen buildings"


def keys(searcher, q, limit, offset=0, mode="lexical"):
    found = searcher.search(SearchRequest(q=q, limit=limit, offset=offset, mode=mode))
    return [r["key"] for r in found.results]


@pytest.fixture(scope="module")
def searchers(slice_store):
    store, index_root = slice_store
    return {rule: open_searcher(index_root, store, SearchSettings(result_cache=0, relax_below=rule))
            for rule in (10, None)}


def test_the_first_ten_are_the_same_whether_ten_or_a_hundred_are_asked_for(searchers):
    fixed = searchers[10]
    assert keys(fixed, DESCRIPTION, 10) == keys(fixed, DESCRIPTION, 100)[:10]
    assert keys(fixed, DESCRIPTION, 10, offset=10) == keys(fixed, DESCRIPTION, 20)[10:]
    # the page's size as the relaxing count (before): a 100-deep page ranks another pool
    by_page = searchers[None]
    assert keys(by_page, DESCRIPTION, 10) != keys(by_page, DESCRIPTION, 100)[:10]
    assert keys(fixed, DESCRIPTION, 10) == keys(by_page, DESCRIPTION, 10)


def test_a_deep_page_is_filled_below_the_matches_of_the_words_share(searchers):
    fixed, by_page = searchers[10], searchers[None]
    deep = keys(fixed, DESCRIPTION, 100)
    assert len(deep) == len(keys(by_page, DESCRIPTION, 100)) == 100
    assert len(set(deep)) == len(deep)


def test_a_tail_goes_below_every_row_of_the_pool_in_its_score_order():
    pool = Pool(np.array([5, 2]), np.array([3.0, 0.4]), np.array([5, 2]), np.array([2020, 2021]),
                np.array([0, 0]))
    tail = Candidates(np.array([1, 2, 7]), np.array([1.0, 9.0, 4.0], dtype=np.float32),
                      np.array([1, 1, 1], dtype=np.int16), np.array([1, 2, 7]), np.array([2019] * 3),
                      np.array([0, 0, 0]), 3)
    filled = with_tail(pool, tail)
    assert filled.handles.tolist() == [5, 2, 1, 7]  # 2 is the pool's already
    assert filled.relevance[:2].tolist() == [3.0, 0.4]
    assert filled.relevance[3] > filled.relevance[2] and filled.relevance[2:].max() < 0.4
    assert with_tail(pool, tail.take(np.array([1]))) is pool
