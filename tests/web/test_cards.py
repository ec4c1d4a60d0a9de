"""One paper card everywhere: every route that lists papers names a paper the same way, people
have one id (their slug), and a work with several versions is shown by its best version."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import httpx

from paperfind.cards import CARD_FIELDS, best_first, standing
from paperfind.search.filters import Filters
from tests.web.bundled import BundledPortal
from tests.web.conftest import Portal

REGION_COUNTS = "Understanding Nonlinear Implicit Bias via Region Counts in Input Space"


def card_fields(card: dict) -> dict:
    return {name: card[name] for name in CARD_FIELDS}


def listed(portal: Portal, path: str, key: str, **params) -> dict | None:
    """The card of `key` on a listing route (paged, but an author's: one list), or None."""
    page = 1
    paged = not path.startswith("/api/authors/")  # the API refuses parameters a route does not take
    while True:
        data = portal.get(path, params={**params, "page": page, "size": 100} if paged else params).json()
        found = [p for p in data["papers"] if p["key"] == key]
        if found:
            return found[0]
        if not paged or page >= data["paging"]["pages"]:
            return None
        page += 1


def a_paper_on_every_list(portal: Portal) -> dict:
    """A paper with an area, institutions and resolved authors (ijcai has areas)."""
    data = portal.get("/api/venues/ijcai", params={"size": 100}).json()
    return next(p for p in data["papers"] if p["area"] and p["institutions"]
                and all(a["id"] for a in p["authors"]))


def test_every_route_that_lists_papers_gives_the_same_card(portal):
    paper = a_paper_on_every_list(portal)
    key, expected = paper["key"], card_fields(paper)
    assert set(expected["authors"][0]) == {"id", "name"}  # a person by their one id

    seen = {"venue": expected}
    hits = portal.get("/api/search", params={"q": paper["title"], "size": 50}).json()["results"]
    seen["search"] = card_fields(next(r for r in hits if r["key"] == key))
    seen["author"] = card_fields(listed(portal, f"/api/authors/{paper['authors'][0]['id']}", key))
    seen["institution"] = card_fields(listed(portal, f"/api/institutions/{paper['institutions'][0]}", key))
    seen["area"] = card_fields(listed(portal, f"/api/areas/{paper['area']}", key))
    seen["venue-year"] = card_fields(listed(portal, "/api/venues/ijcai", key, year=paper["year"]))
    neighbours = portal.get("/api/venues/ijcai", params={"size": 100}).json()["papers"]
    similar = next((s for n in neighbours if n["key"] != key for s in portal.get(
        f"/api/papers/{n['key']}/similar", params={"limit": 50}).json()["results"]
        if s["key"] == key), None)
    assert similar is not None, "the paper is on no similar list of its venue's papers"
    seen["similar"] = card_fields(similar)
    paper_page = portal.get(f"/api/papers/{key}").json()
    seen["paper"] = {**card_fields(paper_page),
                     "authors": [{"id": a["id"], "name": a["name"]} for a in paper_page["authors"]]}
    for route, card in seen.items():
        assert card == expected, route
    assert expected["abstract"]  # the abstract is on every card, search results' too


def _twin(portal: Portal, page: str) -> dict:
    """The JSON twin a page names in its Link header, fetched."""
    link = portal.get(page, headers={"accept": "text/html"}).headers["link"]
    return portal.get(link[1:link.index(">")]).json()


def test_a_people_first_and_a_chinese_result_is_the_card_every_list_gives(portal):
    """The first result of a search for a person (the people-first reading) and of a Chinese
    query carries the same card, field for field, as the venue, author, institution and area
    lists and the pages' twins give for that paper."""
    paper = a_paper_on_every_list(portal)
    person = paper["authors"][0]["name"]
    for query in (person, "强化学习", "大语言模型 推理"):
        hits = portal.get("/api/search", params={"q": query}).json()["results"]
        assert hits, query
        hit = hits[0] if query != person else next(h for h in hits if h["key"] == paper["key"])
        key, expected = hit["key"], card_fields(hit)
        lists = {"venue": listed(portal, f"/api/venues/{hit['venue']}", key, year=hit["year"]),
                 "author": listed(portal, f"/api/authors/{hit['authors'][0]['id']}", key)}
        if hit["institutions"]:
            lists["institution"] = listed(portal, f"/api/institutions/{hit['institutions'][0]}", key)
        if hit["area"]:
            lists["area"] = listed(portal, f"/api/areas/{quote(hit['area'], safe='')}", key)
        twin = _twin(portal, "/?" + urlencode({"q": query}))["results"]
        lists["search page twin"] = next(r for r in twin if r["key"] == key)
        author_twin = _twin(portal, f"/authors/{hit['authors'][0]['id']}")["papers"]
        lists["author page twin"] = next(r for r in author_twin if r["key"] == key)
        for route, card in lists.items():
            assert card is not None and card_fields(card) == expected, (query, route)


def test_each_route_adds_only_its_own_extras(portal):
    """The card's fields are the paper's, the same set on every list; a route adds only what
    is about the list (a search's score and highlights, a similar list's reasons)."""
    paper = a_paper_on_every_list(portal)
    hit = portal.get("/api/search", params={"q": paper["title"]}).json()["results"][0]
    assert set(hit) == set(CARD_FIELDS) | {"score", "highlights"}
    assert set(paper) == set(CARD_FIELDS)
    people_first = portal.get("/api/search", params={"q": paper["authors"][0]["name"]}).json()["results"][0]
    # a search for a person says where on each card the person is (issue 29)
    assert set(people_first) == set(CARD_FIELDS) | {"score", "highlights", "named"}
    similar = portal.get(f"/api/papers/{paper['key']}/similar").json()["results"][0]
    assert set(similar) - set(CARD_FIELDS) == {"score", "reasons", "signals", "shared_authors",
                                               "shared_keywords"}


def test_people_have_one_id_and_old_numeric_ids_redirect(portal):
    paper = a_paper_on_every_list(portal)
    slug = paper["authors"][0]["id"]
    person = portal.get("/api/search", params={"q": paper["authors"][0]["name"]}).json()["authors"][0]
    assert person["id"] == slug and "slug" not in person
    number = portal.paperfind.store().conn.execute(
        "SELECT id FROM authors WHERE slug = ?", (slug,)).fetchone()[0]
    for old, new in ((f"/api/authors/{number}", f"/api/authors/{slug}"),
                     (f"/authors/{number}?lang=zh", f"/authors/{slug}?lang=zh"),
                     (f"/api/authors/{number}/export?format=csv",
                      f"/api/authors/{slug}/export?format=csv")):
        with httpx.Client(base_url=portal.url) as client:  # its own cookies (lang=zh)
            moved = client.get(old, follow_redirects=False)
            assert moved.status_code == 308 and moved.headers["location"] == new, old
            assert client.get(old, follow_redirects=True).status_code == 200
    for unknown in ("999999999", "²", "١٢", "9" * 40):  # digits that are no person's number
        assert portal.get(f"/api/authors/{unknown}").status_code == 404
        assert portal.get(f"/authors/{unknown}").status_code == 404


def test_version_order_prefers_acceptance_then_the_newest():
    versions = [{"key": "iclr2025:a", "year": 2025, "status": "Reject", "track": ""},
                {"key": "icml2025:b", "year": 2025, "status": "Poster", "track": "main"},
                {"key": "iclr2024:c", "year": 2024, "status": "Withdraw", "track": ""},
                {"key": "nips2023:d", "year": 2023, "status": "Oral", "track": ""},
                {"key": "iclr2026:e", "year": 2026, "status": "Under Review", "track": ""}]
    assert [v["key"] for v in best_first(versions)] == [
        "icml2025:b", "nips2023:d", "iclr2026:e", "iclr2025:a", "iclr2024:c"]
    assert [standing(s) for s in ("Poster", "", "Workshop", "Under Review", "Desk Reject")] == [
        0, 0, 0, 1, 2]


def test_a_work_is_shown_by_its_accepted_version(bundled_portal: BundledPortal):
    """REGION_COUNTS is a rejected ICLR 2025 submission and an ICML 2025 poster in the bundled
    corpus (the slice holds every paper of its author Huishuai Zhang)."""
    from paperfind.search.response import SearchRequest

    region_counts = bundled_portal.paperfind

    hits = region_counts.searcher().search(SearchRequest(q=REGION_COUNTS, mode="lexical")).results
    first = hits[0]
    assert (first["title"], first["venue_name"], first["year"], first["status"]) == (
        REGION_COUNTS, "ICML", 2025, "Poster")
    assert [(v["venue_name"], v["status"]) for v in first["versions"]] == [("ICLR", "Reject")]
    assert all(h["title"] != REGION_COUNTS for h in hits[1:])  # listed once
    # filtered to ICLR, the ICLR record is what matches, the ICML one folded under it
    iclr = region_counts.searcher().search(SearchRequest(q=REGION_COUNTS, mode="lexical",
                                                         filters=Filters(venues=("iclr",)))).results[0]
    assert (iclr["venue"], iclr["status"], iclr["versions"][0]["status"]) == ("iclr", "Reject", "Poster")
    # the author page lists the work once, by the same version
    author = region_counts.store().author(first["authors"][3]["id"])
    assert author["name"] == "Huishuai Zhang"
    works = [p for p in author["papers"] if p["title"] == REGION_COUNTS]
    assert [(p["key"], p["versions"][0]["key"]) for p in works] == [(first["key"], iclr["key"])]
    # and the HTTP routes say the same
    hit = httpx.get(f"{bundled_portal.url}/api/search", params={"q": REGION_COUNTS}).json()["results"][0]
    assert {k: hit[k] for k in CARD_FIELDS} == {k: works[0][k] for k in CARD_FIELDS}


def test_a_search_for_a_person_shows_them_on_every_card(portal):
    """Issue 29: "…, Yoshua Bengio, … et al.": a person searched for is on each card's author
    line even when not among the first three, in the server's page as in the API's data."""
    papers = portal.get("/api/venues/ijcai", params={"size": 100}).json()["papers"]
    late = next(a for p in papers for a in p["authors"][3:] if a["id"] and len(p["authors"]) > 4)
    data = portal.get("/api/search", params={"q": late["name"]}).json()
    placed = [r for r in data["results"] if r.get("named") and r["named"][0] >= 3]
    assert placed
    assert all(r["authors"][r["named"][0]]["id"] == late["id"] for r in placed)
    page = portal.get("/", params={"q": late["name"]}, headers={"accept-language": "en"}).text
    assert f'class="author named" href="/authors/{late["id"]}"' in page
