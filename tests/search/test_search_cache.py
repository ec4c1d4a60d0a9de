"""The response cache: repeated requests are answered from it, and never across index generations."""

from __future__ import annotations

import time

from paperfind.index.manager import build_index
from paperfind.ingest.run import ingest_paths
from paperfind.search.cache import ResultCache
from paperfind.search.engine import Searcher, open_searcher
from paperfind.search.filters import Filters
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings
from paperfind.store import Store
from tests.realdata import PAPERLISTS, load_paperlist


def _fresh(tmp_path, files, **settings) -> tuple[Store, Searcher]:
    store = Store(tmp_path / "cache.db")
    ingest_paths(store, files, progress=False)
    build_index(store, tmp_path / "cache.db.index")
    return store, open_searcher(tmp_path / "cache.db.index", store, SearchSettings(**settings))


def test_a_repeated_request_is_a_hit_with_the_same_answer(tmp_path):
    _, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"])
    title = load_paperlist("colt", 2019)[5]["title"]
    first = searcher.search(SearchRequest(q=title, limit=5))
    second = searcher.search(SearchRequest(q=title, limit=5))
    assert searcher.cache.hits == 1 and searcher.cache.misses == 1
    assert second.to_json() | {"took_ms": 0} == first.to_json() | {"took_ms": 0}
    # another page, sort or filter is another answer, not a hit
    searcher.search(SearchRequest(q=title, limit=5, offset=5))
    searcher.search(SearchRequest(q=title, limit=5, sort="newest"))
    searcher.search(SearchRequest(q=title, limit=5, filters=Filters(year_from=2018, year_to=2018)))
    assert searcher.cache.hits == 1 and searcher.cache.misses == 4


def test_a_caller_changing_its_results_does_not_change_the_cache(tmp_path):
    _, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"])
    request = SearchRequest(q="bandits regret", limit=3)
    expected = searcher.search(request).to_json()["results"][0]["title"]
    for _ in range(2):
        response = searcher.search(request)
        response.results[0]["title"] = "changed by the caller"
        response.results.pop()
    assert searcher.search(request).results[0]["title"] == expected
    assert len(searcher.search(request).results) == 3


def test_a_new_index_generation_is_never_answered_from_the_old_one(tmp_path):
    store, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"])
    corl = load_paperlist("corl", 2022)
    title = next(r["title"] for r in corl if len(r["title"].split()) >= 6 and r["title"].replace(" ", "").isalpha())
    before = searcher.search(SearchRequest(q=title, limit=5))
    assert all(r["venue"] != "CoRL" for r in before.results)
    ingest_paths(store, [PAPERLISTS / "corl" / "corl2022.json.gz"], progress=False)
    build_index(store, tmp_path / "cache.db.index")
    after = searcher.search(SearchRequest(q=title, limit=5))
    assert after.results[0]["title"] == title
    assert searcher.cache.hits == 0


def test_size_zero_turns_the_cache_off(tmp_path):
    _, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"], result_cache=0)
    for _ in range(3):
        searcher.search(SearchRequest(q="online learning", limit=5))
    assert searcher.cache.hits == 0 and len(searcher.cache) == 0


def test_the_cache_keeps_only_the_most_recent_requests(tmp_path):
    _, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"], result_cache=2)
    for q in ("regret", "bandits", "convex"):
        searcher.search(SearchRequest(q=q))
    assert len(searcher.cache) == 2
    searcher.search(SearchRequest(q="regret"))  # evicted first: computed again
    assert searcher.cache.hits == 0
    searcher.search(SearchRequest(q="convex"))
    assert searcher.cache.hits == 1


class _SlowToKeep(ResultCache):
    """The real cache, 0.2 s slow to keep an answer: the last step of a search."""

    def put(self, key, value) -> None:
        time.sleep(0.2)
        super().put(key, value)


def test_took_ms_covers_the_search_to_its_last_step(tmp_path):
    """`took_ms` is the searcher's whole time, the answer kept in the cache included: what it
    does after the timer stopped was counted as the web layer's time (issue 33's HTTP layer)."""
    _, searcher = _fresh(tmp_path, [PAPERLISTS / "colt" / "colt2019.json.gz"])
    searcher.cache = _SlowToKeep(16)
    answer = searcher.search(SearchRequest(q="online learning with experts", limit=5))
    assert answer.total > 0 and answer.took_ms >= 200
