"""The institution a query names, through the real server (the session's slice portal; with
PAPERFIND_TEST_BACKEND=milvus, served from Milvus) and in real Chromium: a chip that removes it,
in both languages, and the same in the JSON."""

from __future__ import annotations

import httpx
import pytest

from paperfind.web import schemas
from tests.web.conftest import MINICPM, type_query

DEBOUNCE_BUDGET_MS = 5000
QUERY = "THU small language models"  # MiniCPM's authors are at Tsinghua


def test_the_json_says_what_was_understood_and_filters_by_it(portal):
    data = portal.get("/api/search", params={"q": QUERY}).json()
    schemas.SearchResponse.model_validate(data)
    assert data["filters"] == {"inst": ["tsinghua"]}
    assert data["understood"]["institutions"][0]["slug"] == "tsinghua"
    assert data["understood"]["text"] == "small language models"
    assert data["results"] and all("tsinghua" in r["institutions"] for r in data["results"])
    assert MINICPM in [r["key"] for r in data["results"]]
    chinese = portal.get("/api/search", params={"q": "清华 语言模型"}).json()
    assert chinese["filters"] == {"inst": ["tsinghua"]} and chinese["understood"]["text"] == "语言模型"


def test_institution_is_another_name_of_the_inst_parameter(portal):
    """`institution=tsinghua` was accepted and silently ignored (issue 28)."""
    by_inst = portal.get("/api/search", params={"q": "language models", "inst": "tsinghua"}).json()
    by_name = portal.get("/api/search", params={"q": "language models", "institution": "tsinghua"}).json()
    assert by_name["filters"] == {"inst": ["tsinghua"]}
    assert [r["key"] for r in by_name["results"]] == [r["key"] for r in by_inst["results"]]
    everyone = portal.get("/api/search", params={"q": "language models"}).json()
    assert by_name["total"] < everyone["total"]


def test_a_query_naming_no_institution_understands_nothing(portal):
    assert portal.get("/api/search", params={"q": "language models"}).json()["understood"] is None


def test_the_server_page_draws_the_chip_in_both_languages(portal):
    with httpx.Client(base_url=portal.url) as client:  # its own: ?lang= sets a cookie
        en = client.get("/", params={"q": QUERY, "lang": "en"}).text
        zh = client.get("/", params={"q": QUERY, "lang": "zh"}).text
    assert 'id="understood"' in en and "Tsinghua University" in en
    assert 'href="/?q=small+language+models"' in en
    assert "清华大学" in zh and "已识别机构" in zh


sync_api = pytest.importorskip("playwright.sync_api")


@pytest.mark.parametrize("locale,label", [("en-US", "Tsinghua University"), ("zh-CN", "清华大学")])
def test_typing_an_institution_shows_a_chip_that_removes_it(browser, portal, locale, label):
    context = browser.new_context(base_url=portal.url, locale=locale, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto("/")
        type_query(page, QUERY)
        chip = page.locator("#understood .understood-chip")
        sync_api.expect(chip).to_contain_text(label, timeout=DEBOUNCE_BUDGET_MS)
        sync_api.expect(page.locator("#understood")).to_contain_text("small language models")
        tags = page.locator("#cards .card").first.locator(".tag.inst")
        assert "tsinghua" in [tags.nth(i).get_attribute("data-slug") for i in range(tags.count())]
        assert label in tags.all_inner_texts()  # by name, in the page's language
        chip.click()
        page.wait_for_url("**/?q=small+language+models*")
        sync_api.expect(page.locator("#q")).to_have_value("small language models")
        sync_api.expect(page.locator("#understood")).to_have_count(0)
        assert not errors, errors
    finally:
        context.close()
