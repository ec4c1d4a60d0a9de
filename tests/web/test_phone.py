"""The portal on a phone: Debian's Chromium with a touch viewport 360, 390 and 414 px wide.

Every kind of page must fit the screen (no sideways scrolling), the search page's facets fold
behind a "Filters" control whose set filters stay in view as chips, the controls a thumb uses are
at least 40 px tall, and the search box stays put while an on-screen keyboard takes half the
screen. At desktop widths the narrow-screen controls stay out of the layout (the before/after box
comparison of the desktop layout was the retired desktop_layout bench, bench/RESULTS.md). Takes a few phone screenshots
(bench/screenshots/phone-*.png with PAPERFIND_SCREENSHOTS=bench/screenshots).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.conftest import PAGE_KINDS, open_context, type_query

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

PHONES = [(width, lang) for width in (360, 390, 414) for lang in ("en", "zh")]
PHONE_HEIGHT = 800
KEYBOARD_PX = 330  # about what an on-screen keyboard takes of an 800 px tall screen
TOUCH_PX = 40
FILTERS = {"en": "Filters", "zh": "筛选"}
SEARCH = PAGE_KINDS["search"]
LIVE_BUDGET_MS = 5000  # search-as-you-type waits 180 ms; the rest is the shared machine


def open_phone(browser, portal, width: int, lang: str):
    return open_context(browser, portal, lang, width, PHONE_HEIGHT, phone=True,
                        device_scale_factor=1)


@pytest.fixture(params=PHONES, ids=[f"{w}px-{lang}" for w, lang in PHONES])
def phone(request, browser, portal):
    width, lang = request.param
    context, page, errors = open_phone(browser, portal, width, lang)
    page.width, page.lang = width, lang
    yield page
    context.close()
    assert not errors, errors


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def document_width(page) -> int:
    return page.evaluate("Math.max(document.documentElement.scrollWidth, "
                         "document.body.scrollWidth)")


def wider_than(page, width: int) -> list[str]:
    """The elements that reach past the right edge, to name in a failure."""
    return page.evaluate("""(w) => Array.from(document.querySelectorAll('body *'))
      .filter((n) => n.getBoundingClientRect().right > w + 0.5 && !n.closest('.table-box'))
      .slice(0, 5).map((n) => n.tagName.toLowerCase() + '.' + n.className)""", width)


def test_every_page_fits_the_screen(phone):
    too_wide = {}
    for kind, path in PAGE_KINDS.items():
        phone.goto(path)
        if document_width(phone) > phone.width:
            too_wide[kind] = (document_width(phone), wider_than(phone, phone.width))
    assert not too_wide, too_wide
    # the stats table, wider than a phone in English, scrolls inside its own box
    phone.goto(PAGE_KINDS["stats"])
    box = phone.locator(".table-box")
    if phone.lang == "en":
        assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    assert box.bounding_box()["width"] <= phone.width
    assert box.evaluate("b => getComputedStyle(b).overflowX") == "auto"


def test_a_filter_is_applied_from_the_folded_facets_and_removed_by_its_chip(phone):
    phone.goto(SEARCH)
    facets, toggle = phone.locator("#facets"), phone.locator("#filter-toggle summary")
    expect(toggle).to_have_text(FILTERS[phone.lang])
    expect(facets).to_be_hidden()  # folded: the results come first
    assert phone.locator("#cards .card").first.bounding_box()["y"] < PHONE_HEIGHT
    count_line = phone.locator("#results-count").inner_text()
    all_results = int(re.sub(r"\D", "", count_line.split("·")[0]))

    toggle.click()  # opens, with the counts
    expect(facets).to_be_visible()
    venue = facets.locator(".facet").first.locator(".facet-value").first
    label = venue.locator("span").first.inner_text()
    count = int(venue.locator(".count").inner_text())
    assert 0 < count < all_results
    venue.click()  # applies: the new page has the filter, the facets folded again
    phone.wait_for_url(re.compile(r"venue="))
    expect(facets).to_be_hidden()
    chip = phone.locator("#filter-bar a.chip")
    expect(chip).to_have_count(1)
    expect(chip.locator("span").first).to_have_text(label)
    expect(toggle.locator(".filter-count")).to_have_text("1")
    expect(phone.locator("#results-count")).to_contain_text(str(count))
    venues = phone.locator("#cards .card .venue").all_inner_texts()
    assert venues and all(v.startswith(label) for v in venues), (label, venues)

    toggle.click()  # a second filter: two chips, and each removes only its own
    year = facets.locator(".facet").nth(1).locator(".facet-value").first
    year_label = year.locator("span").first.inner_text()
    year.click()
    phone.wait_for_url(re.compile(r"year="))
    expect(chip).to_have_count(2)
    phone.locator("#filter-bar a.chip", has_text=label).click()
    phone.wait_for_url(lambda url: "venue=" not in url)
    params = query(phone.url)
    assert params["q"] == ["learning"] and params["year"] == [year_label] and "venue" not in params
    expect(chip).to_have_count(1)
    chip.click()  # the last one: back to all the results, no chips
    phone.wait_for_url(lambda url: "year=" not in url)
    assert query(phone.url) == {"q": ["learning"]}
    expect(chip).to_have_count(0)
    expect(phone.locator("#results-count")).to_contain_text(str(all_results))


def heights(page, selector: str) -> list[float]:
    nodes = page.locator(selector)
    return [nodes.nth(i).bounding_box()["height"] for i in range(nodes.count())
            if nodes.nth(i).is_visible()]


def test_touch_targets_are_at_least_40_px(phone):
    measured = {}
    phone.goto(SEARCH)  # results enough for a second page
    phone.locator("#filter-toggle summary").click()
    for name, selector in {"facet values": "#facets .facet-value", "pager": ".pager .btn",
                           "language switch": "#lang-switch",
                           "filter toggle": "#filter-toggle summary",
                           "sort and export": ".results-tools a"}.items():
        measured[name] = heights(phone, selector)
    phone.goto(SEARCH + "&venue=corl")
    measured["chips"] = heights(phone, "#filter-bar a.chip")
    assert all(measured.values()), measured  # each kind of target is on the page
    small = {name: min(h) for name, h in measured.items() if min(h) < TOUCH_PX}
    assert not small, small


def test_the_search_box_stays_put_under_an_on_screen_keyboard(phone):
    phone.goto("/")
    # the keyboard covers the page instead of shrinking it, so nothing sized by the screen moves
    viewport = phone.locator("meta[name=viewport]").get_attribute("content")
    assert "interactive-widget=resizes-visual" in viewport
    box = phone.locator("#q")
    assert box.get_attribute("enterkeyhint") == "search"
    # 16 px or more, or a phone zooms the page in when the box takes the focus
    assert float(box.evaluate("b => getComputedStyle(b).fontSize")[:-2]) >= 16
    box.focus()
    before = box.bounding_box()
    phone.set_viewport_size({"width": phone.width, "height": PHONE_HEIGHT - KEYBOARD_PX})
    assert box.bounding_box() == before
    box.press_sequentially("benchmark", delay=20)  # results arrive below the box as it types
    expect(phone.locator("#cards .card").first).to_be_visible(timeout=LIVE_BUDGET_MS)
    expect(phone.locator("#filter-bar")).to_be_visible()  # the script brought facets: foldable
    assert box.bounding_box() == before
    assert document_width(phone) <= phone.width
    box.press("Enter")  # the keyboard's search key submits
    phone.wait_for_url(re.compile(r"[?&]q=benchmark"))
    expect(phone.locator("#q")).to_have_value("benchmark")
    expect(phone.locator("#cards .card").first).to_be_visible()
    assert phone.locator("#q").bounding_box() == before


def test_chips_follow_the_query_typed_after_the_page_loaded(browser, portal):
    context, page, errors = open_phone(browser, portal, 390, "en")
    page.goto(SEARCH + "&venue=colm")
    page.locator("#q").fill("")
    type_query(page, "language")
    chip = page.locator("#filter-bar a.chip")
    expect(chip).to_have_attribute("href", "/?q=language", timeout=LIVE_BUDGET_MS)
    chip.click()
    page.wait_for_url(lambda url: "venue=" not in url)
    assert query(page.url) == {"q": ["language"]}
    context.close()
    assert not errors, errors


def test_filters_work_without_script(browser, portal):
    context = browser.new_context(base_url=portal.url, locale="en-US", is_mobile=True,
                                  has_touch=True, java_script_enabled=False,
                                  viewport={"width": 390, "height": PHONE_HEIGHT})
    page = context.new_page()
    page.goto(SEARCH)
    expect(page.locator("#facets")).to_be_hidden()
    page.locator("#filter-toggle summary").click()  # a <details>: no script needed to open it
    page.locator("#facets .facet-value", has_text="CoRL").click()
    page.wait_for_url(re.compile(r"venue=corl"))
    expect(page.locator("#facets")).to_be_hidden()
    page.locator("#filter-bar a.chip", has_text="CoRL").click()
    page.wait_for_url(lambda url: "venue=" not in url)
    assert query(page.url) == {"q": ["learning"]}
    page.goto("/?q=zzzqqxxnothing")  # no results, no facets: nothing to fold
    expect(page.locator("#filter-bar")).to_be_hidden()
    assert document_width(page) <= 390
    context.close()


def test_phone_screenshots(browser, portal, shoot):
    for lang, path, name, opened in [("en", SEARCH + "&venue=corl", "phone-search", False),
                                     ("zh", SEARCH, "phone-filters-zh", True),
                                     ("en", PAGE_KINDS["stats"], "phone-stats", False),
                                     ("zh", PAGE_KINDS["author"], "phone-author-zh", False)]:
        context, page, errors = open_phone(browser, portal, 390, lang)
        page.goto(path)
        if opened:
            page.locator("#filter-toggle summary").click()
            expect(page.locator("#facets")).to_be_visible()
        page.locator("#q").evaluate("b => b.blur()") if page.locator("#q").count() else None
        shoot(page, name)
        context.close()
        assert not errors, errors


@pytest.mark.parametrize("width", [1280, 1024])
def test_desktop_keeps_the_facet_column_and_no_phone_controls(browser, portal, width):
    context = browser.new_context(base_url=portal.url, locale="en-US",
                                  viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(SEARCH + "&venue=corl")
    expect(page.locator("#filter-bar")).to_be_hidden()
    facets = page.locator("#facets").bounding_box()
    results = page.locator("#results").bounding_box()
    assert facets["width"] == 230 and facets["x"] + 230 + 28 == results["x"]
    assert facets["y"] == results["y"]
    value = page.locator("#facets .facet-value").first.bounding_box()
    assert value["height"] < TOUCH_PX  # the touch sizes stay on phones
    page.goto(PAGE_KINDS["stats"])
    assert page.locator(".table-box").evaluate("b => getComputedStyle(b).overflowX") == "visible"
    context.close()


def test_each_chip_drops_only_its_own_value(portal):
    page = portal.get("/", params=[("q", "learning"), ("venue", "colm"), ("venue", "corl"),
                                   ("sort", "newest")]).text
    chips = dict(re.findall(r'<a class="chip" href="([^"]+)" data-param="venue" '
                            r'data-value="(\w+)"', page))
    assert {v: k for k, v in chips.items()} == {
        "colm": "/?q=learning&amp;venue=corl&amp;sort=newest",
        "corl": "/?q=learning&amp;venue=colm&amp;sort=newest"}
    assert '<span class="filter-count">2</span>' in page
