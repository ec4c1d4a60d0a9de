"""Random strings through the whole searcher: a result or an empty one, never an exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from paperfind.search.engine import SearchRequest
from paperfind.search.filters import Filters

WORDS = st.sampled_from(["regret", "bandits", "robot", "learning", "Haipeng", "Luo", "author:",
                         "title:", "year:2019", "year:2017..", "venue:", "inst:", "-", '"', "OR",
                         "NOT", "王晓明", "模型", "😀", "<b>", "&amp;", "'", ";", "*", "Zhang",
                         "reinforcment", "H.", "status:oral", "area:", ")", "(", "\\"])


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200), st.integers(-5, 500), st.integers(-5, 20_000),
       st.sampled_from(["relevance", "newest", "citations", "bogus"]))
def test_random_text_never_raises(searcher, text, limit, offset, sort):
    r = searcher.search(SearchRequest(q=text, limit=limit, offset=offset, sort=sort, mode="lexical"))
    assert 0 <= len(r.results) <= 100 and r.total >= 0
    r.to_json()


LABELS = st.lists(st.text(max_size=5), max_size=3).map(tuple)
YEARS = st.one_of(st.none(), st.integers(-3000, 3000))


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=12).map(" ".join),
       st.builds(Filters, venues=LABELS, year_from=YEARS, year_to=YEARS, insts=LABELS,
                 areas=LABELS, statuses=LABELS))
def test_query_language_soup_never_raises(searcher, text, filters):
    r = searcher.search(SearchRequest(q=text, filters=filters, limit=10, mode="hybrid"))
    assert r.total >= len(r.results)
