"""The home page and the search trend in real headless Chromium, in both languages (the
browser fixtures are test_browser's)."""

from __future__ import annotations

import re

from tests.web.conftest import type_query
from tests.web.test_browser import DEBOUNCE_BUDGET_MS, page, sync_api  # noqa: F401
from paperfind.web.examples import EXAMPLES
from paperfind.web.i18n import STRINGS


def _bars(chart) -> dict[int, tuple[int, int]]:
    return {int(r.get_attribute("data-year")): (int(r.get_attribute("data-count")),
                                                int(r.get_attribute("data-of")))
            for r in chart.locator("rect.bar[data-of]").all()}


def test_home_page_shows_the_grid_examples_and_latest_in_both_languages(page, portal, shoot):
    stats = portal.get("/api/stats").json()
    for lang in ("en", "zh"):
        page.goto(f"/?lang={lang}")
        strings = STRINGS[lang]
        sync_api.expect(page.locator("#indexed h3")).to_have_text(strings["home_indexed"])
        cells = page.locator("#coverage td a")
        assert cells.count() == len(stats["venue_years"])
        assert cells.first.bounding_box()["width"] > 0
        examples = page.locator("#examples a.example")
        assert [examples.nth(i).inner_text() for i in range(examples.count())] == \
            [q for _, q in EXAMPLES[lang]]
        sync_api.expect(page.locator("#examples")).to_contain_text(strings["example_author"])
        assert page.locator("#recent li").count() >= 1
        # the facet column gives way to the home page
        assert page.locator("#facets").bounding_box() is None or \
            page.locator("#facets").bounding_box()["width"] == 0
        shoot(page, f"home-{lang}")
    # a grid cell opens that venue-year's papers
    cell = page.locator('#coverage tr[data-venue="corl"] td a').first
    year = cell.get_attribute("data-year")
    papers = int(cell.get_attribute("data-papers"))
    cell.click()
    sync_api.expect(page.locator("#cards .card").first).to_be_visible()
    assert re.search(r"venue=corl", page.url) and f"year={year}" in page.url
    metas = page.locator("#cards .card .venue").all_inner_texts()
    assert metas and all(m.endswith(year) for m in metas)
    assert len(metas) == min(papers, 20)


def test_typing_on_the_home_page_replaces_it_with_results_and_their_trend(page, portal):
    page.goto("/?lang=en")
    type_query(page, "learning")
    chart = page.locator("#results svg[data-chart=trend]")
    sync_api.expect(chart).to_be_visible(timeout=DEBOUNCE_BUDGET_MS)
    sync_api.expect(page.locator("#home")).to_have_count(0)
    data = portal.get("/api/search", params={"q": "learning"}).json()
    assert _bars(chart) == {p["year"]: (p["works"], p["of"]) for p in data["trend"]["years"]}


def test_a_pause_mid_word_shows_the_prefix_then_the_whole_words_results(page, portal):
    """What a loaded machine did to the test above in CI: a pause longer than the debounce
    after "l" puts l's results and trend on screen; the rest of the word must replace them."""
    page.goto("/?lang=en")
    page.locator("#q").press_sequentially("l")
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'l'",
                           timeout=DEBOUNCE_BUDGET_MS)
    type_query(page, "earning")
    sync_api.expect(page.locator("#q")).to_have_value("learning")
    chart = page.locator("#results svg[data-chart=trend]")
    data = portal.get("/api/search", params={"q": "learning"}).json()
    assert _bars(chart) == {p["year"]: (p["works"], p["of"]) for p in data["trend"]["years"]}
    assert _bars(chart) != {p["year"]: (p["works"], p["of"]) for p in
                            portal.get("/api/search", params={"q": "l"}).json()["trend"]["years"]}


def test_trend_over_results_matches_the_year_facet_in_both_languages(page, portal, shoot):
    for lang in ("en", "zh"):
        page.goto(f"/?q=learning&lang={lang}")
        chart = page.locator("#trend svg[data-chart=trend]")
        sync_api.expect(chart).to_be_visible()
        sync_api.expect(page.locator("#trend .trend-title").first).to_have_text(
            STRINGS[lang]["trend_title"])
        drawn = {y: n for y, (n, _) in _bars(chart).items() if n}
        year_facet = page.locator(".facet", has=page.locator("h4", has_text=STRINGS[lang]["facet_year"]))
        listed = {int(a.locator("span").first.inner_text()): int(a.locator(".count").inner_text())
                  for a in year_facet.locator("a.facet-value").all()}
        assert drawn == listed
        # a bar's hover title gives its figures; the small multiples are one per venue
        bar = chart.locator("rect.bar[data-count]:not([data-count='0'])").first
        year, count = bar.get_attribute("data-year"), bar.get_attribute("data-count")
        assert bar.bounding_box()["height"] > 0
        title = bar.locator("title").text_content()
        assert title.startswith(f"{year}: ") and count in title and "%" in title
        venues = page.locator("#trend figure.trend-venue")
        assert venues.count() >= 2
        assert venues.first.locator("svg[data-chart=trend-venue] rect.bar").count() >= 1
        bar.hover()
        shoot(page, f"trend-{lang}")
