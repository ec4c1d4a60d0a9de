"""/api/search counts only what it is asked for (`include=`), and answers without the thread
pool on the local index (issue 33: the HTTP layer's own cost)."""

from __future__ import annotations

import asyncio
import concurrent.futures

import anyio.to_thread
import httpx
import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
from tests.web.test_api import assert_error

QUERY = {"q": "learning", "size": 5}


def test_without_include_a_search_has_its_facets_and_trend(portal):
    data = portal.get("/api/search", params=QUERY).json()
    assert {"venue", "year", "institution", "status", "area"} <= set(data["facets"])
    assert data["trend"]["years"] and data["trend"]["venues"]


@pytest.mark.parametrize("include, facets, trend", [
    (["none"], False, False), (["facets"], True, False), (["trend"], False, True),
    (["facets", "trend"], True, True)])
def test_include_counts_only_the_parts_asked_for_and_changes_nothing_else(portal, include, facets,
                                                                          trend):
    every = portal.get("/api/search", params=QUERY).json()
    some = portal.get("/api/search", params={**QUERY, "include": include}).json()
    assert (some["facets"] == every["facets"]) if facets else some["facets"] == {}
    assert (some["trend"] == every["trend"]) if trend else some["trend"] is None
    same = ("results", "total", "authors", "paging", "filters", "counts", "with_citations", "query")
    assert {k: some[k] for k in same} == {k: every[k] for k in same}


def test_include_is_strict_and_in_the_schema(portal):
    assert_error(portal.get("/api/search", params={**QUERY, "include": "authors"}), 422,
                 "invalid_parameter", "'include", "'none'")
    assert_error(portal.get("/api/search", params={**QUERY, "includes": "none"}), 422,
                 "unknown_parameter", "'includes'", "include")
    schema = portal.get("/openapi.json").json()
    param = next(p for p in schema["paths"]["/api/search"]["get"]["parameters"]
                 if p["name"] == "include")
    assert param["in"] == "query" and "none" in str(param["schema"])


def test_a_search_feed_and_export_need_no_facets(portal):
    feed = portal.get("/feeds/search.atom", params={"q": "learning"})
    assert feed.status_code == 200 and "<entry>" in feed.text
    export = portal.get("/api/search/export", params={"q": "learning", "format": "jsonl",
                                                      "limit": 5})
    assert export.status_code == 200 and len(export.text.splitlines()) == 5


def test_the_search_api_answers_while_the_thread_pool_is_busy(portal_db):
    """Slow page renders or exports may hold every thread of the pool: a search of the local
    index does not wait for one (its dependencies and route run in the event loop)."""
    app = create_app(Paperfind(Settings(db_path=portal_db, semantic=False)))

    async def search_with_the_pool_held() -> httpx.Response:
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = 1
        taken, done = asyncio.Event(), asyncio.Event()

        async def hold_the_pool() -> None:  # as a long request in a pool thread would
            async with limiter:
                taken.set()
                await done.wait()

        holder = asyncio.create_task(hold_the_pool())
        await taken.wait()
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                         base_url="http://portal") as client:
                return await asyncio.wait_for(client.get("/api/search", params=QUERY), 60)
        finally:
            done.set()
            await holder

    # a loop of its own, in a thread of its own: a session's browser (Playwright's sync API) may
    # already run an event loop in this worker's main thread
    with concurrent.futures.ThreadPoolExecutor(1) as own_thread:
        response = own_thread.submit(asyncio.run, search_with_the_pool_held()).result()
    assert response.status_code == 200 and response.json()["results"]
