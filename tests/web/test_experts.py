"""Who works on this (issue 30) through the real server: /api/experts, its evidence cards, and
`before` and `exclude` honoured exactly (the tests fail if a paper of the query's own year, or a
co-author, slipped in)."""

from __future__ import annotations

from paperfind.web import schemas
from tests.web.test_api import assert_error
from tests.web.conftest import Portal

UNIMOTION = "3dv2025:1xLfRYErqk"  # Andreas Geiger, Gerard Pons-Moll, ... (3DV 2025)
PLANT = "corl2022:80vpxjt3vq"  # Andreas Geiger with Katrin Renz, Kashyap Chitta, ... (CoRL 2022)
HDT = "colm2024:dkpeWQRmlc"  # Andreas Geiger with Haoyu He, Iryna Gurevych, ... (COLM 2024)


def experts(portal: Portal, **params) -> dict:
    """/api/experts with everyone listed unless the test says otherwise (`min_works` 1): the
    portal's people have one to three papers, and these tests are about the ranking, `before`,
    `exclude` and the filters, not the floor (tests/web/test_experts_floor.py)."""
    params.setdefault("min_works", 1)
    response = portal.get("/api/experts", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def people_of(portal: Portal, key: str) -> set[str]:
    return {a["id"] for a in portal.get(f"/api/papers/{key}").json()["authors"] if a["id"]}


def evidence_keys(data: dict) -> set[str]:
    return {e["key"] for person in data["results"] for e in person["evidence"]}


def test_a_topic_finds_the_people_of_its_papers_with_their_papers_as_evidence(portal):
    data = experts(portal, q="explainable planning transformers object-level representations")
    assert data["total"] >= 1 and data["results"], data
    top = data["results"][0]
    assert top["id"] in people_of(portal, PLANT)
    assert PLANT in {e["key"] for e in top["evidence"]}
    assert top["works"] >= 1 and top["score"] > 0 and "planning" in top["matched"]
    # the evidence is the standard paper card (the same fields as a search result's card)
    search = portal.get("/api/search", params={"q": "PlanT explainable planning transformers"}).json()
    card = next(r for r in search["results"] if r["key"] == PLANT)
    evidence = next(e for e in top["evidence"] if e["key"] == PLANT)
    assert set(evidence) - {"score"} == set(schemas.PaperCard.model_fields)
    assert {k: evidence[k] for k in schemas.PaperCard.model_fields} == \
        {k: card[k] for k in schemas.PaperCard.model_fields}
    schemas.ExpertsResponse.model_validate(data)
    scores = [p["score"] for p in data["results"]]
    assert len({p["id"] for p in data["results"]}) == len(scores)


def test_before_counts_only_papers_published_before_that_year(portal):
    everything = experts(portal, q="3D human motion synthesis and understanding", size=50)
    assert UNIMOTION in evidence_keys(everything)  # the 2025 paper counts without `before`
    before = experts(portal, q="3D human motion synthesis and understanding", before=2025, size=50)
    years = {e["year"] for p in before["results"] for e in p["evidence"]}
    assert years and max(years) < 2025, years
    assert UNIMOTION not in evidence_keys(before)
    # a person whose only papers are of 2025 is no expert "as of" 2025
    only_2025 = people_of(portal, UNIMOTION) - people_of(portal, PLANT) - people_of(portal, HDT)
    assert only_2025 and not only_2025 & {p["id"] for p in before["results"]}
    assert {p["id"] for p in everything["results"]} & only_2025


def test_exclude_leaves_out_the_papers_people_and_their_recent_coauthors(portal):
    query = "explainable planning transformers object-level representations hierarchical document"
    plain = experts(portal, q=query, size=100)
    # Geiger wrote UniMotion (2025) and, with others, PlanT (2022) and HDT (2024): all of them
    # are conflicts of UniMotion (co-authors from 2025 - 3 on)
    conflicted = people_of(portal, UNIMOTION) | people_of(portal, PLANT) | people_of(portal, HDT)
    listed = {p["id"] for p in plain["results"]}
    assert listed & (people_of(portal, PLANT) - people_of(portal, UNIMOTION))  # co-authors match
    excluded = experts(portal, q=query, exclude=UNIMOTION, size=100)
    assert excluded["exclude"] == UNIMOTION
    assert not {p["id"] for p in excluded["results"]} & conflicted
    assert excluded["total"] < plain["total"]


def test_a_paper_is_its_own_query(portal):
    data = experts(portal, paper=PLANT)
    assert data["paper"] == PLANT and data["q"] == ""
    assert data["results"][0]["id"] in people_of(portal, PLANT)
    page = experts(portal, paper=PLANT, exclude=PLANT)
    assert not {p["id"] for p in page["results"]} & people_of(portal, PLANT)
    # q's words are added to the paper's: a topic of its own moves the list
    both = experts(portal, paper=PLANT, q="3D human motion synthesis understanding", size=50)
    assert both["paper"] == PLANT and both["q"]
    assert UNIMOTION in evidence_keys(both) and UNIMOTION not in evidence_keys(experts(portal, paper=PLANT, size=50))


def test_filters_restrict_the_evidence(portal):
    data = experts(portal, q="transformers", venue="colm", size=50)
    assert data["results"] and {e["venue"] for p in data["results"] for e in p["evidence"]} == {"colm"}
    years = experts(portal, q="transformers", year="2022..2024", size=50)
    assert {e["year"] for p in years["results"] for e in p["evidence"]} <= {2022, 2023, 2024}
    paged = experts(portal, q="transformers", size=2, page=2)
    first = experts(portal, q="transformers", size=4)
    assert [p["id"] for p in paged["results"]] == [p["id"] for p in first["results"][2:4]]


def test_chinese_topics_are_read(portal):
    data = experts(portal, q="可解释 规划 变换器")
    assert data["q"] == "可解释 规划 变换器"
    assert isinstance(data["results"], list)


def test_the_api_is_strict(portal):
    assert_error(portal.get("/api/experts", params={"q": "planning", "limit": 5}), 422,
                 "unknown_parameter", "limit", "size")
    nothing = experts(portal)  # no query: no one, as a search without words
    assert nothing["results"] == [] and nothing["total"] == 0
    assert_error(portal.get("/api/experts", params={"paper": "iclr2024:nope"}), 404, "not_found",
                 "iclr2024:nope")
    assert_error(portal.get("/api/experts", params={"q": "x", "exclude": "iclr2024:nope"}), 404,
                 "not_found")
    assert_error(portal.get("/api/experts", params={"q": "x", "before": "soon"}), 422,
                 "invalid_parameter", "before")
    long = experts(portal, q="planning " * 2000)
    assert len(long["q"]) <= 5000
    # odd but valid requests answer, with no one or someone, never a 500
    for params in ({"q": "???"}, {"q": "的"}, {"q": "planning", "page": 10000},
                   {"q": "planning", "venue": "nowhere"}, {"q": "planning", "inst": "zzz"},
                   {"q": "planning", "year": "2099"}, {"q": "planning", "before": 1900},
                   {"q": "<script>", "size": 100}):
        data = experts(portal, **params)
        assert isinstance(data["results"], list) and data["total"] >= 0, params
    assert experts(portal, q="planning", before=1900)["results"] == []


def test_the_schema_documents_it(portal):
    schema = portal.get("/openapi.json").json()
    op = schema["paths"]["/api/experts"]["get"]
    names = {p["name"] for p in op["parameters"]}
    assert names == {"q", "paper", "before", "exclude", "venue", "inst", "year", "min_works", "page", "size"}
    assert all(p.get("examples") for p in op["parameters"] if p["name"] in ("q", "paper", "exclude"))
    assert {"200", "404", "422"} <= set(op["responses"])


def test_the_page_is_the_twin_of_the_api_in_both_languages(portal):
    import re
    from html import unescape

    import httpx

    from paperfind.limits import MAX_EXPERT_QUERY_CHARS

    api = experts(portal, q="planning transformers", venue="corl")
    for lang, title in (("en", "Who works on this?"), ("zh", "谁在研究这个？")):
        # a client of its own: `lang` leaves a cookie, which the session's shared client must not keep
        page = httpx.get(f"{portal.url}/experts", params={"q": "planning transformers", "venue": "corl",
                                                          "min_works": 1, "lang": lang})
        assert page.status_code == 200 and title in page.text
        assert page.headers["link"].startswith("</api/experts?q=planning+transformers&venue=corl&min_works=1>;")
        shown = re.findall(r'<article class="expert" data-id="([^"]+)"', page.text)
        assert shown and shown == [p["id"] for p in api["results"]]
        assert f'maxlength="{MAX_EXPERT_QUERY_CHARS}"' in page.text
        tab = re.search(r'<a class="tab" href="([^"]+)">', page.text).group(1)
        assert unescape(tab) == "/?q=planning+transformers&venue=corl"
    empty = httpx.get(f"{portal.url}/experts", params={"lang": "en"})  # no query yet: the form, not an error
    assert empty.status_code == 200 and 'id="experts-form"' in empty.text and "expert-name" not in empty.text
    search = httpx.get(f"{portal.url}/", params=[("q", "planning transformers"), ("venue", "corl"),
                                                 ("lang", "en")])
    tab = re.search(r'id="experts-tab" href="([^"]+)"', search.text).group(1)
    assert unescape(tab) == "/experts?q=planning+transformers&venue=corl"
