"""The HTML pages: each has its JSON twin, text is escaped, both languages are complete."""

from __future__ import annotations

import re
from html import unescape

import httpx
import pytest

from paperfind.limits import MAX_QUERY_CHARS
from paperfind.web.charts import year_chart
from paperfind.web.export import bibtex_entry, to_csv
from paperfind.web.i18n import STRINGS, Translator, choose_language
from tests.web.conftest import GPQA, MINICPM, Portal

ALTERNATE = re.compile(r'<link rel="alternate" type="application/json" href="([^"]+)">')


def page_urls(portal: Portal) -> list[str]:
    paper = portal.get(f"/api/papers/{GPQA}").json()
    area = portal.get("/api/search", params={"venue": "ijcai"}).json()["facets"]["area"][0]["value"]
    author = paper["authors"][0]["id"]
    return ["/", "/?q=benchmark", "/?q=learning&venue=colm&venue=corl&sort=newest&lang=en",
            f"/papers/{GPQA}", f"/papers/{GPQA}?aspect=method", f"/authors/{author}",
            f"/institutions/{paper['institutions'][0]}", "/venues/colm?year=2024&size=5&page=2",
            f"/areas/{area}", "/stats", "/docs"]


def card_keys(html: str) -> list[str]:
    return re.findall(r'data-key="([^"]+)"', html)


def test_every_page_has_its_json_twin(portal):
    """Each page names its twin in its head and in a Link header; the twin answers JSON with
    the page's own data: the same papers in the same order, or the title or name shown."""
    for url in page_urls(portal):
        page = httpx.get(portal.url + url)  # not the shared client: ?lang= would set its cookie
        assert page.status_code == 200, url
        assert page.headers["content-type"].startswith("text/html")
        twin = ALTERNATE.search(page.text)
        assert twin, f"{url} names no JSON twin"
        twin_url = unescape(twin.group(1))
        # the first of its links (a list's page names its feed after it)
        assert page.headers["link"].split(", ")[0] == f'<{twin_url}>; rel="alternate"; type="application/json"', url
        assert "lang=" not in twin_url, url  # the interface language is no part of the data
        data = portal.get(twin_url)
        assert data.status_code == 200 and data.headers["content-type"].startswith("application/json")
        body = data.json()
        listed = body.get("results") or body.get("papers")
        if isinstance(listed, list):  # a list of papers: the page shows exactly these cards
            shown_keys = card_keys(page.text)
            assert [p["key"] for p in listed] == shown_keys[:len(listed)], url
            assert len(listed) == len(shown_keys) or url.startswith("/authors/"), url
        first = listed[0] if isinstance(listed, list) and listed else {}
        shown = (body.get("title") or body.get("name") or first.get("title") or
                 body.get("info", {}).get("title") or str(body.get("papers", "")))
        assert str(shown) in unescape(re.sub(r"<[^>]+>", "", page.text)), url


def test_every_html_route_is_in_the_twin_table(portal):
    from fastapi.responses import HTMLResponse
    from fastapi.routing import APIRoute

    from paperfind.web.app import create_app
    from paperfind.web.twins import TWINS

    def routes(router) -> list:  # an included router is a route holding its own routes
        inner = getattr(router, "original_router", router)
        found = []
        for route in getattr(inner, "routes", []):
            found += [route] if isinstance(route, APIRoute) else routes(route)
        return found

    pages = {r.path for r in routes(create_app(portal.paperfind)) if r.response_class is HTMLResponse}
    assert "/papers/{key}" in pages
    assert pages == set(TWINS), "a page without a row in web/twins.TWINS has no JSON twin"


def test_twins_keep_the_query_the_data_depends_on(portal):
    venue = httpx.get(f"{portal.url}/venues/colm", params={"year": 2024, "size": 5, "page": 2,
                                                           "lang": "en"})
    assert ALTERNATE.search(venue.text).group(1) == "/api/venues/colm?year=2024&amp;size=5&amp;page=2"
    home = httpx.get(f"{portal.url}/", params={"lang": "en"})  # a first visit: what is indexed
    assert ALTERNATE.search(home.text).group(1) == "/api/stats"
    search = portal.get("/", params=[("q", "learning"), ("venue", "colm"), ("venue", "corl")])
    assert search.headers["link"].startswith("</api/search?q=learning&venue=colm&venue=corl>;")
    paper = portal.get(f"/papers/{GPQA}", params={"aspect": "method"})  # the paper, whatever aspect
    assert paper.headers["link"].startswith(f"</api/papers/{GPQA}>;")
    similar = re.search(r'class="json-link" href="([^"]+)"', paper.text).group(1)
    assert unescape(similar) == f"/api/papers/{GPQA}/similar?limit=8&aspect=method"
    shown = card_keys(paper.text[paper.text.index('id="similar"'):])
    assert [p["key"] for p in portal.get(unescape(similar)).json()["results"]] == shown
    fragment = portal.get("/trend", params={"q": "learning"})  # the chart the results script fetches
    trend = portal.get(fragment.headers["link"][1:fragment.headers["link"].index(">")])
    assert trend.status_code == 200 and trend.json()["query"] == "learning"


def test_titles_are_escaped(portal):
    page = portal.get(f"/papers/{GPQA}").text
    assert "Google-Proof Q&amp;A Benchmark" in page and "Q&A Benchmark" not in page
    evil = portal.get("/", params={"q": '<script>alert("x")</script>'}).text
    assert '<script>alert("x")' not in evil and "&lt;script&gt;" in evil


def test_search_boxes_take_what_the_searcher_reads(portal):
    """A box that takes more than the searcher reads would cut a pasted abstract silently."""
    for url in ["/", f"/papers/{GPQA}"]:
        lengths = re.findall(r'<input[^>]*type="search"[^>]*maxlength="(\d+)"', portal.get(url).text)
        assert lengths and set(lengths) == {str(MAX_QUERY_CHARS)}, (url, lengths)


def test_language_from_header_switch_and_cookie(portal):
    zh = portal.get("/", headers={"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert "论文检索" in zh.text and "输入标题、作者或关键词，从 65 篇学术成果中精准定位" in zh.text
    en = portal.get("/", headers={"accept-language": "en-GB,en;q=0.9"})
    assert "Paper search" in en.text and "65 papers" in en.text
    switched = portal.get("/", params={"lang": "en"}, headers={"accept-language": "zh"})
    assert "Paper search" in switched.text and "lang=en" in switched.headers["set-cookie"]
    remembered = portal.client.get("/", headers={"accept-language": "zh", "cookie": "lang=en"})
    assert "Paper search" in remembered.text
    assert choose_language("xx", None, "fr;q=1, en;q=0.5") == "en"
    assert choose_language(None, None, None) == "zh"


def test_every_string_exists_in_both_languages():
    assert set(STRINGS["zh"]) == set(STRINGS["en"])
    assert all(STRINGS["zh"][k].strip() and STRINGS["en"][k].strip() for k in STRINGS["zh"])


def test_author_lines_follow_the_seed_pages(portal):
    names = [f"Author {i}" for i in range(12)]
    assert Translator("en").author_line(names) == "Author 0, Author 1, Author 2 et al."
    assert Translator("zh").author_line(names).endswith("Author 9 等")
    page = portal.get("/", params={"q": "MiniCPM", "lang": "zh"}).text
    card = page[page.index(f'data-key="{MINICPM}"'):]
    assert re.search(r'<span class="etal">等</span>', card[:4000])


def test_error_pages_are_html_for_people_and_json_for_clients(portal):
    page = portal.get("/papers/colm2024:nothing", headers={"accept-language": "en"})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert 'data-code="not_found"' in page.text and "colm2024:nothing" in page.text
    as_json = portal.get("/papers/colm2024:nothing", headers={"accept": "application/json"})
    assert as_json.json()["error"]["code"] == "not_found"
    bad = portal.get("/venues/colm", params={"page": "-1"})
    assert bad.status_code == 422 and "&#39;page&#39;" in bad.text


def test_an_institution_spelt_wrong_is_offered_the_right_one(portal):
    """An address typed wrong, past what the resolver reads as the institution (one letter of
    a word: a 308 since the name is read as the papers' affiliations are), is a 404 that offers
    the institutions spelt most like it (a link on the page, the slug in the API's message);
    nothing close, nothing offered."""
    facet = portal.get("/api/search", params={"q": "learning"}).json()["facets"]["institution"]
    slug = next(f["value"] for f in facet if len(f["value"]) >= 12)  # a short one's swap is far
    typo = slug[:-2] + slug[-1] + slug[-2] + "q"  # the last two letters swapped, one added
    page = portal.get(f"/institutions/{typo}", headers={"accept-language": "en"})
    assert page.status_code == 404
    assert f'href="/institutions/{slug}"' in page.text and "Did you mean:" in page.text
    api = portal.get(f"/api/institutions/{typo}")
    assert api.status_code == 404 and repr(slug) in api.json()["error"]["message"]
    far = portal.get("/institutions/zzzz-qqqq-no-such-place", headers={"accept-language": "en"})
    assert far.status_code == 404 and "error-links" not in far.text


def test_an_institution_named_in_full_is_sent_to_its_page(portal):
    """An address with the institution's name written out ("stanford-university") is a 308 to
    its slug ("stanford") on the page, the API and the feed, the query kept; a slug that names
    no stored institution stays a 404."""
    facet = portal.get("/api/search", params={"q": "learning", "size": 100}).json()["facets"]["institution"]
    named = {f["value"]: "-".join(re.findall(r"[a-z0-9]+", f["label"].lower())) for f in facet}
    written_out = {slug: full for slug, full in named.items() if full != slug}
    checked = 0
    for slug, full in written_out.items():
        page = portal.get(f"/institutions/{full}", params={"sort": "date"}, follow_redirects=False)
        if page.status_code == 404:  # a name the resolver reads as another institution's
            continue
        assert page.status_code == 308, (slug, full)
        assert page.headers["location"] == f"/institutions/{slug}?sort=date"
        api = portal.get(f"/api/institutions/{full}", follow_redirects=False)
        assert api.status_code == 308 and api.headers["location"] == f"/api/institutions/{slug}"
        feed = portal.get(f"/feeds/institutions/{full}.atom", follow_redirects=False)
        assert feed.status_code == 308 and feed.headers["location"] == f"/feeds/institutions/{slug}.atom"
        assert portal.get(f"/api/institutions/{full}", follow_redirects=True).json()["slug"] == slug
        checked += 1
    assert checked >= 3, written_out
    assert portal.get("/institutions/university-of-atlantis", follow_redirects=False).status_code == 404


@pytest.mark.parametrize("url", ["/papers/colm2024:dkpeWQRmlc", "/stats", "/?q=robot"])
def test_pages_have_no_inline_script(portal, url):
    html = portal.get(url).text
    for match in re.finditer(r"<script([^>]*)>", html):
        attrs = match.group(1)
        assert 'src="/static/' in attrs or 'type="application/json"' in attrs, attrs
    assert " style=" not in html and "onclick" not in html


def test_chart_layout_fills_year_gaps():
    chart = year_chart([(2019, 2), (2022, 4)], width=400, height=100)
    assert [b.year for b in chart.bars] == [2019, 2020, 2021, 2022]
    assert [b.count for b in chart.bars] == [2, 0, 0, 4]
    tallest = max(chart.bars, key=lambda b: b.height)
    assert tallest.year == 2022 and tallest.y + tallest.height == chart.baseline
    assert year_chart([]).empty


def test_exports_survive_braces_and_formulas():
    paper = {"key": "x2024:a b", "title": "A {broken} title}", "authors": [{"name": "=cmd()"}],
             "venue_name": "X", "year": 2024, "links": {}}
    entry = bibtex_entry(paper)
    assert entry.startswith("@inproceedings{x2024:a_b,") and entry.count("{") == entry.count("}")
    assert "'=cmd()" in to_csv([paper])


@pytest.mark.parametrize("status,kind", [("Poster", "inproceedings"), ("Oral", "inproceedings"), ("", "inproceedings"),
                                         ("Reject", "misc"), ("Withdraw", "misc"), ("Desk Reject", "misc"),
                                         ("Under Review", "misc")])
def test_only_an_accepted_paper_is_cited_as_in_the_proceedings(status, kind):
    """A rejected, withdrawn or under-review paper built as @inproceedings{booktitle = {ICLR}}
    was a wrong citation: it is @misc, "Submitted to ICLR 2022"."""
    paper = {"key": "iclr2022:q4pQkTlImdk", "title": "T", "authors": [{"name": "A B"}],
             "venue_name": "ICLR", "year": 2022, "status": status, "links": {}}
    entry = bibtex_entry(paper)
    assert entry.startswith(f"@{kind}{{iclr2022:q4pQkTlImdk,")
    if kind == "misc":
        assert "note = {Submitted to ICLR 2022}" in entry and "booktitle" not in entry
    else:
        assert "booktitle = {ICLR}" in entry


def test_one_is_singular_and_counts_have_separators():
    en, zh = Translator("en"), Translator("zh")
    assert en("papers_count", count=en.number(1)) == "1 paper"
    assert en("papers_count", count=en.number(1298)) == "1,298 papers"
    assert en("results_count", total=en.number(1)) == "1 result"
    assert zh("papers_count", count=zh.number(1)) == "1 篇论文"
