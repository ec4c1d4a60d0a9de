"""The portal in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

Screenshots of the search, author and paper pages are taken on each run, into a temporary folder
(into bench/screenshots/ with PAPERFIND_SCREENSHOTS=bench/screenshots: `shoot`, tests/web/conftest.py).
"""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import GPQA, MINICPM, PAGE_KINDS, type_query

DEBOUNCE_BUDGET_MS = 5000  # generous: the script waits 180 ms, the rest is the shared machine

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture()
def page(browser, portal):
    context = browser.new_context(base_url=portal.url, locale="en-US",
                                  viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=portal.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert not errors, errors  # no script errors and no CSP violations


def test_typing_a_title_fragment_shows_the_paper_first(page, shoot):
    page.goto("/")
    type_query(page, "Google-Proof Q&A")
    first = page.locator("#cards .card").first
    sync_api.expect(first).to_have_attribute("data-key", GPQA, timeout=DEBOUNCE_BUDGET_MS)
    sync_api.expect(first.locator("mark").first).to_be_visible()
    # the address follows (once the last keystroke's results are in), so reload and share work
    sync_api.expect(page).to_have_url(re.compile(r"q=Google-Proof"), timeout=DEBOUNCE_BUDGET_MS)
    page.locator("#q").fill("")
    type_query(page, "benchmark")
    # wait for the new query's cards: the count line of the previous query also says "results"
    sync_api.expect(page.locator("#cards .card mark", has_text=re.compile("benchmark", re.I)).first
                    ).to_be_visible(timeout=DEBOUNCE_BUDGET_MS)
    sync_api.expect(page.locator("#results-count")).to_contain_text("results")
    shoot(page, "search")


def test_author_card_leads_to_the_author_page_with_chart(page, shoot):
    page.goto("/")
    type_query(page, "Andreas Geiger")
    card = page.locator("#author-cards .author-card").first
    sync_api.expect(card).to_contain_text("Andreas Geiger", timeout=DEBOUNCE_BUDGET_MS)
    card.click()
    sync_api.expect(page.locator("#author-name")).to_have_text("Andreas Geiger")
    assert page.locator("#author-papers .card").count() >= 3
    assert page.locator("#coauthors li").count() >= 3
    bars = page.locator("svg[data-chart=per-year] rect.bar")
    assert bars.count() >= 3
    assert bars.first.bounding_box()["width"] > 0
    # the profile's own name is marked; where it is not among the first three, a click shows it
    folded = page.locator("#author-papers details.all-authors:not(:has(summary .me))").first
    sync_api.expect(folded.locator(".author.me")).to_be_hidden()
    folded.locator("summary").click()
    sync_api.expect(folded.locator(".author.me")).to_be_visible()
    shoot(page, "author")


def test_switching_language_shows_the_seed_wording(page, shoot):
    page.goto("/?q=MiniCPM")
    sync_api.expect(page.locator("h1")).to_have_text("Paper search")
    page.locator("#lang-switch").click()
    sync_api.expect(page.locator("h1")).to_have_text("论文检索")
    sync_api.expect(page.locator("#prompt")).to_contain_text("输入标题、作者或关键词")
    card = page.locator(f'.card[data-key="{MINICPM}"]')
    sync_api.expect(card.locator(".etal")).to_have_text("等")
    page.goto("/")  # remembered by the cookie
    sync_api.expect(page.locator("h1")).to_have_text("论文检索")
    type_query(page, "MiniCPM")  # the script's cards say 等 too
    sync_api.expect(page.locator(f'#cards .card[data-key="{MINICPM}"] .etal')).to_have_text(
        "等", timeout=DEBOUNCE_BUDGET_MS)
    shoot(page, "search-zh")


def test_paper_page_copies_its_bibtex(page, shoot):
    page.goto(f"/papers/{GPQA}")
    sync_api.expect(page.locator("h1")).to_have_text("GPQA: A Graduate-Level Google-Proof Q&A Benchmark")
    page.locator("#copy-bibtex").click()
    sync_api.expect(page.locator("#copy-bibtex")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@") and copied.strip() == page.locator("#bibtex").inner_text().strip()
    with page.expect_download() as download:
        page.locator("#download-bibtex").click()
    assert download.value.suggested_filename.endswith(".bib")
    shoot(page, "paper")


def test_a_work_shows_its_accepted_version_with_the_other_folded_under_it(browser, bundled_portal, shoot):
    """"Understanding Nonlinear Implicit Bias via Region Counts in Input Space" was rejected at
    ICLR 2025 and accepted at ICML 2025: search and the author page show the ICML paper once."""
    context = browser.new_context(base_url=bundled_portal.url, locale="en-US",
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    title = "Understanding Nonlinear Implicit Bias via Region Counts in Input Space"
    for path in (f"/?q={title}", "/authors/huishuai-zhang"):
        page.goto(path)
        cards = page.locator(".card", has_text=title)
        sync_api.expect(cards).to_have_count(1)
        sync_api.expect(cards.locator(".card-meta")).to_contain_text("ICML 2025")
        sync_api.expect(cards.locator(".card-versions")).to_contain_text("ICLR 2025 · Rejected")
    cards.scroll_into_view_if_needed()
    shoot(page, "author-versions")
    cards.locator(".card-versions a").click()  # to the folded version's own page
    sync_api.expect(page.locator(".paper-meta")).to_contain_text("ICLR 2025")
    context.close()


def test_names_and_titles_are_bidi_isolated_on_cards_drawn_either_way(page):
    """A stray U+202E in a name ("Alice \u202eEvil") must not reverse the co-authors after it:
    every name and title is its own bidi isolate, on the server's cards and on the ones the
    script draws as the user types."""
    isolated = """sel => [...document.querySelectorAll(sel)].map(e => getComputedStyle(e).unicodeBidi)"""
    page.goto("/?q=benchmark")
    for selector in ("#cards .card-authors .author", "#cards .card-title"):
        styles = page.evaluate(isolated, selector)
        assert styles and set(styles) == {"isolate"}, (selector, styles)
    page.locator("#q").fill("")
    type_query(page, "language")
    sync_api.expect(page.locator("#cards .card mark", has_text=re.compile("language", re.I)).first
                    ).to_be_visible(timeout=DEBOUNCE_BUDGET_MS)
    styles = page.evaluate(isolated, "#cards .card-authors .author")
    assert styles and set(styles) == {"isolate"}, styles


@pytest.mark.parametrize("lang, label", [("en", "Feed"), ("zh", "订阅")])
def test_every_list_page_shows_its_feed_in_both_languages(page, lang, label):
    """The search, author, institution and venue pages name their feed in the head and show a
    button to it, labelled in the page's language; the feed it leads to is Atom."""
    for kind in ("search", "author", "institution", "venue"):
        url = PAGE_KINDS[kind]
        page.goto(url + ("&" if "?" in url else "?") + "lang=" + lang)
        button = page.locator("#feed-button")
        sync_api.expect(button).to_be_visible()
        sync_api.expect(button).to_have_text(label)
        href = button.get_attribute("href")
        assert href.startswith("/feeds/") and href.endswith("lang=" + lang), kind
        head = page.locator('head link[rel="alternate"][type="application/atom+xml"]')
        assert head.get_attribute("href") == href, kind
        feed = page.request.get(href)
        assert feed.status == 200 and feed.headers["content-type"].startswith("application/atom+xml")
        assert "<feed" in feed.text(), kind


def test_search_as_you_type_moves_the_feed_to_the_new_query(page):
    page.goto("/?q=learning&lang=en")
    page.locator("#q").fill("")
    type_query(page, "benchmark")
    button = page.locator("#feed-button")
    sync_api.expect(button).to_have_attribute("href", "/feeds/search.atom?q=benchmark&lang=en",
                                              timeout=DEBOUNCE_BUDGET_MS)
    sync_api.expect(button).to_have_text("Feed")
    head = page.locator('head link[rel="alternate"][type="application/atom+xml"]')
    assert head.get_attribute("href") == "/feeds/search.atom?q=benchmark&lang=en"
