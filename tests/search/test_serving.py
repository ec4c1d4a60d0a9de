"""A server loads at its start what a searcher otherwise loads during some early request
(`Searcher.warm_for_serving`): every row's paper names parsed, the works' counter and groups made, in the index open now and in every
one a rebuild opens later. On the tests' real slice, through the real index build."""

from __future__ import annotations

from paperfind.index.manager import build_index
from paperfind.search.engine import open_searcher
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings


def test_a_searcher_warmed_for_serving_has_its_paper_names_parsed_before_any_search(index_copy):
    store, root = index_copy
    plain = open_searcher(root, store, SearchSettings(result_cache=0))
    plain.backend()
    assert plain.warm_state()["paper_names"] is False  # a CLI search reads the few it shows
    assert not plain.backend().loaded_for_serving  # ... and makes the works' tables if it counts

    served = open_searcher(root, store, SearchSettings(result_cache=0))
    served.warm_for_serving()
    before = served.backend().index.path.name
    assert served.warm_state()["paper_names"] is True
    assert served.backend().loaded_for_serving  # the works' counter and groups made
    first = served.search(SearchRequest(q="learning", limit=20, mode="lexical"))
    again = plain.search(SearchRequest(q="learning", limit=20, mode="lexical"))
    assert [r["also_known_as"] for r in first.results] == [r["also_known_as"] for r in again.results]

    build_index(store, root)  # a rebuild: the searcher opens the new version on its next query
    assert served.backend().index.path.name != before
    assert served.warm_state()["paper_names"] is True
    assert served.backend().loaded_for_serving


def test_a_searcher_warmed_for_serving_has_its_translators_frequent_words_read(index_copy):
    """Issue 33: a fresh server's Chinese queries are each new; their words are mostly among the
    segmenter's most frequent, read at the start (`ZhEnTranslator.warm`)."""
    store, root = index_copy
    served = open_searcher(root, store, SearchSettings(result_cache=0, translator_warm_words=500))
    served.warm_for_serving()
    read = served.translator._segment_readings.cache_info().currsize
    assert 250 < read <= 500
    unwarmed = open_searcher(root, store, SearchSettings(result_cache=0, translator_warm_words=0))
    unwarmed.warm_for_serving()
    assert unwarmed.translator._segment_readings.cache_info().currsize == 0
    request = SearchRequest(q="图神经网络的过平滑", limit=20, mode="lexical")
    assert [r["key"] for r in served.search(request).results] == \
        [r["key"] for r in unwarmed.search(request).results]
