"""Review scores in the browser, in both languages: the card's "6.5 · 4 reviews", the Rating
sort tab, the paper page's reviews and the venue-year chart (the shared portal's COLM 2024
papers carry scores, its 3DV 2025 ones none)."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import browsing

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

REVIEWS = {"en": re.compile(r"^\d+\.\d · \d+ reviews?$"), "zh": re.compile(r"^\d+\.\d · \d+ 条评审$")}
SORT = {"en": "Rating", "zh": "评分"}
CHART = {"en": "Mean review score per decision", "zh": "各录用结果的平均评分分布"}


@pytest.fixture(params=["en", "zh"])
def desktop(request, browser, portal):
    yield from browsing(browser, portal, request.param)


def test_cards_sort_and_the_paper_page_show_the_scores(desktop):
    lang = desktop.lang
    desktop.goto("/?venue=colm")
    desktop.locator(".sort", has_text=re.compile(f"^{SORT[lang]}$")).click()
    expect(desktop).to_have_url(re.compile(r"sort=rating"))
    expect(desktop.locator(".sort.chosen")).to_have_text(SORT[lang])
    expect(desktop.locator("#cards .card .rating").first).to_be_visible()
    tags = desktop.locator("#cards .card .rating").all_inner_texts()
    assert tags and all(REVIEWS[lang].match(t) for t in tags), tags
    means = [float(t.split(" ")[0]) for t in tags]
    assert means == sorted(means, reverse=True)
    count = int(re.search(r"· (\d+)", tags[0])[1])
    desktop.locator("#cards .card .card-title a").first.click()
    expect(desktop.locator("#reviews")).to_be_visible()
    assert desktop.locator("#reviews tbody tr").count() == count
    expect(desktop.locator(".paper-meta .rating")).to_have_text(tags[0])
    desktop.goto("/?venue=3dv&sort=rating")  # no scores: nothing, never a 0
    expect(desktop.locator("#cards .card").first).to_be_visible()
    assert desktop.locator("#cards .card .rating").count() == 0


def test_the_venue_year_chart_has_a_bar_per_bin_and_a_legend(desktop):
    desktop.goto("/venues/colm?year=2024")
    chart = desktop.locator("#rating-chart")
    expect(chart.locator("h3")).to_have_text(CHART[desktop.lang])
    expect(chart.locator("svg[data-chart=ratings]")).to_be_visible()
    bars = chart.locator("rect.bar")
    assert bars.count() >= 1
    assert all(h > 0 for h in bars.evaluate_all("rs => rs.map(r => r.getBBox().height)"))
    assert chart.locator(".rating-legend li").count() >= 1
    title = bars.first.locator("title").text_content()
    assert re.search(r"\d", title), title
    desktop.goto("/venues/3dv?year=2025")
    expect(desktop.locator("#rating-chart")).to_have_count(0)
