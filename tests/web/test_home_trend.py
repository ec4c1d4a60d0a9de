"""The home page (what is indexed, examples, latest venue-years) and a query's trend, over a
real server: the grid reads the database and follows an ingest, the trend's figures are the
facet counts and the totals of the searches they stand for."""

from __future__ import annotations

import re
from html import unescape

import pytest
from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.charts import year_chart
from paperfind.web.examples import EXAMPLES
from paperfind.web.i18n import STRINGS
from tests.realdata import load_paperlist, write_slice
from tests.web.conftest import serve

CELL = re.compile(r'<tr data-venue="([^"]+)">|<a href="(/\?venue=[^"]+)" data-year="(\d+)" '
                  r'data-papers="(\d+)"')
BAR = re.compile(r'<rect class="bar"[^>]* data-year="(\d+)" data-count="(\d+)"(?: data-of="(\d+)")?')
TREND_QUERIES = ["learning", "benchmark", "3D reconstruction", "venue:corl"]


def grid_cells(html: str) -> dict[tuple[str, int], tuple[int, str]]:
    """(venue, year) -> (papers, link) of the home page's grid."""
    cells, venue = {}, None
    for row_venue, link, year, papers in CELL.findall(html):
        if row_venue:
            venue = row_venue
        else:
            cells[(venue, int(year))] = (int(papers), unescape(link))
    return cells


def svg_bars(html: str, kind: str) -> list[list[tuple[int, int, int | None]]]:
    """Per chart of this kind on a page, its bars as (year, count, of)."""
    charts = re.findall(rf'<svg class="chart"[^>]*data-chart="{kind}">(.*?)</svg>', html, re.S)
    return [[(int(y), int(n), int(of) if of else None) for y, n, of in BAR.findall(c)]
            for c in charts]


def test_home_grid_is_the_database_and_each_cell_opens_its_papers(portal):
    for lang in ("en", "zh"):
        html = portal.get("/", params={"lang": lang}).text
        cells = grid_cells(html)
        stats = portal.get("/api/stats").json()
        assert cells.keys() == {(r["venue"], r["year"]) for r in stats["venue_years"]}
        for row in stats["venue_years"]:
            papers, link = cells[(row["venue"], row["year"])]
            assert papers == row["papers"]
            found = portal.get("/api" + link.replace("/?", "/search?")).json()
            assert found["total"] > 0 and {r["venue"] for r in found["results"]} == {row["venue"]}
            assert {r["year"] for r in found["results"]} == {row["year"]}
        # the latest venue-years, newest first, each a link to its venue page
        recent = re.findall(r'<a href="/venues/([^"?]+)\?year=(\d+)">', html.split('id="recent"')[1]
                            .split("</section>")[0])
        years = [int(y) for _, y in recent]
        assert recent and years == sorted(years, reverse=True)
        assert years[0] == max(r["year"] for r in stats["venue_years"])
        # examples in the page's language, each a search link
        strings = STRINGS[lang]
        for label, q in EXAMPLES[lang]:
            assert strings[label] in html
            assert f'href="/?q={_quoted(q)}"' in html
        assert 'rel="alternate" type="application/json" href="/api/stats"' in html


def _quoted(q: str) -> str:
    from urllib.parse import quote
    return quote(q, safe="/").replace("&", "&amp;")


def test_home_grid_follows_an_ingest(tmp_path):
    """Cached, but never stale: a venue-year ingested while the server runs is on the next visit."""
    pf = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    pf.ingest([write_slice(tmp_path / "a", "colt", 2019, load_paperlist("colt", 2019)[:6])],
              progress=False)
    with serve(pf) as portal:
        assert grid_cells(portal.get("/?lang=en").text).keys() == {("colt", 2019)}
        assert grid_cells(portal.get("/?lang=en").text).keys() == {("colt", 2019)}
        pf.ingest([write_slice(tmp_path / "b", "colt", 2018, load_paperlist("colt", 2018)[:4])],
                  progress=False)
        cells = grid_cells(portal.get("/?lang=en").text)
        assert cells == {("colt", 2018): (4, "/?venue=colt&year=2018"),
                         ("colt", 2019): (6, "/?venue=colt&year=2019")}


def test_trend_figures_are_the_facet_counts_and_the_totals_they_stand_for(portal):
    everything = {}  # year -> works, from filter-only searches
    for q in TREND_QUERIES:
        data = portal.get("/api/search", params={"q": q}).json()
        trend = data["trend"]
        assert trend["unit"] == "works" and data["total"] > 0
        facet_years = {int(f["value"]): f["count"] for f in data["facets"]["year"]}
        assert {p["year"]: p["works"] for p in trend["years"] if p["works"]} == facet_years
        assert sum(facet_years.values()) >= data["total"]  # a work may have versions in two years
        facet_venues = {f["value"]: f["count"] for f in data["facets"]["venue"]}
        for point in trend["years"]:
            year = point["year"]
            if year not in everything:
                everything[year] = portal.get("/api/search", params={"year": year}).json()["total"]
            assert point["of"] == everything[year]
            if point["works"]:  # a click on the year facet lists exactly that many
                clicked = portal.get("/api/search", params={"q": q, "year": year}).json()
                assert clicked["total"] == point["works"]
                assert point["share"] == round(point["works"] / point["of"], 6)
        for line in trend["venues"]:
            venue = line["venue"]
            assert portal.get("/api/search", params={"q": q, "venue": venue}).json()["total"] \
                == facet_venues[venue]
            assert sum(p["works"] for p in line["years"]) >= facet_venues[venue]
            for point in line["years"]:
                assert point["of"] == portal.get("/api/search", params={
                    "venue": venue, "year": point["year"]}).json()["total"]
                assert point["works"] == portal.get("/api/search", params={
                    "q": q, "venue": venue, "year": point["year"]}).json()["total"]
        assert [v["venue"] for v in trend["venues"]] == list(facet_venues)[:len(trend["venues"])]


def test_trend_chart_draws_the_json_and_has_its_own_twin(portal):
    q = "learning"
    data = portal.get("/api/search", params={"q": q}).json()
    html = portal.get("/", params={"q": q, "lang": "en"}).text
    [overall] = svg_bars(html, "trend")
    years = {p["year"]: p for p in data["trend"]["years"]}
    assert [b[0] for b in overall] == list(range(min(years), max(years) + 1))
    for year, count, of in overall:
        if year in years:
            assert (count, of) == (years[year]["works"], years[year]["of"])
    multiples = svg_bars(html, "trend-venue")
    assert len(multiples) == len(data["trend"]["venues"]) > 1
    for bars, line in zip(multiples, data["trend"]["venues"]):
        drawn = {y: (n, of) for y, n, of in bars if of is not None}
        assert drawn == {p["year"]: (p["works"], p["of"]) for p in line["years"]}
        assert f'data-venue="{line["venue"]}"' in html
    # the JSON twin of the chart alone, and the fragment the script fetches
    twin = portal.get("/api/search/trend", params={"q": q}).json()
    assert twin["trend"] == data["trend"] and twin["total"] == data["total"]
    fragment = portal.get("/trend", params={"q": q, "lang": "en"}).text
    assert svg_bars(fragment, "trend") == [overall] and "<html" not in fragment
    assert "<svg" not in portal.get("/trend", params={"q": "zzzqqqxxyy"}).text
    # a year filter narrows the chart to its years: one bar is no trend, so none is drawn
    one_year = portal.get("/", params={"q": q, "year": max(years)}).text
    assert not svg_bars(one_year, "trend")


def test_trend_is_described_in_openapi(portal):
    schema = portal.get("/openapi.json").json()
    op = schema["paths"]["/api/search/trend"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    model = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert {"query", "total", "filters", "trend"} <= model["properties"].keys()
    point = schema["components"]["schemas"]["TrendPoint"]["properties"]
    assert {"year", "works", "of", "share"} == point.keys()
    assert {p["name"] for p in op["parameters"]} >= {"q", "venue", "year"}


def test_area_page_draws_its_papers_per_year(portal):
    area = portal.get("/api/search", params={"venue": "ijcai"}).json()["facets"]["area"][0]["value"]
    data = portal.get(f"/api/areas/{area}").json()
    assert sum(n for _, n in data["per_year"]) == data["total"]
    [bars] = svg_bars(portal.get(f"/areas/{area}").text, "per-year")
    assert [(y, n) for y, n, _ in bars if n] == [tuple(p) for p in data["per_year"]]


def test_share_bars_are_scaled_by_the_share_not_the_count():
    chart = year_chart([(2019, 10, 100), (2020, 20, 400), (2021, 1, 10)], width=400, height=100)
    by_year = {b.year: b for b in chart.bars}
    assert by_year[2019].height == by_year[2021].height > by_year[2020].height  # 10% vs 5%
    assert [b.label for b in chart.bars] == ["10%", "5.0%", "10%"]
    small = year_chart([(2020, 1, 400)], span=(2018, 2021), tallest=0.5)
    assert [b.year for b in small.bars] == [2018, 2019, 2020, 2021]  # shared x axis
    assert 0 < small.bars[2].height < 1  # 0.25% of a 50% axis
    assert [b.show_year for b in year_chart([(y, 1) for y in range(2000, 2030)], 200).bars][-1]
