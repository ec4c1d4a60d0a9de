"""Every JSON route against the real server: its data, its limits, and the one error shape."""

from __future__ import annotations

import csv
import io
import json

import pytest

from paperfind.limits import MAX_QUERY_CHARS
from tests.web.conftest import GEIGER_PAPERS, GPQA, Portal


def assert_error(response, status: int, code: str, *words: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"status", "code", "message"}
    assert body["error"]["status"] == status and body["error"]["code"] == code
    for word in words:
        assert word in body["error"]["message"]
    return body["error"]


def geiger_slug(portal: Portal) -> str:
    paper = portal.get("/api/papers/colm2024:dkpeWQRmlc").json()
    return next(a["id"] for a in paper["authors"] if a["name"] == "Andreas Geiger")


def test_search_puts_the_paper_of_a_title_fragment_first(portal):
    data = portal.get("/api/search", params={"q": "Google-Proof Q&A Benchmark"}).json()
    assert data["results"][0]["key"] == GPQA
    first = data["results"][0]
    assert "<mark>" in first["highlights"]["title"]
    assert all(isinstance(a["id"], str) for a in first["authors"])  # slugs of /api/authors/{id}
    assert data["paging"] == {"page": 1, "size": 20, "total": data["total"],
                              "pages": -(-data["total"] // 20)}
    assert {"venue", "year"} <= set(data["facets"])


def test_search_filters_sorting_and_pages(portal):
    base = {"q": "learning"}
    every = portal.get("/api/search", params=base).json()
    only = portal.get("/api/search", params={**base, "venue": "corl", "year": "2022"}).json()
    assert 0 < only["total"] <= every["total"]
    assert {(r["venue"], r["year"]) for r in only["results"]} == {("corl", 2022)}
    assert only["filters"] == {"venue": ["corl"], "year": ["2022"]}
    newest = portal.get("/api/search", params={**base, "sort": "newest", "size": 5}).json()
    years = [r["year"] for r in newest["results"]]
    assert years == sorted(years, reverse=True)
    first = portal.get("/api/search", params={**base, "size": 5}).json()
    second = portal.get("/api/search", params={**base, "size": 5, "page": 2}).json()
    assert second["paging"]["page"] == 2 and second["results"]
    assert {r["key"] for r in first["results"]}.isdisjoint(r["key"] for r in second["results"])


@pytest.mark.parametrize("params, name", [
    ({"size": 101}, "size"), ({"size": 0}, "size"), ({"page": 0}, "page"),
    ({"page": "two"}, "page"), ({"sort": "random"}, "sort"), ({"year": "last year"}, "year"),
    ({"mode": "magic"}, "mode"),
])
def test_search_parameters_have_limits(portal, params, name):
    assert_error(portal.get("/api/search", params={"q": "robot", **params}), 422,
                 "invalid_parameter", f"'{name}'")


@pytest.mark.parametrize("q", [
    '"unbalanced', "author:", "year:9999", "-", "OR OR", "<script>alert(1)</script>", "\x00\u200b",
    "论文 检索", "a" * 5000, "venue:nope inst:nowhere area:\"x", "((((", "%", "😀" * 50,
])
def test_any_query_string_answers_200(portal, q):
    response = portal.get("/api/search", params={"q": q})
    assert response.status_code == 200, response.text
    assert len(response.json()["query"]) <= MAX_QUERY_CHARS


def test_paper_route_and_its_bibtex_file(portal):
    paper = portal.get(f"/api/papers/{GPQA}").json()
    assert paper["title"] == "GPQA: A Graduate-Level Google-Proof Q&A Benchmark"
    assert paper["bibtex_text"].startswith("@")
    bib = portal.get(f"/api/papers/{GPQA}/bibtex")
    assert bib.status_code == 200 and "attachment" in bib.headers["content-disposition"]
    assert bib.text.strip() == paper["bibtex_text"].strip()
    assert_error(portal.get("/api/papers/colm2024:nothing"), 404, "not_found", "colm2024:nothing")
    assert_error(portal.get("/api/papers/colm2024:nothing/bibtex"), 404, "not_found")


def test_author_route_and_exports(portal):
    slug = geiger_slug(portal)
    author = portal.get(f"/api/authors/{slug}").json()
    assert {p["key"] for p in author["papers"]} >= GEIGER_PAPERS
    assert author["coauthors"] and author["per_year"]
    bib = portal.get(f"/api/authors/{slug}/export", params={"format": "bibtex"})
    assert bib.text.count("@") >= 3 and "attachment" in bib.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(portal.get(f"/api/authors/{slug}/export",
                                                      params={"format": "csv"}).text)))
    assert {r["key"] for r in rows} >= GEIGER_PAPERS
    assert all("Andreas Geiger" in r["authors"] for r in rows)
    assert_error(portal.get("/api/authors/no-such-person"), 404, "not_found", "no-such-person")
    assert_error(portal.get(f"/api/authors/{slug}/export", params={"format": "pdf"}), 422,
                 "invalid_parameter", "format")


def test_search_export(portal):
    response = portal.get("/api/search/export", params={"q": "Google-Proof", "format": "csv"})
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert rows[0]["key"] == GPQA and rows[0]["url"].endswith(f"/papers/{GPQA}")
    bib = portal.get("/api/search/export", params={"q": "Google-Proof", "limit": 3})
    assert bib.headers["content-type"].startswith("application/x-bibtex")
    assert_error(portal.get("/api/search/export", params={"q": "x", "limit": 5000}), 422,
                 "invalid_parameter", "limit")


@pytest.mark.parametrize("fmt, media", [("bibtex", "application/x-bibtex"), ("csv", "text/csv"),
                                        ("jsonl", "application/jsonl")])
def test_an_export_of_a_chinese_query_is_named_by_its_words(portal, fmt, media):
    # headers are Latin-1: this was a 500 (found by schemathesis)
    response = portal.get("/api/search/export", params={"q": "基准 Benchmark", "format": fmt})
    assert response.status_code == 200 and response.headers["content-type"].startswith(media)
    disposition = response.headers["content-disposition"]
    assert 'filename="paperfind-___Benchmark.' in disposition
    assert "filename*=UTF-8''paperfind-%E5%9F%BA%E5%87%86_Benchmark." in disposition


def test_jsonl_export_is_one_card_per_line(portal):
    lines = portal.get("/api/search/export", params={"q": "Google-Proof", "format": "jsonl",
                                                     "limit": 3}).text.splitlines()
    cards = [json.loads(line) for line in lines]
    assert cards[0]["key"] == GPQA and cards[0]["abstract"] and cards[0]["authors"][0]["id"]


def test_institution_route(portal):
    slug = portal.get(f"/api/papers/{GPQA}").json()["institutions"][0]
    inst = portal.get(f"/api/institutions/{slug}", params={"size": 5}).json()
    assert inst["slug"] == slug and inst["paper_count"] >= 1
    assert GPQA in {p["key"] for p in inst["papers"]} or inst["paper_count"] > 5
    assert inst["paging"]["size"] == 5
    assert_error(portal.get("/api/institutions/atlantis"), 404, "not_found", "atlantis")


def test_venue_route(portal):
    venue = portal.get("/api/venues/colm", params={"year": 2024}).json()
    assert venue["name"] == "COLM" and venue["year"] == 2024 and venue["total"] == 18
    assert all(p["year"] == 2024 for p in venue["papers"])
    assert_error(portal.get("/api/venues/colm", params={"year": 1999}), 404, "not_found", "1999")
    assert_error(portal.get("/api/venues/colm", params={"year": 3000}), 422, "invalid_parameter")
    assert_error(portal.get("/api/venues/nowhere"), 404, "not_found")


def test_area_route(portal):
    area = portal.get("/api/search", params={"q": "", "venue": "ijcai"}).json()["facets"]["area"][0]
    data = portal.get(f"/api/areas/{area['value']}").json()
    assert data["name"] == area["value"] and data["total"] == area["count"]
    assert_error(portal.get("/api/areas/Alchemy"), 404, "not_found", "Alchemy")


def test_stats_route(portal):
    stats = portal.get("/api/stats").json()
    assert stats["papers"] == sum(r["papers"] for r in stats["venue_years"]) == 16 + 18 + 16 + 15


def test_unknown_routes_and_methods_have_the_error_shape(portal):
    assert_error(portal.get("/api/nothing-here"), 404, "not_found", "/api/nothing-here")
    assert_error(portal.client.post("/api/search", params={"q": "x"}), 405, "method_not_allowed")
    assert_error(portal.client.delete(f"/api/papers/{GPQA}"), 405, "method_not_allowed")
    as_json = {"accept": "application/json"}
    assert_error(portal.get("/static/", headers=as_json), 404, "not_found")  # no listing
    assert_error(portal.get("/static/../pyproject.toml", headers=as_json), 404, "not_found")


def test_openapi_lists_every_api_route_and_docs_need_no_cdn(portal):
    schema = portal.get("/openapi.json").json()
    assert {"/api/search", "/api/papers/{key}", "/api/authors/{author_id}",
            "/api/institutions/{slug}", "/api/venues/{slug}", "/api/areas/{name}",
            "/api/stats", "/api/search/export", "/api/authors/{author_id}/export"} <= set(schema["paths"])
    assert all(set(methods) == {"get"} for methods in schema["paths"].values())
    docs = portal.get("/docs")
    assert docs.status_code == 200 and "/api/search" in docs.text
    # each operation's responses: its model or its files' media types, and its examples
    assert "SearchResponse" in docs.text and "application/x-bibtex" in docs.text
    assert "iclr2024:2dnO3LLiJ1" in docs.text
    assert "cdn" not in docs.text.lower() and "<script src=\"http" not in docs.text


@pytest.mark.parametrize("path", ["/", "/api/search?q=x", f"/papers/{GPQA}", "/api/nothing",
                                  "/static/style.css"])
def test_security_headers_on_every_response(portal, path):
    headers = portal.get(path).headers
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"]


def test_similar_papers_route_and_the_paper_page_list(portal):
    data = portal.get(f"/api/papers/{GPQA}/similar", params={"limit": 5}).json()
    assert data["key"] == GPQA and 0 < len(data["results"]) <= 5
    first = data["results"][0]
    assert GPQA not in {r["key"] for r in data["results"]}
    assert {"key", "title", "authors", "venue_name", "year", "score", "reasons"} <= set(first)
    page = portal.get(f"/papers/{GPQA}").text
    assert 'id="similar"' in page and first["key"] in page  # rendered by the server
    assert_error(portal.get("/api/papers/colm2024:nothing/similar"), 404, "not_found")
    assert_error(portal.get(f"/api/papers/{GPQA}/similar", params={"limit": 1000}), 422,
                 "invalid_parameter")


def test_similar_papers_by_aspect_and_a_bad_aspect(portal):
    whole = portal.get(f"/api/papers/{GPQA}/similar", params={"limit": 10}).json()
    method = portal.get(f"/api/papers/{GPQA}/similar", params={"limit": 10, "aspect": "method"}).json()
    assert method["aspect"] == "method" and whole["aspect"] is None
    assert method["results"] and any("aspect" in r["signals"] for r in method["results"])
    assert [r["score"] for r in method["results"]] != [r["score"] for r in whole["results"]]
    bad = portal.get(f"/api/papers/{GPQA}/similar", params={"aspect": "methods"})
    assert_error(bad, 422, "invalid_parameter")
    assert "aspect" in bad.json()["error"]["message"] and "method" in bad.json()["error"]["message"]
    page = portal.get(f"/papers/{GPQA}", params={"aspect": "result"}).text
    assert 'class="aspect-switch"' in page and 'href="?aspect=method#similar"' in page
    assert f"/api/papers/{GPQA}/similar?limit=8&amp;aspect=result" in page


def test_the_paper_pages_json_link_gives_the_list_the_page_shows(portal):
    import html
    import re

    for query in ({}, {"aspect": "method"}):
        page = portal.get(f"/papers/{GPQA}", params=query).text
        section = page[page.index('id="similar"'):]
        link = html.unescape(re.search(r'class="json-link" href="([^"]+)"', section).group(1))
        shown = re.findall(r'href="/papers/([^"#?]+)"', section)
        listed = [r["key"] for r in portal.get(link).json()["results"]]
        assert listed and [k.replace("%3A", ":") for k in dict.fromkeys(shown)] == listed
    assert portal.get(f"/papers/{GPQA}", params={"aspect": "x"}).status_code == 422


def test_every_aspect_the_classifier_knows_is_accepted_by_the_api(portal):
    """The API's list of aspects is written out for OpenAPI; it must stay the classifier's."""
    from typing import get_args

    from paperfind.search.aspects import ASPECTS
    from paperfind.web.params import Aspect

    assert set(get_args(Aspect)) == set(ASPECTS)
    for aspect in ASPECTS:
        assert portal.get(f"/api/papers/{GPQA}/similar", params={"aspect": aspect}).status_code == 200
