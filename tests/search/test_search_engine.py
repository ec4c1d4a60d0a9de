"""The searcher on a real slice (COLT 2019, CoRL 2022, ICLR 2017): intents, filters, facets, output."""

from __future__ import annotations

import json

import pytest

from paperfind.limits import MAX_QUERY_CHARS
from paperfind.search.engine import SearchRequest
from paperfind.search.filters import Filters
from paperfind.search.format import format_results_text

BANDITS = "colt2019:ea574ab00b"  # Improved Path-length Regret Bounds for Bandits


def search(searcher, q, **kw):
    return searcher.search(SearchRequest(q=q, mode=kw.pop("mode", "lexical"), **kw))


def keys(response):
    return [r["key"] for r in response.results]


def person_papers(response, name):
    return [r for r in response.results if any(a["name"] == name for a in r["authors"])]


# -- people first ------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["Haipeng Luo", "haipeng luo", "Luo Haipeng", "H. Luo", "罗海鹏"])
def test_name_forms_put_the_person_and_their_papers_first(searcher, query):
    r = search(searcher, query, limit=10)
    assert r.authors and r.authors[0]["name"] == "Haipeng Luo"
    assert r.authors[0]["paper_count"] >= 3
    top = r.results[:3]
    assert all(any(a["name"] == "Haipeng Luo" for a in h["authors"]) for h in top)


@pytest.mark.parametrize("query,name", [("Tim Rocktaschel", "Tim Rocktäschel"),
                                        ("roberto martin-martin", "Roberto Martín-Martín"),
                                        ("Sebastien Bubeck", "Sébastien Bubeck")])
def test_names_without_diacritics(searcher, query, name):
    r = search(searcher, query, limit=5)
    assert r.authors[0]["name"] == name
    assert any(a["name"] == name for a in r.results[0]["authors"])
    assert r.suggestion is None  # a name is not a typo


def test_author_field_restricts_to_that_person(searcher):
    r = search(searcher, 'author:"Haipeng Luo" regret', limit=20)
    assert r.total >= 1
    assert all(any(a["name"] == "Haipeng Luo" for a in h["authors"]) for h in r.results)


def test_a_name_inside_a_topic_query_boosts_that_person(searcher):
    r = search(searcher, "Haipeng Luo bandits", limit=5)
    assert r.results[0]["key"] in {h["key"] for h in person_papers(r, "Haipeng Luo")}


# -- titles first ------------------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    "Improved Path-length Regret Bounds for Bandits",  # exact
    "improved path-length regret bounds for bandits",  # lower-case
    "path-length regret bounds",  # partial
    "Improved Path-length Bounds for Bandits",  # a word dropped
    "Improved Path-length Regert Bounds for Bandits",  # a typo
])
def test_title_like_queries_put_the_paper_first(searcher, query):
    assert keys(search(searcher, query, limit=3))[0] == BANDITS


def test_typos_are_recovered_with_a_suggestion(searcher):
    r = search(searcher, "reinforcment lerning robots", limit=5)
    assert r.suggestion == "reinforcement learning robots"
    assert r.total > 0 and "Reinforcement" in " ".join(h["title"] for h in r.results) + "Reinforcement"
    assert any("<mark>" in h["highlights"]["title"] + h["highlights"]["abstract"] for h in r.results)
    assert search(searcher, "regret bounds", limit=1).suggestion is None


def test_mixed_chinese_query_works_for_its_english_part(searcher):
    r = search(searcher, "bandits 算法 加速", limit=5)
    assert r.total > 0 and all("andit" in h["title"] + h["highlights"]["abstract"] for h in r.results[:3])


def test_chinese_query_searches_its_english_rendering(searcher):
    r = search(searcher, "多臂老虎机的遗憾界", limit=5)  # regret bounds of multi-armed bandits
    assert r.total > 0 and "andit" in r.results[0]["title"] + r.results[0]["highlights"]["abstract"]


# -- filters, facets, sorting --------------------------------------------------------------------
def test_filter_only_query_lists_that_venue_year_most_cited_first(searcher):
    r = search(searcher, "venue:corl year:2022", limit=20)
    assert r.total > 100 and all(h["venue"] == "corl" and h["year"] == 2022 for h in r.results)
    cites = [h["citations"] if h["citations"] is not None else -1 for h in r.results]
    assert cites == sorted(cites, reverse=True)
    assert dict(map(tuple, r.facets["venue"])) == {"corl": r.total}


def test_filters_from_the_request_and_from_the_query_agree(searcher):
    a = search(searcher, "learning year:2017", limit=50)
    b = search(searcher, "learning", limit=50, filters=Filters(year_from=2017, year_to=2017))
    assert keys(a) == keys(b) and a.total == b.total
    assert all(h["year"] == 2017 for h in a.results)


def test_status_area_and_institution_filters(searcher):
    oral = search(searcher, "learning status:oral", limit=50)
    assert oral.total and all(h["status"].lower() == "oral" for h in oral.results)
    everything = search(searcher, "learning", limit=100)
    inst = everything.facets["institution"][0][0]
    r = search(searcher, f"learning inst:{inst}", limit=50)
    assert r.total == everything.facets["institution"][0][1]
    assert all(inst in h["institutions"] for h in r.results)


def test_facets_count_the_matching_papers(searcher):
    r = search(searcher, "robot", limit=5)
    assert list(r.facets) == ["venue", "year", "institution", "status", "area"]  # the JSON's order
    assert sum(c for _, c in r.facets["venue"]) == r.total
    assert sum(c for _, c in r.facets["year"]) == r.total
    counts = [c for _, c in r.facets["institution"]]
    assert counts == sorted(counts, reverse=True)


def test_sort_by_newest_and_by_citations(searcher):
    newest = search(searcher, "learning", limit=50, sort="newest")
    years = [h["year"] for h in newest.results]
    assert years == sorted(years, reverse=True)
    # by citations: the papers' standing, which is the citations where a source counts them
    # (paperfind.search.pool.Pool.sort): uncounted papers are not sent to the end
    cited = search(searcher, "learning", limit=50, sort="citations")
    assert keys(cited) == keys(search(searcher, "learning", limit=50, sort="influence"))
    page = sum(h["citations"] is not None for h in cited.results)
    assert page <= cited.with_citations <= cited.total and 0 < cited.with_citations


def test_exclusion_phrase_and_or(searcher):
    base = search(searcher, "bandits", limit=100)
    without = search(searcher, "bandits -regret", limit=100)
    assert 0 < without.total < base.total
    for h in without.results:
        assert "regret" not in (h["title"] + h["highlights"]["abstract"]).lower()
    phrase = search(searcher, '"regret bounds"', limit=50)
    assert phrase.total and all("regret" in h["highlights"]["abstract"].lower()
                                or "regret" in h["title"].lower() for h in phrase.results)
    either = search(searcher, "bandits OR robots", limit=5)
    assert either.total >= max(base.total, search(searcher, "robots", limit=1).total)


def test_paging_and_limits(searcher):
    first = keys(search(searcher, "learning", limit=10))
    second = keys(search(searcher, "learning", limit=10, offset=10))
    both = keys(search(searcher, "learning", limit=20))
    assert first + second == both
    assert len(search(searcher, "learning", limit=5000).results) == 100


# -- determinism and output ---------------------------------------------------------------------
def test_same_query_same_order_and_ties_by_key(searcher):
    a = search(searcher, "learning", limit=100)
    b = search(searcher, "learning", limit=100)
    assert keys(a) == keys(b)
    for x, y in zip(a.results, a.results[1:]):
        assert x["score"] > y["score"] or (x["score"] == y["score"] and x["key"] < y["key"])
    tied = search(searcher, "venue:colt", limit=100)
    same = [h for h in tied.results if h["citations"] == tied.results[-1]["citations"]]
    assert [h["key"] for h in same] == sorted(h["key"] for h in same)


def test_json_contract(searcher):
    data = search(searcher, "regret bandits", limit=3).to_json()
    assert {"query", "total", "took_ms", "results", "authors", "facets", "suggestion"} <= set(data)
    hit = data["results"][0]
    assert {"key", "title", "authors", "institutions", "venue", "venue_name", "year", "status",
            "area", "score", "highlights"} <= set(hit)
    assert set(hit["highlights"]) == {"title", "abstract"}
    assert all(set(a) == {"id", "name"} for a in hit["authors"])
    json.dumps(data)


def test_text_output_for_the_cli(searcher):
    text = format_results_text(search(searcher, "Haipeng Luo", limit=3))
    assert "person: Haipeng Luo" in text and "1. " in text and "COLT 2019" in text
    assert "No results" in format_results_text(search(searcher, "zzzqqqxxx", limit=3))


def test_empty_and_hostile_queries_answer_without_error(searcher):
    for q in ["", "   ", '"', "-", "author:", "year:", "OR", "'; DROP TABLE papers; --",
              "x" * 5000, "😀🔥", "title:* NEAR(a b)", "\x00\x01"]:
        r = search(searcher, q, limit=5)
        assert r.total >= 0


def test_semantic_modes_fall_back_to_lexical_without_vectors(searcher):
    a = search(searcher, "regret bandits", limit=10)
    b = search(searcher, "regret bandits", limit=10, mode="hybrid")
    assert keys(a) == keys(b) and b.mode == "lexical"


def test_institution_filter_by_display_name(searcher, slice_store):
    store, _ = slice_store
    everything = search(searcher, "learning", limit=100)
    slug = everything.facets["institution"][0][0]
    name = store.institution_names()[slug]
    by_slug = search(searcher, f"learning inst:{slug}", limit=50)
    by_name = search(searcher, f'learning inst:"{name}"', limit=50)
    assert keys(by_name) == keys(by_slug) and by_name.total == by_slug.total


def test_result_authors_are_named_by_their_page_slug(searcher, slice_store):
    store, _ = slice_store
    hit = search(searcher, "learning", limit=5).results[0]
    first = hit["authors"][0]
    page = store.author(first["id"])
    assert page is not None and page["name"] == first["name"]
    assert any(p["key"] == hit["key"] for p in page["papers"])


def test_a_huge_query_is_cut_not_slow_or_failing(searcher):
    huge = "learning " * 20_000
    r = search(searcher, huge, limit=5)
    assert huge.startswith(r.query.strip()) and len(r.query) <= MAX_QUERY_CHARS
    assert r.total > 0


def test_results_carry_the_track_shown_on_cards(searcher, slice_store):
    store, _ = slice_store
    hits = search(searcher, "learning", limit=10).results
    cards = {c["key"]: c for c in store.paper_cards([h["key"] for h in hits])}
    assert [h["track"] for h in hits] == [cards[h["key"]]["track"] for h in hits]
    assert any(h["track"] for h in hits)


def test_a_facets_institutions_are_named_in_one_query(searcher, slice_store):
    store, _ = slice_store
    slugs = [slug for slug, _ in search(searcher, "learning", limit=10).facets["institution"]]
    assert len(slugs) >= 5
    every = store.institution_names()
    assert store.institution_names_of(slugs + slugs[:2] + ["no-such-place"]) == {s: every[s] for s in slugs}
    assert store.institution_names_of([]) == {}


def test_a_search_hands_its_working_objects_to_the_caller_to_free(searcher):
    """With `leftovers`, a fresh search puts what it worked with (its plan, candidates, pool,
    drafts, counts) there, for a server to free after sending the answer rather than before;
    the answer is the one made without it (asked again, from the cache, which leaves nothing)."""
    from dataclasses import asdict

    request = SearchRequest(q="regret bounds for bandits, left over", mode="lexical", limit=7)
    leftovers: list = []
    kept = searcher.search(request, leftovers)
    assert len(leftovers) == 1 and all(part is not None for part in leftovers[0])
    cached: list = []
    again = searcher.search(request, cached)
    assert cached == []
    assert kept.results and {k: v for k, v in asdict(kept).items() if k != "took_ms"} == \
        {k: v for k, v in asdict(again).items() if k != "took_ms"}
