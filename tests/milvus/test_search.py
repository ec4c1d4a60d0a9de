"""The whole search served from Milvus: the same answers as the local index, and a portal
that says so when Milvus is gone."""

from __future__ import annotations

import time

import pytest

from paperfind.core import Paperfind
from paperfind.search.filters import Filters
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings
from paperfind.settings import Settings
from tests.milvus_server import start_server

QUERIES = [
    "Paying More Attention to Attention: Improving the Performance of Convolutional Neural Networks via Attention Transfer",  # title
    "paying more atention to atention",  # a title with typos
    "Sergey Levine", "S. Levine", "author:levine robot grasping",  # people
    "强化学习", "机器人抓取", "深度网络泛化", "强化学习探索",  # Chinese (the last two: senses weighed)
    "venue:corl year:2022", "bandits venue:colt", "reinforcement learning year:2017..2019 -robot",  # filters
    "status:oral", '"neural network" pruning', "auto-encoders", "why do deep networks generalize?",
    "inst:google learning", "", "zzzzqx",
    "PixelCNN++", "SqueezeNet",  # papers' names (paperfind.index.paper_names), read from the local index
    "Stanford robot learning", "谷歌 强化学习", "meta learning",  # institutions named (issue 28)
]
REQUESTS = [SearchRequest(q=q, limit=10, mode="lexical") for q in QUERIES] + [
    SearchRequest(q="learning", limit=10, offset=10, mode="lexical"),
    SearchRequest(q="learning", limit=10, sort="newest", mode="lexical"),
    SearchRequest(q="learning", limit=10, sort="citations", mode="lexical"),
    SearchRequest(q="learning", limit=10, sort="influence", mode="lexical"),
    SearchRequest(q="learning", limit=5, filters=Filters(venues=("corl",), year_from=2019), mode="lexical"),
]
# a long question and a Chinese query that relax to any one of their words (fewer than
# SearchSettings.relax_below papers hold a share of them, and a little over that many): pages of
# either, first and deep, the second's filled below its strict matches past them
PAGED = [SearchRequest(q=q, limit=limit, offset=offset, mode="lexical")
         for q in ("what is the sample complexity of learning a linear predictor with noisy labels "
                   "under adversarial corruption", "机器人如何从少量人类演示中学习抓取新物体")
         for limit, offset in ((10, 0), (10, 20), (100, 0), (100, 100))]
REQUESTS += PAGED
# review scores (issue 31): CoRL 2022's and ICLR 2017's papers have them, COLT 2019's none
RATED = [
    SearchRequest(q="learning", limit=10, sort="rating", mode="lexical"),
    SearchRequest(q="", limit=10, sort="rating", filters=Filters(rating_from=6.0), mode="lexical"),
    SearchRequest(q="robot", limit=10, filters=Filters(venues=("corl",), rating_from=5.0,
                                                       rating_to=7.0), mode="lexical"),
    SearchRequest(q="", limit=10, sort="rating", filters=Filters(rating_to=4.0), mode="lexical"),
]
REQUESTS += RATED


def _answer(app: Paperfind, request: SearchRequest) -> tuple[dict, list[float]]:
    """The response without its time, and its scores apart: the Milvus backend computes
    paperfind's BM25F in float32 like the local index, but may sum a term's field shares in
    another order (a last-bit difference, 1e-6 after rounding)."""
    data = app.searcher().search(request).to_json()
    data.pop("took_ms")
    scores = [r.pop("score") for r in data["results"]]
    return data, scores


@pytest.mark.parametrize("request_", REQUESTS, ids=[f"{r.q[:30]!r}/{r.sort}/{r.offset}" for r in REQUESTS])
def test_milvus_answers_as_the_local_index(both, request_):
    local, milvus = both
    (ours, our_scores), (theirs, their_scores) = _answer(milvus, request_), _answer(local, request_)
    assert [r["key"] for r in ours["results"]] == [r["key"] for r in theirs["results"]]
    assert ours == theirs  # highlights, versions, people, facets, trend, suggestion, counts
    assert our_scores == pytest.approx(their_scores, abs=2e-6)


@pytest.mark.parametrize("request_", RATED, ids=[f"{r.q!r}/{r.sort}/{r.filters.rating_from}.."
                                                 f"{r.filters.rating_to}" for r in RATED])
def test_a_rated_request_lists_scored_papers_in_range_on_both(both, request_):
    for app in both:
        ratings = [r["rating"] for r in app.searcher().search(request_).to_json()["results"]]
        assert len(ratings) == 10 and None not in ratings[:5]
        low, high = request_.filters.rating_from, request_.filters.rating_to
        assert all((low is None or r >= low) and (high is None or r <= high) for r in ratings)
        if request_.sort == "rating":
            assert ratings == sorted(ratings, reverse=True)


def test_stats_name_the_backend(both):
    from paperfind.web.views import stats_view

    local, milvus = both
    assert stats_view(local)["backend"]["search"] == "local-index"
    backend = stats_view(milvus)["backend"]
    assert backend["search"] == "milvus" and backend["healthy"] is True
    assert backend["collection"] == "paperfind_slice"


def test_the_portal_answers_503_while_milvus_is_down(tmp_path, slice_db):
    from paperfind.milvus.sync import sync_store
    from paperfind.milvus.client import MilvusConnection
    from paperfind.store import Store
    from tests.web.conftest import serve

    server = start_server(tmp_path)
    try:
        sync_store(Store(slice_db), MilvusConnection(server.uri), "paperfind_slice")
        app = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus", milvus_uri=server.uri))
        with serve(app) as portal:
            ok = portal.get("/api/search", params={"q": "graph neural network"})
            assert ok.status_code == 200 and ok.json()["total"] > 0
            server.kill()
            for path in ("/api/search?q=bandit+regret", "/api/search/trend?q=bandits", "/api/papers/iclr2017:Sks9_ajex"):
                r = portal.get(path)
                if path.startswith("/api/papers"):
                    assert r.status_code == 200  # a paper's page reads the store, not the engine
                    continue
                assert r.status_code == 503, path
                body = r.json()["error"]
                assert body == {"status": 503, "code": "unavailable",
                                "message": "search is unavailable right now; try again in a moment"}
                assert r.headers["retry-after"] == "10"
            page = portal.get("/?q=bandit+regret", headers={"accept": "text/html"})
            assert page.status_code == 503 and "text/html" in page.headers["content-type"]
            assert "unavailable" in page.text and "Traceback" not in page.text
            stats = portal.get("/api/stats")
            assert stats.status_code == 200
            assert stats.json()["backend"] == {"store": "sqlite", "semantic": False, "search": "milvus",
                                               "healthy": False, "collection": "paperfind_slice"}
            assert str(server.port) not in stats.text  # the engine's address is not shown
            server.start()
            again = portal.get("/api/search", params={"q": "bandit regret"})
            assert again.status_code == 200 and again.json()["total"] > 0
            assert portal.get("/api/stats").json()["backend"]["healthy"] is True
    finally:
        server.kill()


def test_a_hung_milvus_costs_one_timeout_then_fails_fast_until_it_answers(tmp_path, slice_db, monkeypatch):
    """A Milvus that hangs (SIGSTOP: its port open, nothing answering) costs the first request
    its timeout; later requests, /api/stats included, make no engine call at all (they answer
    503 at once) while a probe in the background waits for it. Neither the engine's error text
    nor its address reaches the client; the next request after it answers again is served.
    While it hangs a call's timeout is 2 s, not 10: the same path, 8 s less of waiting."""
    from paperfind.milvus import client
    from paperfind.milvus.sync import sync_store
    from paperfind.milvus.client import MilvusConnection
    from paperfind.store import Store
    from tests.web.conftest import serve

    server = start_server(tmp_path)
    try:
        sync_store(Store(slice_db), MilvusConnection(server.uri), "paperfind_slice")
        app = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus", milvus_uri=server.uri,
                                 search=SearchSettings(result_cache=0)))
        with serve(app) as portal:
            assert portal.get("/api/search", params={"q": "graph neural network"}).status_code == 200
            call_timeout_s = client.CALL_TIMEOUT_S
            monkeypatch.setattr(client, "CALL_TIMEOUT_S", 2.0)
            server.hang()
            first = portal.get("/api/search", params={"q": "bandit regret"})
            assert first.status_code == 503
            conn = app.milvus()
            before, _ = conn.log.snapshot()
            for path in ("/api/search?q=online+learning", "/?q=kernels", "/api/search/trend?q=bandits"):
                r = portal.get(path)
                assert r.status_code == 503, path
                assert "grpc" not in r.text.lower() and str(server.port) not in r.text
                assert "deadline" not in r.text.lower() and "Traceback" not in r.text
            stats = portal.get("/api/stats")
            assert stats.status_code == 200 and stats.json()["backend"]["healthy"] is False
            after, _ = conn.log.snapshot()
            assert after == before  # no call waited on the hung server
            server.resume()
            monkeypatch.setattr(client, "CALL_TIMEOUT_S", call_timeout_s)
            for _ in range(300):  # the probe retries every second
                if portal.get("/api/stats").json()["backend"]["healthy"]:
                    break
                time.sleep(0.1)
            again = portal.get("/api/search", params={"q": "bandit regret"})
            assert again.status_code == 200 and again.json()["total"] > 0
    finally:
        server.kill()


KINDS = {"title": QUERIES[0], "author name": "Sergey Levine", "chinese": "强化学习",
         "question": "why do deep networks generalize?", "filter-only": "venue:corl year:2022"}
# engine calls one search may make, per pymilvus method: a field search per analysed column
# the words are in (text, authors, venue) and one for the people's papers; the candidates'
# rows in 1,000-key gets (the slice: one) and their versions in one more; a full scan only for
# a filter-only query (its every match is listed)
COLD_BOUND = {"search": 5, "query": 3}
FILTER_ONLY_BOUND = {"query_iterator": 1, "query_iterator.next": 2, "query": 2}


def _calls(conn, search) -> dict[str, int]:
    before, _ = conn.log.snapshot()
    search()
    after, _ = conn.log.snapshot()
    return {m: after[m] - before[m] for m in after if after[m] - before[m]}


@pytest.mark.parametrize("kind", KINDS)
def test_a_search_makes_a_bounded_number_of_engine_calls(slice_db, synced, milvus_server, kind):
    """What made Milvus Lite take seconds a query: a group_by search over-fetching every
    work's versions, people's papers by a filter tested on every row, versions by a filtered
    query. A search now costs a few keyed calls, and rows once fetched are not fetched again."""
    app = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus",
                             milvus_uri=milvus_server.uri, search=SearchSettings(result_cache=0)))
    searcher = app.searcher()
    request = SearchRequest(q=KINDS[kind], limit=10, mode="lexical")
    searcher.search(SearchRequest(q="warm", limit=1, mode="lexical"))  # the backend made, keys read
    backend = searcher.backend()
    cold = _calls(backend.conn, lambda: searcher.search(request))
    bound = FILTER_ONLY_BOUND if kind == "filter-only" else COLD_BOUND
    assert set(cold) <= set(bound) and all(n <= bound[m] for m, n in cold.items()), cold
    backend._pools.clear()  # the same query again as a new one: its rows are known now
    warm = _calls(backend.conn, lambda: searcher.search(request))
    if kind != "filter-only":
        assert warm.get("query", 0) == 0 and warm.get("search", 0) <= cold.get("search", 0), warm


@pytest.mark.parametrize("query,slug", [("Stanford robot learning", "stanford"), ("谷歌 强化学习", "google")])
def test_milvus_reads_an_institution_in_the_query_as_its_filter(both, query, slug):
    _, milvus = both
    data = milvus.searcher().search(SearchRequest(q=query, limit=10, mode="lexical")).to_json()
    assert [i["slug"] for i in data["understood"]["institutions"]] == [slug]
    assert data["results"] and all(slug in r["institutions"] for r in data["results"])


# One process, one backend, every kind of query in turn: a vector search or a filter-only scan
# caches rows with their scalar fields only, and a word search after it must still see the
# papers' text (it once took such a row as complete, scored its empty text 0 and dropped the
# paper: `bandit` 3 matches instead of 8). Each step is compared with the local index by total
# and the first 100 keys.
MIXED = [("bandit regret", "semantic"), ("bandit", "lexical"), ("venue:colt", "lexical"),
         ("tail", "lexical"), ("kernel", "lexical"), ("online learning with experts", "hybrid"),
         ("causal inference", "lexical"), ("强化学习", "hybrid"), ("kernel methods", "semantic"),
         ("kernel", "lexical"), ("status:oral", "lexical"), ("bandit", "lexical"),
         ("year:2019", "hybrid"), ("tail bounds", "lexical")]
SLICE_MIXED = [("venue:iclr", "lexical"), ("neural network", "lexical"), ("year:2022", "lexical"),
               ("robot", "lexical"), ("status:oral", "lexical"), ("attention", "lexical"),
               ("learning", "lexical"), ("inst:google", "lexical"), ("reinforcement", "lexical")]


def _totals_and_keys(app: Paperfind, steps) -> list[tuple[str, str, int, list[str]]]:
    searcher = app.searcher()
    out = []
    for q, mode in steps:
        data = searcher.search(SearchRequest(q=q, limit=100, mode=mode)).to_json()
        out.append((q, data["mode"], data["total"], [r["key"] for r in data["results"]]))
    return out


def test_a_mixed_sequence_through_one_process_matches_the_local_index(semantic_db, milvus_server):
    local = Paperfind(Settings(db_path=semantic_db, search=SearchSettings(result_cache=0)))
    milvus = Paperfind(Settings(db_path=semantic_db, backend="milvus", milvus_uri=milvus_server.uri,
                                search=SearchSettings(result_cache=0)))
    theirs = _totals_and_keys(local, MIXED)
    assert {mode for _, mode, _, _ in theirs} >= {"semantic", "hybrid", "lexical"}  # the vectors serve
    assert dict((q, n) for q, m, n, _ in theirs if m == "lexical")["bandit"] >= 8
    assert _totals_and_keys(milvus, MIXED) == theirs


def test_filter_only_scans_then_words_match_the_local_index(slice_db, synced, milvus_server):
    local = Paperfind(Settings(db_path=slice_db, semantic=False, search=SearchSettings(result_cache=0)))
    milvus = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus",
                                milvus_uri=milvus_server.uri, search=SearchSettings(result_cache=0)))
    assert _totals_and_keys(milvus, SLICE_MIXED) == _totals_and_keys(local, SLICE_MIXED)


def test_a_person_s_name_is_not_relaxed_on_milvus_either(both):
    """Milvus decides a name's relaxing from its own field searches' hits
    (SearchSettings.relax_names_below): "Max Welling" is answered by his papers alone, as on
    the local index, though 150-odd other papers of the slice hold "max"."""
    local, milvus = both
    request = SearchRequest(q="Max Welling", limit=100, mode="lexical")
    theirs, ours = (app.searcher().search(request).to_json() for app in (local, milvus))
    assert ours["results"] and all("Max Welling" in {a["name"] for a in r["authors"]}
                                   for r in ours["results"])
    assert ours["total"] == len(ours["results"]) == theirs["total"]
    assert [r["key"] for r in ours["results"]] == [r["key"] for r in theirs["results"]]
