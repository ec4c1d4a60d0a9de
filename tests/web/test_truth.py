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
