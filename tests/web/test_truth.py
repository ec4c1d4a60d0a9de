"""Every page tells the truth (issue 29): statuses, citation counts, counts with their word,
coverage and long lists, through a real portal over a slice of the bundled corpus (built from
the bundled shards as they are: the statuses are derived when read, not regenerated)."""

from __future__ import annotations

import json

import httpx
import pytest

from paperfind.catalog.decisions import NO_DECISION

NO_DECISION_ZH = "数据中没有录用结果"


@pytest.fixture(scope="module")
def api(bundled_portal):
    with httpx.Client(base_url=bundled_portal.url, timeout=60) as client:
        yield client


def _keys(bundled_slice, venue: str, year: int, status: str) -> list[str]:
    records = [json.loads(line) for line in bundled_slice[0]]
    return [r["key"] for r in records if (r["venue"], r["year"], r["status"]) == (venue, year, status)]


def test_an_iclr_2024_submission_still_under_review_says_its_decision_is_not_in_the_data(
        api, bundled_slice) -> None:
    key = _keys(bundled_slice, "iclr", 2024, "Under Review")[0]
    card = api.get(f"/api/papers/{key}").json()
    assert (card["status"], card["source_status"]) == (NO_DECISION, "Under Review")
    en = api.get(f"/papers/{key}", params={"lang": "en"}).text
    zh = api.get(f"/papers/{key}", params={"lang": "zh"}).text
    assert NO_DECISION in en and "Under Review" not in en
    assert NO_DECISION_ZH in zh and "Under Review" not in zh


def test_status_facets_and_filters_count_the_derived_status(api, bundled_slice) -> None:
    undecided = _keys(bundled_slice, "iclr", 2024, "Under Review")
    data = api.get("/api/search", params={"venue": "iclr", "year": "2024", "size": 50}).json()
    statuses = {f["value"]: f["count"] for f in data["facets"]["status"]}
    assert "Under Review" not in statuses and statuses[NO_DECISION] == len(undecided)
    chosen = api.get("/api/search", params={"venue": "iclr", "year": "2024", "status": NO_DECISION,
                                            "size": 50}).json()
    assert sorted(r["key"] for r in chosen["results"]) == sorted(undecided)
    page = api.get("/", params={"venue": "iclr", "year": "2024", "lang": "zh", "q": ""}).text
    assert NO_DECISION_ZH in page


def test_a_neurips_2025_poster_is_an_acceptance_without_a_tier(api, bundled_slice) -> None:
    for year in (2024, 2025):
        key = _keys(bundled_slice, "nips", year, "Poster")[0]
        card = api.get(f"/api/papers/{key}").json()
        assert (card["status"], card["source_status"]) == ("Accept", "Poster")


def test_sort_by_citations_says_how_many_have_a_count_and_orders_the_rest_by_standing(api) -> None:
    params = {"venue": ["nips", "iclr"], "sort": "citations", "size": 100}
    data = api.get("/api/search", params=params).json()
    results = data["results"]
    assert data["total"] == len(results) > 20
    counted = [r for r in results if r["citations"] is not None]
    assert 0 < data["with_citations"] == len(counted) < len(results)
    standing = [api.get(f"/api/papers/{r['key']}").json()["standing"]["score"] for r in results]
    assert standing == sorted(standing, reverse=True)  # one order, counted or not
    en = api.get("/", params={**params, "lang": "en", "size": 20}).text
    assert f"{len(counted)} of {len(results)} results have a citation count" in en
    zh = api.get("/", params={**params, "lang": "zh", "size": 20}).text
    assert f"其中 {len(counted)} 篇有引用数（共 {len(results)} 篇）" in zh


AUTHOR = "huishuai-zhang"  # two of whose works have an ICLR and an ICML version


def test_an_author_page_its_twin_the_search_card_and_the_cli_count_the_same_works(
        api, bundled_portal) -> None:
    from paperfind.search.format import format_results_text
    from paperfind.search.response import SearchRequest

    data = api.get(f"/api/authors/{AUTHOR}").json()
    versions, works = data["versions"], data["works"]
    assert versions > works == data["total"] == len(data["papers"]) == data["paging"]["total"]
    assert sum(n for _, n in data["per_year"]) == works
    en = api.get(f"/authors/{AUTHOR}", params={"lang": "en"}).text
    assert f"{versions} versions of {works} works" in en and f"{versions} papers" not in en
    zh = api.get(f"/authors/{AUTHOR}", params={"lang": "zh"}).text
    assert f"{works} 篇成果（{versions} 个版本）" in zh
    found = api.get("/api/search", params={"q": "Huishuai Zhang"}).json()
    card = next(a for a in found["authors"] if a["id"] == AUTHOR)
    assert (card["paper_count"], card["work_count"]) == (versions, works)
    text = format_results_text(bundled_portal.paperfind.searcher().search(SearchRequest(q="Huishuai Zhang")))
    assert f"{versions} versions of {works} works" in text


def test_an_author_list_pages_sorts_and_keeps_the_accepted(api) -> None:
    every = api.get(f"/api/authors/{AUTHOR}").json()
    pages = [api.get(f"/api/authors/{AUTHOR}", params={"page": n, "size": 4}).json()
             for n in range(1, 4)]
    assert [p["paging"]["pages"] for p in pages] == [-(-every["works"] // 4)] * 3
    assert [c["key"] for p in pages for c in p["papers"]] == [c["key"] for c in every["papers"]][:12]
    html = api.get(f"/authors/{AUTHOR}", params={"size": 4, "lang": "en"}).text
    assert html.count('class="card compact"') == 4 and 'rel="next"' in html and 'id="accepted-only"' in html
    cited = api.get(f"/api/authors/{AUTHOR}", params={"sort": "citations"}).json()
    standing = [api.get(f"/api/papers/{c['key']}").json()["standing"]["score"] for c in cited["papers"]]
    assert standing == sorted(standing, reverse=True) and cited["sort"] == "citations"
    accepted = api.get(f"/api/authors/{AUTHOR}", params={"accepted": "true"}).json()
    from paperfind.cards import standing as standing_of
    assert accepted["total"] == len(accepted["papers"]) == sum(
        standing_of(c["status"]) == 0 for c in every["papers"]) < every["works"]
    assert all(standing_of(c["status"]) == 0 for c in accepted["papers"])


def test_institution_and_venue_lists_count_works_and_take_the_same_parameters(api) -> None:
    inst = api.get("/api/institutions/tsinghua", params={"size": 3, "sort": "citations"}).json()
    assert inst["total"] == inst["works"] == inst["paging"]["total"] and len(inst["papers"]) == 3
    venue = api.get("/api/venues/iclr", params={"year": 2024, "accepted": "true"}).json()
    assert venue["total"] == len(venue["papers"]) and venue["total"] < venue["versions"]
    assert all(p["status"] in ("Oral", "Spotlight", "Poster") for p in venue["papers"])
    page = api.get("/venues/iclr", params={"year": 2024, "lang": "en"}).text
    line = (f"{venue['works']} works" if venue["versions"] == venue["works"]
            else f"{venue['versions']} versions of {venue['works']} works")
    assert f'id="works-count">{line}<' in page


def test_a_venue_year_says_what_the_data_lacks_and_an_institution_its_thin_years(
        api, bundled_slice) -> None:
    stats = {(r["venue"], r["year"]): r for r in api.get("/api/stats").json()["venue_years"]}
    row = stats[("iclr", 2024)]
    venue = api.get("/api/venues/iclr", params={"year": 2024}).json()
    assert venue["coverage"] == {k: row[k] for k in ("papers", "with_abstract", "with_authors",
                                                     "with_affiliations")}
    assert row["with_abstract"] < row["papers"]
    en = api.get("/venues/iclr", params={"year": 2024, "lang": "en"}).text
    assert f"abstracts in the data for {row['with_abstract']} of {row['papers']} papers" in en
    zh = api.get("/venues/iclr", params={"year": 2024, "lang": "zh"}).text
    assert f"数据中有摘要的论文：{row['with_abstract']} / {row['papers']} 篇" in zh
    per_year: dict[int, list[int]] = {}
    for r in stats.values():
        papers, affs = per_year.setdefault(r["year"], [0, 0])
        per_year[r["year"]] = [papers + r["papers"], affs + r["with_affiliations"]]
    # an institution with a paper in a year when few papers have affiliations in the data
    records = [json.loads(line) for line in bundled_slice[0]]
    slug = next(f["slug"] for r in records for a in r["authors"] for f in a["affiliations"]
                if f["slug"] and per_year[r["year"]][1] < 0.5 * per_year[r["year"]][0])
    inst = api.get(f"/api/institutions/{slug}").json()
    thin = [y for y, _ in inst["per_year"] if per_year[y][1] < 0.5 * per_year[y][0]]
    assert inst["thin_affiliation_years"] == thin and thin
    page = api.get(f"/institutions/{slug}", params={"lang": "en"}).text
    assert f"Few affiliations in the data for {', '.join(map(str, thin))}" in page


@pytest.mark.parametrize("width", [1280, 390])
def test_cards_the_script_draws_say_no_decision_and_how_many_are_counted(browser, bundled_portal,
                                                                           bundled_slice, width) -> None:
    """Search as you type redraws cards and the results line: in Chinese, on a desktop and a
    phone, they say what the server's page says."""
    sync_api = pytest.importorskip("playwright.sync_api")
    records = [json.loads(line) for line in bundled_slice[0]]
    title = next(r["title"] for r in records if (r["venue"], r["year"], r["status"])
                 == ("iclr", 2024, "Under Review") and r["area"])
    context = browser.new_context(base_url=bundled_portal.url, locale="zh-CN",
                                  viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto("/?lang=zh")
    page.fill("#q", title)
    card = page.locator(".card", has_text=title).first
    sync_api.expect(card.locator(".status")).to_have_text(NO_DECISION_ZH, timeout=10_000)
    sync_api.expect(page.locator("#with-citations")).to_contain_text("篇有引用数")
    context.close()
