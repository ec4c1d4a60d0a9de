"""Counts an engine made over its top candidates only are shown as approximate ("≈"), by the
server's page and by search-as-you-type alike: a portal served from a real Milvus (a
milvus-lite server process) whose field searches return at most 5 papers."""

from __future__ import annotations

import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.milvus_server import start_server
from tests.web.conftest import serve, type_query

sync_api = pytest.importorskip("playwright.sync_api")
BROAD = "learning"  # matches far more than 5 papers of the portal's slices


@pytest.fixture(scope="module")
def capped_portal(portal_db, tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("capped-milvus"))
    try:
        settings = Settings(db_path=portal_db, semantic=False, backend="milvus", milvus_uri=server.uri,
                            milvus_first_stage=5)
        Paperfind(settings).sync_milvus(progress=False)
        with serve(Paperfind(settings)) as running:
            yield running
    finally:
        server.kill()


def test_the_api_says_the_counts_are_approximate(capped_portal):
    data = capped_portal.get("/api/search", params={"q": BROAD}).json()
    assert data["counts"] == "approximate" and data["total"] >= 1
    exact = capped_portal.get("/api/search", params={"q": "zzzzqx"}).json()
    assert exact["counts"] == "exact" and exact["total"] == 0


def test_typed_search_marks_an_approximate_count(browser, capped_portal):
    context = browser.new_context(base_url=capped_portal.url, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"/?q={BROAD}")  # the server's page
        count = page.locator("#results-count")
        sync_api.expect(count).to_contain_text("≈")
        served = count.inner_text()
        page.goto("/")
        type_query(page, BROAD)  # drawn by portal.js
        sync_api.expect(page.locator("#cards .card").first).to_be_visible(timeout=5000)
        sync_api.expect(count).to_contain_text("≈ ")
        sync_api.expect(count).to_contain_text("approximate counts")
        typed = count.inner_text()
        assert typed.split(" · ")[0] == served.split(" · ")[0]  # the same words as the server's page
    finally:
        context.close()
    assert not errors, errors
