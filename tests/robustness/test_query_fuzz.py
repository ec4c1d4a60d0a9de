"""Generated queries through the library and over HTTP: an answer or a 4xx naming the parameter,
never an exception or a 500. The 100,000-query run with timings is bench/query_fuzz.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.query_fuzz import INJECTION, OPERATORS, generate, random_params, vocabulary
from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import LivePortal, live_portal


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> LivePortal:
    root = tmp_path_factory.mktemp("fuzz")
    for venue, year in (("colm", 2024), ("iclr", 2018)):
        write_slice(root / "data", venue, year, load_paperlist(venue, year)[:60])
    Paperfind(Settings(db_path=root / "pf.db", semantic=False)).ingest([root / "data"], progress=False)
    with live_portal(root / "pf.db") as live:
        yield live


def test_generated_queries_through_the_library(portal: LivePortal) -> None:
    words = vocabulary(portal.paperfind.settings.db_path)
    rng = random.Random(6)
    searcher = portal.paperfind.searcher()
    for _ in range(300):  # lone surrogates included: the library takes any str
        q = generate(rng, words)
        response = searcher.search(SearchRequest(q=q, limit=rng.choice([1, 20]),
                                                 sort=rng.choice(["relevance", "newest"]), mode="lexical"))
        assert response.total >= len(response.results)
        response.to_json()


def test_generated_queries_over_http(portal: LivePortal) -> None:
    words = vocabulary(portal.paperfind.settings.db_path)
    rng = random.Random(7)
    for i in range(300):
        params = random_params(rng, generate(rng, words, surrogates=False)[:20_000])
        response = portal.client.get("/api/search" if i % 3 else "/", params=params)
        assert response.status_code in (200, 414, 422), (params, response.text[:300])
        if not i % 3:  # the search page: HTML either way
            assert response.headers["content-type"].startswith("text/html")
        elif response.status_code != 200:
            assert response.json()["error"]["status"] == response.status_code
        else:
            assert isinstance(response.json()["results"], list)


QUERY_TEXT = st.one_of(st.text(max_size=200),
                       st.lists(st.sampled_from(OPERATORS + INJECTION), max_size=10).map(" ".join))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=QUERY_TEXT,
       page=st.integers(-2, 10_002), size=st.integers(-1, 102),
       year=st.one_of(st.none(), st.text(max_size=12), st.sampled_from(["2019", "2017..2019"])))
def test_any_text_and_parameters_never_500(portal: LivePortal, q: str, page: int, size: int,
                                           year: str | None) -> None:
    params = {"q": q.encode("utf-8", "replace").decode("utf-8"), "page": page, "size": size}
    if year is not None:
        params["year"] = year
    response = portal.client.get("/api/search", params=params)
    assert response.status_code in (200, 422), response.text[:300]
    body = response.json()
    if response.status_code == 422:
        assert body["error"]["code"] == "invalid_parameter" and "parameter '" in body["error"]["message"]
    else:
        assert 1 <= page <= 10_000 and 1 <= size <= 100
