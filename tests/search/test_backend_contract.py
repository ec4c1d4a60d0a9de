"""The candidate contract (`SearchBackend`) as the local engine serves it, on the real slice.

What a cluster engine must give back is pinned here on the in-process one: the top k of a
match set are its best by score then handle, counts are over every match and not the k, a
version outside the filters is flagged (tests/search/test_versions.py), term sequences come back as codes of the asked terms.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.backend import BOUNDARY, OTHER_TERM, CandidateRequest, Clause, Restriction
from paperfind.search.filters import Filters
from paperfind.search.plan import build_plan
from paperfind.search.query import parse_query


@pytest.fixture(scope="module")
def backend(searcher):
    return searcher.backend()


def _request(searcher, backend, text: str, **fields) -> CandidateRequest:
    plan = build_plan(parse_query(text), searcher.analyzer, backend)
    return CandidateRequest(plan.lexical(), **fields)


def test_the_top_k_are_the_best_of_all_matches_by_score_then_handle(searcher, backend):
    every = backend.candidates(_request(searcher, backend, "learning"))
    best = backend.candidates(_request(searcher, backend, "learning", k=25))
    assert every.total == best.total == len(every) > 100
    assert len(best) == 25 and best.total > len(best)
    order = np.lexsort((every.handles, -every.scores))[:25]
    assert best.handles.tolist() == sorted(every.handles[order].tolist())
    assert np.all(np.diff(best.handles) > 0)  # handle order


def test_min_match_relaxes_when_too_few_papers_have_every_word(searcher, backend):
    strict = backend.candidates(_request(searcher, backend, "regret bandits", min_match=2))
    loose = backend.candidates(_request(searcher, backend, "regret bandits", min_match=1))
    relaxed = backend.candidates(_request(searcher, backend, "regret bandits", min_match=2,
                                          relax_below=len(strict) + 1))
    assert 0 < len(strict) < len(loose)
    assert set(strict.handles.tolist()) < set(loose.handles.tolist())
    assert np.all(strict.matched >= 2)
    assert relaxed.handles.tolist() == loose.handles.tolist()


def test_counts_cover_every_match_not_only_the_k(searcher, backend):
    request = _request(searcher, backend, "learning", k=10)
    found = backend.candidates(request)
    counts = backend.facets(request, found.handles)
    every = backend.candidates(_request(searcher, backend, "learning"))
    assert counts.total_works == len(np.unique(every.works)) > len(found)
    assert sum(n for _, n in counts.papers["venue"]) == len(every)
    assert sum(counts.works.per_year.values()) >= counts.total_works
    corpus = backend.corpus_stats()
    assert corpus.papers == backend.n_docs
    assert all(corpus.works.per_year[y] >= n for y, n in counts.works.per_year.items())


def test_counts_of_some_facets_are_those_of_every_facet(searcher, backend):
    """A search asks for the papers' counts of the facets it shows in papers only (its years
    and venues are counted in works): the same counts as asking for all, and none otherwise."""
    request = _request(searcher, backend, "learning", k=10)
    found = backend.candidates(request)
    every = backend.facets(request, found.handles)
    some = backend.facets(request, found.handles, papers=("institution", "status", "area"))
    assert list(some.papers) == ["institution", "status", "area"]
    assert some.papers == {f: every.papers[f] for f in some.papers}
    assert (some.works, some.total_works) == (every.works, every.total_works)
    assert backend.facets(request, found.handles, papers=()).papers == {}


def test_the_restriction_filters_people_and_clauses(searcher, backend):
    by_year = backend.candidates(CandidateRequest([], Restriction(Filters(year_from=2019, year_to=2019))))
    assert len(by_year) > 0 and set(by_year.years.tolist()) == {2019}
    learning = _request(searcher, backend, "learning")
    without = backend.candidates(CandidateRequest(learning.groups, Restriction(
        exclude=(Clause(((("title", "learn"),),)),))))
    titles = [d["title"].lower() for d in backend.stored(without.handles[:50].tolist())]
    assert titles and not any("learning" in t for t in titles)
    name = backend.stored([int(by_year.handles[0])])[0]["authors"][0][1]
    person = backend.people(" ".join(name.lower().split()))[0]
    papers, ids = backend.papers_of([person.author_id])
    assert len(papers) > 0 and set(ids.tolist()) == {person.author_id}
    theirs = backend.candidates(CandidateRequest([], Restriction(people=((person.author_id,),))))
    assert sorted(set(papers.tolist())) == theirs.handles.tolist()


def test_sequences_are_codes_of_the_asked_terms(searcher, backend):
    found = backend.candidates(_request(searcher, backend, "online learning", k=5))
    terms = ["onlin", "learn", "nosuchterm"]
    seqs = backend.sequences(found.handles, "title", terms)
    for j, doc in enumerate(backend.stored(found.handles.tolist())):
        codes = seqs.row(j).tolist()
        words = searcher.analyzer.terms(doc["title"])
        assert len(codes) >= len(words) > 0
        assert set(codes) <= {0, 1, OTHER_TERM}
        assert (0 in codes) == ("onlin" in words) and (1 in codes) == ("learn" in words)
    keywords = backend.sequences(found.handles, "keywords", terms)
    assert BOUNDARY in keywords.codes.tolist() or len(keywords.codes) == 0 or \
        all(len(d.get("keywords") or []) <= 1 for d in backend.stored(found.handles.tolist()))


def test_rows_beyond_the_matches_are_those_outside_them():
    """`beyond`: the pool's rows a match set lacks, distinct and ascending (the facets count
    them on top of the matches), found by a binary search, as a mask over every row found them."""
    from paperfind.search.backend import beyond

    rng = np.random.default_rng(3)
    matched = np.sort(rng.choice(5000, 1200, replace=False)).astype(np.int64)
    seen = np.zeros(5000, dtype=bool)
    seen[matched] = True
    for rows in (np.zeros(0, dtype=np.int64), matched[:50], np.array([4999, 0, 4999, 17]),
                 rng.integers(0, 5000, 300), np.arange(5000)):
        assert beyond(rows, matched).tolist() == np.unique(rows[~seen[rows]]).tolist()
    assert beyond(np.array([3, 1, 3]), np.zeros(0, dtype=np.int64)).tolist() == [1, 3]


def test_counts_of_a_pool_beyond_the_matches_add_its_papers(searcher, backend):
    """A fused pool holds the vector's papers too: the counts are the matches' and theirs; a
    pool among the matches (the lexical mode's) counts the matches alone."""
    request = _request(searcher, backend, "online learning", k=10)
    found = backend.candidates(request)
    every = backend.candidates(_request(searcher, backend, "online learning"))
    outside = np.setdiff1d(np.arange(backend.n_docs), every.handles)[:7]
    alone = backend.facets(request, found.handles)
    more = backend.facets(request, np.concatenate([found.handles, outside]))
    assert alone.total_works == len(np.unique(every.works))
    both = np.concatenate([every.handles, outside])
    assert more.total_works == len(np.unique(backend.index.docs.work[both]))
    assert sum(n for _, n in more.papers["status"]) == sum(n for _, n in alone.papers["status"]) + 7


def test_counts_made_ahead_keep_their_match_set_when_the_memo_loses_it(searcher, backend):
    """The counts made ahead of the facets (`count_ahead`, while a query's vector is made) hold
    their match set: the memo is dropped whole when full, and a match set looked up again there
    after its counts were kept was made again, the query's scoring with it (at 1M papers a
    Chinese query's p95 rose by a few ms). The facets read no match set from the memo."""
    request = _request(searcher, backend, "online learning", k=10)
    found = backend.candidates(request)
    expected = backend.facets(request, found.handles)
    backend._memo.clear()
    backend.count_ahead(request)
    key = ("matches", request.cache_key())
    del backend._memo[key]  # as a clear between the counts and the facets leaves it
    counts = backend.facets(request, found.handles)
    assert key not in backend._memo  # not made again
    assert counts == expected
