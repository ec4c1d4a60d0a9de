"""Review scores in the API: the card's fields, sort=rating and the rating= filter (the shared
portal's COLM 2024 papers carry scores, its 3DV and CoRL 2025 ones none)."""

from __future__ import annotations


def _ratings(portal, **params) -> list:
    data = portal.get("/api/search", params={"size": 50, **params})
    assert data.status_code == 200, data.text
    return [r["rating"] for r in data.json()["results"]]


def test_cards_carry_the_mean_and_count_and_papers_without_scores_null(portal):
    results = portal.get("/api/search", params={"venue": ["colm", "3dv"], "size": 50}).json()["results"]
    rated = [r for r in results if r["venue"] == "colm"]
    assert rated and all(r["rating"] > 0 and r["review_count"] >= 1 and r["rating_scale"] == "1-10"
                         for r in rated)
    unrated = [r for r in results if r["venue"] == "3dv"]
    assert unrated and all(r["rating"] is None and r["review_count"] is None for r in unrated)


def test_sort_rating_puts_the_highest_mean_first_and_unscored_papers_last(portal):
    ratings = _ratings(portal, venue=["colm", "3dv"], sort="rating")
    scored = [r for r in ratings if r is not None]
    assert len(scored) >= 3 and scored == sorted(scored, reverse=True)
    assert ratings[:len(scored)] == scored  # every paper without scores after them


def test_rating_filter_keeps_the_range_and_leaves_unscored_papers_out(portal):
    every = [r for r in _ratings(portal, venue=["colm", "3dv"]) if r is not None]
    at_least = _ratings(portal, venue=["colm", "3dv"], rating="6..")
    assert at_least and all(r is not None and r >= 6 for r in at_least)
    assert len(at_least) == sum(r >= 6 for r in every)
    assert all(r is not None and r <= 6 for r in _ratings(portal, rating="..6", venue="colm"))


def test_a_bad_rating_value_is_a_422_naming_it(portal):
    response = portal.get("/api/search", params={"rating": "six"})
    assert response.status_code == 422 and "rating" in response.text


def _first_rated(portal) -> dict:
    results = portal.get("/api/search", params={"venue": "colm", "sort": "rating"}).json()["results"]
    return results[0]


def test_cards_and_the_paper_page_show_the_scores_in_both_languages(portal):
    import httpx

    paper = _first_rated(portal)
    mean = f"{paper['rating']:.1f}"
    with httpx.Client(base_url=portal.url) as client:
        english = client.get("/", params={"venue": "colm", "sort": "rating", "lang": "en"}).text
        assert f"{mean} · {paper['review_count']} reviews" in english
        chinese = client.get("/", params={"venue": "colm", "sort": "rating", "lang": "zh"}).text
        assert f"{mean} · {paper['review_count']} 条评审" in chinese
        page = client.get(f"/papers/{paper['key']}", params={"lang": "en"}).text
    assert 'id="reviews"' in page and "Confidence" in page
    detail = portal.get(f"/api/papers/{paper['key']}").json()
    assert len(detail["reviews"]["reviews"]) == paper["review_count"]
    assert all(page.count(f"<td>{r['rating']:g}") for r in detail["reviews"]["reviews"])


def test_a_paper_without_scores_shows_no_rating(portal):
    import httpx

    unrated = portal.get("/api/search", params={"venue": "3dv"}).json()["results"][0]
    with httpx.Client(base_url=portal.url) as client:
        page = client.get(f"/papers/{unrated['key']}", params={"lang": "en"}).text
    meta = page.split('class="paper-meta"', 1)[1].split("</div>", 1)[0]
    assert 'id="reviews"' not in page and 'class="rating"' not in meta  # similar papers may have


def test_the_venue_year_page_draws_the_mean_scores_per_decision(portal):
    import httpx

    data = portal.get("/api/venues/colm", params={"year": 2024}).json()
    ratings = data["ratings"]
    assert ratings["scale"] == "1-10" and ratings["papers"] >= 3
    assert sum(sum(g["counts"]) for g in ratings["groups"]) == ratings["papers"]
    assert all(len(g["counts"]) == len(ratings["lows"]) for g in ratings["groups"])
    assert portal.get("/api/venues/colm").json()["ratings"] is None  # a venue, not a year
    assert portal.get("/api/venues/3dv", params={"year": 2025}).json()["ratings"] is None
    with httpx.Client(base_url=portal.url) as client:
        for lang, heading in (("en", "Mean review score per decision"), ("zh", "各录用结果的平均评分分布")):
            page = client.get("/venues/colm", params={"year": 2024, "lang": lang}).text
            assert heading in page and 'data-chart="ratings"' in page
            drawn = page.split('data-chart="ratings"', 1)[1].split("</svg>", 1)[0]
            counts = [int(c) for c in drawn.split('data-count="')[1:] for c in [c.split('"')[0]]]
            assert sum(counts) == ratings["papers"]  # every paper with scores in one bar
        assert 'data-chart="ratings"' not in client.get("/venues/3dv", params={"year": 2025}).text


def test_the_venue_year_list_orders_by_rating_on_its_page_and_api(portal):
    import httpx

    data = portal.get("/api/venues/colm", params={"year": 2024, "sort": "rating"}).json()
    ratings = [p["rating"] for p in data["papers"]]
    scored = [r for r in ratings if r is not None]
    assert data["sort"] == "rating" and len(scored) >= 3
    assert scored == sorted(scored, reverse=True) and ratings[:len(scored)] == scored
    author = portal.get("/api/search", params={"venue": "colm"}).json()["results"][0]["authors"][0]["id"]
    listed = portal.get(f"/api/authors/{author}", params={"sort": "rating"})
    assert listed.status_code == 200 and listed.json()["sort"] == "rating"
    with httpx.Client(base_url=portal.url) as client:
        page = client.get("/venues/colm", params={"year": 2024, "sort": "rating", "lang": "en"}).text
    tools = page.split('id="list-tools"', 1)[1].split("</div>", 1)[0]
    assert "Highest rated" in tools and "sort chosen" in tools.split("Highest rated")[0][-200:]


def test_the_search_page_keeps_a_rating_filter_as_a_chip_in_both_languages(portal):
    import httpx

    with httpx.Client(base_url=portal.url) as client:
        for lang, name in (("en", "Mean rating"), ("zh", "平均评分")):
            page = client.get("/", params={"venue": "colm", "rating": "7..", "lang": lang})
            assert page.status_code == 200
            chip = page.text.split('data-param="rating"', 1)[1].split("</a>", 1)[0]
            assert 'data-value="7.."' in chip and name in chip
            ratings = [float(r.split("<")[0].split(" ")[0]) for r in
                       page.text.split('<div class="card-meta">')[1:] for r in [r.split('class="rating"', 1)[1].split(">", 1)[1]]]
            assert ratings and all(r >= 7 for r in ratings)



def test_the_csv_export_carries_each_papers_mean_and_count(portal):
    """A spreadsheet of a result list keeps the scores the cards show; empty cells without."""
    import csv
    import io

    cards = {r["key"]: r for r in portal.get("/api/search", params={"venue": ["colm", "3dv"],
                                                                   "size": 50}).json()["results"]}
    got = portal.get("/api/search/export", params={"venue": ["colm", "3dv"], "size": 50, "format": "csv"})
    assert got.status_code == 200, got.text
    rows = list(csv.DictReader(io.StringIO(got.text)))
    assert rows and {"rating", "review_count"} <= set(rows[0])
    scored = [r for r in rows if cards[r["key"]]["rating"] is not None]
    assert scored and all(float(r["rating"]) == cards[r["key"]]["rating"]
                          and int(r["review_count"]) == cards[r["key"]]["review_count"] for r in scored)
    assert all(r["rating"] == r["review_count"] == "" for r in rows if cards[r["key"]]["rating"] is None)
