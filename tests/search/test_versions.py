"""A paper published twice is one work: search lists it once, with its other version attached.

Real slice: "Prototypical Networks for Few-shot Learning" is an ICLR 2017 submission and a
NeurIPS 2017 paper; "Efficient softmax approximation for GPUs" an ICLR 2017 workshop paper and
an ICML 2017 one. The store links each pair by work_id.
"""

from __future__ import annotations

import pytest

from paperfind.search.engine import Searcher, open_searcher
from paperfind.search.response import SearchRequest
from tests.realdata import indexed_slice

PAIRS = {"iclr2017:B1-Hhnslg": "nips2017:9188", "iclr2017:rkmDI85ge": "icml2017:762"}
SLICE = {("iclr", 2017): {"B1-Hhnslg", "rkmDI85ge", "rJY0-Kcll"},
         ("nips", 2017): {"9188", "9457", "9414"},
         ("icml", 2017): {"762", "494"}}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory) -> Searcher:
    root = tmp_path_factory.mktemp("versions")
    return open_searcher(root / "slice.db.index", indexed_slice(root, SLICE))


@pytest.mark.parametrize("query", ["Prototypical Networks for Few-shot Learning",
                                   "Efficient softmax approximation for GPUs"])
@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_a_work_is_listed_once_with_its_other_version(searcher, query, sort):
    response = searcher.search(SearchRequest(q=query, limit=200, sort=sort, mode="lexical"))
    keys = [r["key"] for r in response.results]
    pair = next((a, b) for a, b in PAIRS.items() if a in keys or b in keys)
    assert (pair[0] in keys) != (pair[1] in keys), keys  # exactly one version listed
    listed = next(r for r in response.results if r["key"] in pair)
    other = pair[1] if listed["key"] == pair[0] else pair[0]
    assert [v["key"] for v in listed["versions"]] == [other]
    assert listed["versions"][0]["venue"] == other.split("20")[0]
    assert response.total == len(keys)  # a work counts once in the total too


def test_the_title_query_ranks_the_work_first(searcher):
    response = searcher.search(SearchRequest(q="Prototypical Networks for Few-shot Learning", mode="lexical"))
    assert response.results[0]["key"] in {"iclr2017:B1-Hhnslg", "nips2017:9188"}
    # paging past the first result never brings back its other version
    rest = searcher.search(SearchRequest(q="Prototypical Networks for Few-shot Learning",
                                         offset=1, limit=50, mode="lexical"))
    assert not {"iclr2017:B1-Hhnslg", "nips2017:9188"} & {r["key"] for r in rest.results}


def test_papers_with_one_version_carry_an_empty_list(searcher):
    response = searcher.search(SearchRequest(q="learning", limit=50, mode="lexical"))
    singles = [r for r in response.results if r["key"] not in PAIRS and r["key"] not in PAIRS.values()]
    assert singles and all(r["versions"] == [] for r in singles)


def test_the_engine_flags_the_versions_a_filter_leaves_out(searcher):
    """The candidate contract's `work_versions`: own paper first, each version with whether
    it passes the restriction (here: ICLR only)."""
    from paperfind.search.backend import Restriction
    from paperfind.search.filters import Filters

    backend = searcher.backend()
    for first, other in PAIRS.items():
        handle = int(backend.handles_of([first])[0])
        versions = backend.work_versions([handle], Restriction(Filters(venues=("iclr",))))[0]
        assert [v.doc["key"] for v in versions] == [first, other]
        assert [v.allowed for v in versions] == [True, False]
