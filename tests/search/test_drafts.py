"""Result cards drafted ahead of the ranking (paperfind.search.drafts, issue 33): a drafted card
is the card made after, with the score the ranking gives; only the papers asked for are
results; a draft belongs to its own search's query and filters.

Real slice (tests/search/conftest.py's store), plus the two-version works of test_versions.
"""

from __future__ import annotations

import pytest

from paperfind.search.backend import Restriction
from paperfind.search.drafts import CardDrafts, shown_version
from paperfind.search.filters import Filters
from paperfind.search.highlight import Marker
from paperfind.search.response import SearchRequest, hit
from paperfind.text.analyze import Analyzer
from tests.search.test_versions import PAIRS, SLICE


@pytest.fixture(scope="module")
def versions_searcher(tmp_path_factory):
    """test_versions' slice: works with two versions each."""
    from paperfind.search.engine import open_searcher
    from tests.realdata import indexed_slice

    root = tmp_path_factory.mktemp("drafts")
    return open_searcher(root / "slice.db.index", indexed_slice(root, SLICE))


def _marker(analyzer: Analyzer, text: str) -> Marker:
    words = [w for w in analyzer.words(text) if not analyzer.is_stopword(w)]
    return Marker({analyzer.stem(w) for w in words}, analyzer, set(words))


def _fresh(backend, restriction: Restriction, marker: Marker, handle: int, score: float) -> dict:
    """The result `Searcher.search` made before drafts: versions, shown version, `hit`."""
    versions = backend.work_versions([handle], restriction)[0]
    shown, others = shown_version(versions)
    return hit(shown.doc, score, marker, [v.doc for v in others])


def _handles(searcher, q: str, n: int) -> list[int]:
    found = searcher.search(SearchRequest(q=q, limit=n, mode="lexical")).results
    return [int(h) for h in searcher.backend().handles_of([r["key"] for r in found])]


def test_a_drafted_card_is_the_card_made_after_with_its_own_score(searcher):
    backend, analyzer = searcher.backend(), Analyzer()
    marker = _marker(analyzer, "regret bounds online learning")
    a, b, c = _handles(searcher, "regret bounds online learning", 3)
    drafts = CardDrafts(backend, Restriction(Filters()), marker)
    drafts.draft([a, b])
    assert drafts.drafted(a) and drafts.drafted(b) and not drafts.drafted(c)
    results, works = drafts.results([b, c], [0.75, 0.5])
    assert results == [_fresh(backend, Restriction(Filters()), marker, h, s) for h, s in ((b, 0.75), (c, 0.5))]
    assert list(results[0]) == list(hit(backend.stored([b])[0], 0.75, marker))  # the keys in hit's order
    # `a` was drafted and is not on the page (fusion dropped it): no result of it
    assert [r["key"] for r in results] == [backend.stored([h])[0]["key"] for h in (b, c)]
    assert [ws[0].handle for ws in works] == [b, c]
    # a second page of the same search takes the same draft with that page's score
    again, _ = drafts.results([a], [0.125])
    assert again == [_fresh(backend, Restriction(Filters()), marker, a, 0.125)]


def test_drafting_stops_when_the_vector_arrives(searcher):
    backend = searcher.backend()
    handles = _handles(searcher, "learning", 6)
    drafts = CardDrafts(backend, Restriction(Filters()), _marker(Analyzer(), "learning"))
    asked = []
    drafts.draft(handles, lambda: asked.append(1) or len(asked) <= 2, batch=1)  # pending twice, then ready
    assert len(drafts) == 2 and all(drafts.drafted(h) for h in handles[:2])
    drafts.draft(handles[2:], lambda: False, at_least=1, batch=1)
    assert len(drafts) == 3 and drafts.drafted(handles[2])
    drafts.draft(handles, lambda: asked.append(1) or len(asked) <= 5, batch=2)  # two batches more
    assert len(drafts) == 4 and not drafts.drafted(handles[4])


def test_a_draft_belongs_to_its_own_query(searcher):
    """Two queries' drafts of one paper mark each query's own words."""
    backend, analyzer = searcher.backend(), Analyzer()
    handle = _handles(searcher, "regret bounds online learning", 1)[0]
    first = CardDrafts(backend, Restriction(Filters()), _marker(analyzer, "regret"))
    second = CardDrafts(backend, Restriction(Filters()), _marker(analyzer, "online learning"))
    first.draft([handle])
    second.draft([handle])
    one, two = first.results([handle], [1.0])[0][0], second.results([handle], [1.0])[0][0]
    assert one["highlights"] != two["highlights"]
    assert "<mark>" in two["highlights"]["title"] + two["highlights"]["abstract"]
    assert one == _fresh(backend, Restriction(Filters()), _marker(analyzer, "regret"), handle, 1.0)


def test_a_draft_shows_the_version_its_searchs_filters_allow(versions_searcher):
    """A work of two versions drafted under a venue filter shows the version that passes it,
    the other folded under it; the same paper drafted without the filter shows its best one."""
    backend, analyzer = versions_searcher.backend(), Analyzer()
    marker = _marker(analyzer, "prototypical networks")
    for first, other in PAIRS.items():
        handle = int(backend.handles_of([first])[0])
        only = Restriction(Filters(venues=(first.split("20")[0],)))
        filtered = CardDrafts(backend, only, marker)
        filtered.draft([handle])
        card = filtered.results([handle], [1.0])[0][0]
        assert card["key"] == first and [v["key"] for v in card["versions"]] == [other]
        assert card == _fresh(backend, only, marker, handle, 1.0)
        unfiltered = CardDrafts(backend, Restriction(Filters()), marker)
        assert unfiltered.results([handle], [1.0])[0][0] == _fresh(backend, Restriction(Filters()), marker,
                                                                 handle, 1.0)


@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_a_lexical_search_makes_its_cards_as_before(searcher, sort):
    """No vector, nothing drafted: the page's cards are `hit`'s, scores and versions as ranked."""
    q = "regret bounds for online learning"
    response = searcher.search(SearchRequest(q=q, limit=10, sort=sort, mode="lexical"))
    backend, analyzer = searcher.backend(), Analyzer()
    assert response.results
    for r in response.results:
        handle = int(backend.handles_of([r["key"]])[0])
        assert {k: v for k, v in r.items() if k not in ("highlights", "also_known_as")} == \
            {k: v for k, v in _fresh(backend, Restriction(Filters()), _marker(analyzer, q), handle,
                                     r["score"]).items() if k not in ("highlights", "also_known_as")}
