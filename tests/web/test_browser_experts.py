"""Who works on this in the browser (Debian's Chromium): the paper page's section, loaded after
the page, and the Experts tab beside a search's results, in both languages, on a phone too."""

from __future__ import annotations

import pytest

from tests.web.conftest import open_context
from tests.web.test_experts import PLANT, people_of

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

TITLE = {"en": "Who works on this?", "zh": "谁在研究这个？"}
TAB = {"en": "Experts", "zh": "专家"}
# a CoRL 2022 paper none of whose people wrote with Andreas Geiger, the portal's one person with
# 3 works (the section's default floor): its section lists him. PLANT's lists no one at 3 (its
# people and their co-authors left out) and says so, with a link to the people with fewer
PLANNER = "corl2022:2CSj965d9O4"  # "Is Anyone There? Learning a Planner Contingent on ..."
FLOOR_LINK = {"en": "Show them", "zh": "显示他们"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_paper_page_lists_who_works_on_it_without_its_own_people(browser, portal, lang):
    context, page, errors = open_context(browser, portal, lang)
    try:
        page.goto(f"/papers/{PLANNER}")
        section = page.locator("#who-works")
        expect(section.locator("h2")).to_contain_text(TITLE[lang])
        people = section.locator(".expert")
        expect(people.first).to_be_visible(timeout=15000)  # fetched after the page
        ids = people.evaluate_all("els => els.map(e => e.dataset.id)")
        assert ids and not set(ids) & people_of(portal, PLANNER)
        href = section.locator(".expert-name").first.get_attribute("href")
        assert href == f"/authors/{ids[0]}"
        card = section.locator(".expert-evidence .card-title a").first
        assert card.get_attribute("href").startswith("/papers/")
        card.click()
        page.wait_for_url("**/papers/**")
        assert page.url.split("/papers/")[1] != PLANNER
        # no one with 3 works beside PLANT's people: the section says so, and links the others
        page.goto(f"/papers/{PLANT}")
        floor = page.locator("#who-works #experts-floor")
        expect(floor).to_be_visible(timeout=15000)
        floor.get_by_role("link", name=FLOOR_LINK[lang]).click()
        page.wait_for_url("**/experts?**min_works=1**")
        ids = page.locator(".expert").evaluate_all("els => els.map(e => e.dataset.id)")
        assert ids and not set(ids) & people_of(portal, PLANT)
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_experts_tab_beside_search_results(browser, portal, lang):
    context, page, errors = open_context(browser, portal, lang)
    try:
        page.goto("/?q=planning%20transformers")
        tab = page.locator("#experts-tab")
        expect(tab).to_have_text(TAB[lang])
        tab.click()
        page.wait_for_url("**/experts?**")
        expect(page.locator("#view-tabs .chosen")).to_have_text(TAB[lang])
        first = page.locator(".expert").first
        expect(first).to_be_visible()
        assert page.locator("#experts-q").input_value() == "planning transformers"
        first.locator(".expert-name").click()
        page.wait_for_url("**/authors/**")
        expect(page.locator("h1")).to_be_visible()
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_experts_fit_a_390_px_phone(browser, portal, lang):
    context, page, errors = open_context(browser, portal, lang, 390, 800, phone=True,
                                         device_scale_factor=1)
    try:
        for path in ("/experts?q=planning%20transformers", f"/papers/{PLANNER}"):
            page.goto(path)
            expect(page.locator(".expert").first).to_be_visible(timeout=15000)
            width = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
            assert width <= 390, (path, width)
    finally:
        context.close()
    assert not errors, errors
