"""A page's order does not depend on its length (SearchSettings.relax_below): the first ten
results of a query are the same whether 10, 20 or 100 are asked for, pages of ten read one
after another are one long page, and every page says the same total, facets and trend. The
kinds of query that relax to any one of their words when few papers hold a share of them: a
long question, a Chinese query, a long title typed with typos. On the real slice (COLT 2019,
CoRL 2022, ICLR 2017)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.backend import CandidateRequest, Candidates
from paperfind.search.engine import SearchRequest, open_searcher
from paperfind.search.pool import Pool, with_tail
from paperfind.search.settings import SearchSettings

# each holds a share of its words in fewer than 100 of the slice's papers, more than 20
RELAXING = {
    "question": "what is the sample complexity of learning a linear predictor with noisy labels "
                "under adversarial corruption",
    "chinese": "用强化学习训练四足机器人在崎岖地形上行走",
    "typo": "Temporl Logic Imitaton: Lerning Plan-Satisficng Motoin Polices from Demonstratons",
}
# a share of its words in a little over 100 papers: pages past those are filled below them
DEEP = "机器人如何从少量人类演示中学习抓取新物体"


@pytest.fixture(scope="module")
def searcher(slice_store):
    store, index_root = slice_store
    return open_searcher(index_root, store, SearchSettings(result_cache=0))


def page(searcher, q: str, limit: int, offset: int = 0):
    return searcher.search(SearchRequest(q=q, limit=limit, offset=offset, mode="lexical"))


def keys(found) -> list[str]:
    return [r["key"] for r in found.results]


@pytest.mark.parametrize("kind", sorted(RELAXING))
def test_the_first_ten_are_the_same_whether_10_20_or_100_are_asked_for(searcher, kind):
    q = RELAXING[kind]
    first = keys(page(searcher, q, 10))
    assert len(first) == 10
    assert keys(page(searcher, q, 20))[:10] == first
    assert keys(page(searcher, q, 100))[:10] == first


@pytest.mark.parametrize("kind", sorted(RELAXING))
def test_pages_of_ten_read_in_turn_are_one_page_of_a_hundred(searcher, kind):
    q = RELAXING[kind]
    pages = [page(searcher, q, 10, offset) for offset in range(0, 100, 10)]
    whole = page(searcher, q, 100)
    assert [k for p in pages for k in keys(p)] == keys(whole)
    assert len(set(keys(whole))) == 100
    # one count whatever page a user is on
    assert {p.total for p in pages} == {whole.total}
    assert all(p.facets == whole.facets and p.trend == whole.trend for p in pages)


def test_pages_past_the_strict_matches_continue_them_with_one_count(searcher):
    strict = page(searcher, DEEP, 100).total
    assert 100 <= strict < 150  # the pages below reach past the papers holding the share
    tens = [page(searcher, DEEP, 10, offset) for offset in range(0, 200, 10)]
    hundreds = [page(searcher, DEEP, 100, offset) for offset in (0, 100)]
    assert [k for p in tens for k in keys(p)] == [k for p in hundreds for k in keys(p)]
    assert len(set(keys(hundreds[1]))) == 100  # filled with papers having fewer of its words
    # the rows that fill a deep page are not matches: every page counts the same
    assert {p.total for p in tens + hundreds} == {strict}
    assert all(p.facets == tens[0].facets and p.trend == tens[0].trend for p in tens + hundreds)
    assert {p.with_citations for p in tens + hundreds} == {tens[0].with_citations}


def test_a_page_count_of_the_page_s_size_ranks_another_pool(slice_store, searcher):
    """The rule before: relaxed when fewer than offset + limit papers hold the share. A first
    page of 100 answers as it did; a page of 10 was ranked from another pool."""
    store, index_root = slice_store
    by_page = open_searcher(index_root, store, SearchSettings(result_cache=0, relax_below=None))
    q = RELAXING["question"]
    assert keys(page(by_page, q, 100)) == keys(page(searcher, q, 100))
    assert keys(page(by_page, q, 10)) != keys(page(searcher, q, 10))
    assert page(by_page, q, 10).total != page(by_page, q, 100).total


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


def test_a_list_in_another_order_ends_with_the_strict_matches(searcher):
    """Sorted by date, the filled rows would mix among the matches: the list ends with them."""
    newest = [searcher.search(SearchRequest(q=DEEP, limit=100, offset=offset, mode="lexical",
                                            sort="newest")) for offset in (0, 100)]
    assert {p.total for p in newest} == {newest[0].total}
    assert len(keys(newest[0])) + len(keys(newest[1])) == newest[0].total
    tens = [searcher.search(SearchRequest(q=DEEP, limit=10, offset=offset, mode="lexical", sort="newest"))
            for offset in range(0, 200, 10)]
    assert [k for p in tens for k in keys(p)] == keys(newest[0]) + keys(newest[1])


# a person's name on the slice whose words' share (both) only their person's papers hold, and
# one of which ("max") 150-odd other papers use
NAME = "Max Welling"


def authors_of(result: dict) -> set[str]:
    return {a["name"] for a in result["authors"]}


def test_a_person_s_name_is_not_relaxed_to_papers_with_any_one_of_its_words(slice_store, searcher):
    """Its people's papers are its answer: papers holding "max" alone would make its total
    and facets those of 150 others (SearchSettings.relax_names_below)."""
    whole = searcher.search(SearchRequest(q=NAME, limit=100, mode="lexical", include=frozenset({"facets"})))
    assert whole.results and all(NAME in authors_of(r) for r in whole.results)
    assert whole.total == len(whole.results)
    assert sum(n for _, n in whole.facets["year"]) == whole.total
    store, index_root = slice_store
    relaxing = open_searcher(index_root, store, SearchSettings(result_cache=0, relax_names_below=None))
    assert relaxing.search(SearchRequest(q=NAME, limit=100, mode="lexical")).total > 100


def test_a_person_s_name_s_pages_are_the_head_of_its_page_of_a_hundred(searcher):
    whole = keys(page(searcher, NAME, 100))
    assert keys(page(searcher, NAME, 10)) == whole[:10]
    assert keys(page(searcher, NAME, 20)) == whole[:20]
    assert [k for offset in range(0, 100, 10) for k in keys(page(searcher, NAME, 10, offset))] == whole


def test_a_name_is_relaxed_only_when_few_papers_hold_any_one_of_its_words():
    """A rare surname alone still finds the person under another form of the name."""
    name = CandidateRequest([], min_match=2, relax_below=100, relax_most=100)
    assert name.relaxes(strict=6, relaxed=40)
    assert not name.relaxes(strict=6, relaxed=159)
    assert not name.relaxes(strict=100, relaxed=100)
    other = CandidateRequest([], min_match=2, relax_below=100)
    assert other.relaxes(strict=6, relaxed=159)
