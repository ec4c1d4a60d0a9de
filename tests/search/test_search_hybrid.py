"""Hybrid mode with real vectors (a few papers embedded by the project's model) beside the index."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.engine import SearchRequest, open_searcher

EMBEDDED = 6  # papers given a vector: enough to see fusion at work, cheap on two cores


@pytest.fixture(scope="module")
def hybrid_searcher(slice_store, colt_vectors):
    store, index_root = slice_store
    vector_dir, keys = colt_vectors(EMBEDDED)
    return open_searcher(index_root, store, vector_dir=vector_dir), keys


def test_hybrid_mode_fuses_vector_candidates(hybrid_searcher):
    searcher, embedded = hybrid_searcher
    r = searcher.search(SearchRequest(q="regret bounds for online learning", limit=100, mode="hybrid"))
    assert r.mode == "hybrid"
    assert set(embedded) & {h["key"] for h in r.results}
    again = searcher.search(SearchRequest(q="regret bounds for online learning", limit=100, mode="hybrid"))
    assert [h["key"] for h in r.results] == [h["key"] for h in again.results]


def test_semantic_mode_ranks_by_vectors_only(hybrid_searcher):
    searcher, embedded = hybrid_searcher
    r = searcher.search(SearchRequest(q="regret bounds for online learning", limit=20, mode="semantic"))
    assert r.mode == "semantic" and {h["key"] for h in r.results} <= set(embedded)


def test_a_name_query_keeps_the_lexical_people_order(hybrid_searcher):
    searcher, _ = hybrid_searcher
    lexical = searcher.search(SearchRequest(q="Haipeng Luo", limit=5, mode="lexical"))
    hybrid = searcher.search(SearchRequest(q="Haipeng Luo", limit=5, mode="hybrid"))
    assert [h["key"] for h in hybrid.results][:3] == [h["key"] for h in lexical.results][:3]


def test_overlapped_query_embedding_gives_the_sequential_results(hybrid_searcher, slice_store):
    from paperfind.search.settings import SearchSettings

    searcher, _ = hybrid_searcher
    store, index_root = slice_store
    sequential = open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                          settings=SearchSettings(overlap_embedding=False))
    query = "how to get low regret when the losses are chosen by an adversary"
    a = searcher.search(SearchRequest(q=query, limit=20, mode="hybrid"))
    b = sequential.search(SearchRequest(q=query, limit=20, mode="hybrid"))
    assert a.mode == b.mode == "hybrid"
    assert [(h["key"], h["score"]) for h in a.results] == [(h["key"], h["score"]) for h in b.results]
    semantic = searcher.live._semantic
    assert semantic._prefetch._worker is not None and not semantic._prefetch._pending  # prefetched, then claimed
    assert sequential.live._semantic._prefetch._worker is None


def _keys_and_scores(searcher, q: str, mode: str) -> list[tuple[str, float]]:
    return [(h["key"], h["score"]) for h in searcher.search(SearchRequest(q=q, limit=50, mode=mode)).results]


def test_a_title_typed_nearly_whole_is_answered_without_the_vector_route(hybrid_searcher, slice_store):
    """Its lexical first is certain (issue 33): hybrid gives the lexical ranking itself, scores
    and all, where fusing the vector list would have re-scored it; with lexical_certain off
    the same query is fused."""
    from paperfind.search.settings import SearchSettings

    searcher, embedded = hybrid_searcher
    store, index_root = slice_store
    always = open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                           settings=SearchSettings(lexical_certain=False))
    title = next(d.title for d in store.iter_index_docs() if d.key == embedded[0])
    typo = title.replace(title.split()[-1], title.split()[-1][:-1], 1)  # a letter left out
    for q in (title, typo):
        lexical = _keys_and_scores(searcher, q, "lexical")
        assert lexical[0][0] == embedded[0]
        assert _keys_and_scores(searcher, q, "hybrid") == lexical
        assert _keys_and_scores(always, q, "hybrid") != lexical
    # a description is not a title: it is fused as before
    question = "how to get low regret when the losses are chosen by an adversary"
    assert _keys_and_scores(searcher, question, "hybrid") == _keys_and_scores(always, question, "hybrid")
    assert _keys_and_scores(searcher, question, "hybrid") != _keys_and_scores(searcher, question, "lexical")


@pytest.mark.parametrize("start", ["The Relative Complexity of Maximum Likelihood",
                                   "Near Optimal Methods for Minimizing Convex Functions"])
def test_the_start_of_a_long_title_is_answered_without_the_vector_route(hybrid_searcher, slice_store, start):
    """Issue 33: a query typed from a title's start holds less than the nearly-whole share of
    the title's words, but every word of it is in the title: neither fusion (the lead is beyond
    its reach) nor the learned ranker (it leaves such a query to the title features) would
    change the first result, so hybrid mode spares the embedding; before, it fused."""
    from paperfind.search.fusion import classify_query
    from paperfind.search.settings import SearchSettings

    searcher, embedded = hybrid_searcher
    store, index_root = slice_store
    always = open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                           settings=SearchSettings(lexical_certain=False))
    assert classify_query(start).name == "natural"  # a kind the query embedding is made for
    lexical = _keys_and_scores(searcher, start, "lexical")
    assert lexical[0][0] in embedded
    assert _keys_and_scores(searcher, start, "hybrid") == lexical
    fused = _keys_and_scores(always, start, "hybrid")
    assert fused != lexical and fused[0][0] == lexical[0][0]


def test_a_lead_over_the_first_papers_other_version_does_not_count():
    """The runner-up of a certain title is the best paper of another work: a version of the
    first (same work, same score) is the same first result."""
    from paperfind.search.second_stage import certain_title

    query = "the relative complexity of maximum likelihood"
    f = {"title_cover": np.array([1.0, 1.0, 0.4]), "title_in_query": np.array([1.0, 1.0, 0.3])}
    score = np.array([3.0, 3.0, 1.0])
    assert not certain_title(query, f, score, 0.8)
    assert certain_title(query, f, score, 0.8, works=np.array([7, 7, 8]))
    assert not certain_title(query, f, score, 0.8, works=np.array([7, 9, 8]))
    partial = {"title_cover": np.array([1.0, 0.5]), "title_in_query": np.array([0.5, 0.2])}
    assert not certain_title(query, partial, np.array([3.0, 1.0]), 0.8)
    assert certain_title(query, partial, np.array([3.0, 1.0]), 0.8, whole=0.9)
    assert not certain_title(query, partial, np.array([3.0, 2.9]), 0.8, whole=0.9)  # within fusion's reach


def test_the_learned_order_from_kept_features_is_the_fresh_one(hybrid_searcher):
    """Issue 33: the learned ranker reads the features the query kept (the lexical leaders'
    computed while its vector was made); its order and scores are those of features computed
    afresh after fusion."""
    from paperfind.search.filters import Filters
    from paperfind.search.query import parse_query

    searcher, _ = hybrid_searcher
    backend = searcher.backend()
    query = searcher._read(backend, parse_query("how to get low regret when the losses are chosen by an adversary"),
                           Filters(), "hybrid")
    ranking = searcher._rank(backend, query, 20, "hybrid", None)
    assert ranking.stage is not None and ranking.rows is not None
    assert len(ranking.rows._scores) >= min(len(ranking.pool.handles), 20)  # kept before the vector
    kept = searcher._learned_order(backend, query.plan, ranking.stage, ranking.pool, True, ranking.rows)
    fresh = searcher._learned_order(backend, query.plan, ranking.stage, ranking.pool, True)
    np.testing.assert_array_equal(kept[0], fresh[0])
    assert kept[1] == fresh[1]


FUSED_QUERIES = ("how to get low regret when the losses are chosen by an adversary",
                 "bandit algorithms with partial feedback and adversarial rewards",
                 "online convex optimization regret bounds",
                 "learning with expert advice when experts are strategic")


def test_cards_drafted_while_the_vector_is_made_give_the_undrafted_answers(hybrid_searcher, slice_store):
    """Issue 33: a fused query drafts its lexical leaders' cards while its vector is made; the
    answers, cards, scores, highlights and versions, are those of a searcher that drafts none,
    whatever query came before (a draft of another query's would show here), on the first page
    and on the next (not drafted)."""
    from paperfind.search.settings import SearchSettings

    searcher, embedded = hybrid_searcher
    store, index_root = slice_store
    drafting, undrafted = (open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                                         settings=SearchSettings(draft_cards=n, result_cache=0))
                           for n in (SearchSettings().draft_cards, 0))
    fused_in = set()
    for q in FUSED_QUERIES + FUSED_QUERIES[::-1]:
        for offset in (0, 5):
            semantic = drafting.live._semantic
            if semantic is not None and semantic._encoder is not None:
                semantic._encoder._cache.clear()  # each search waits for its vector
            a = drafting.search(SearchRequest(q=q, limit=5, offset=offset, mode="hybrid")).to_json()
            b = undrafted.search(SearchRequest(q=q, limit=5, offset=offset, mode="hybrid")).to_json()
            a.pop("took_ms"), b.pop("took_ms")
            assert a["mode"] == "hybrid" and a == b
            lexical = undrafted.search(SearchRequest(q=q, limit=5, offset=offset, mode="lexical"))
            fused_in |= {r["key"] for r in a["results"]} - {r["key"] for r in lexical.results}
    assert fused_in  # fusion put papers on pages that the lexical leaders (the drafts) were not


def test_a_fused_query_drafts_its_leaders_while_it_waits(hybrid_searcher):
    """The drafts are made before the vector is taken (while the worker embeds) and only of
    the first page's number of lexical leaders."""
    from paperfind.search.drafts import CardDrafts
    from paperfind.search.filters import Filters
    from paperfind.search.highlight import Marker
    from paperfind.search.query import parse_query

    searcher, _ = hybrid_searcher
    backend = searcher.backend()
    drafted = []
    searcher.search(SearchRequest(q="why does the adversary win", mode="hybrid"))  # the query model loaded
    for text in FUSED_QUERIES * 2:  # the vector may rarely be made before the lexical route ends
        searcher.live._semantic._encoder._cache.clear()
        query = searcher._read(backend, parse_query(text), Filters(), "hybrid")
        drafts = CardDrafts(backend, query.restriction, Marker(set(), searcher.analyzer))
        searcher._rank(backend, query, 4, "hybrid", None, drafts)
        assert len(drafts) <= 4
        drafted.append(len(drafts))
    assert max(drafted) > 0


def test_the_vector_searched_on_the_worker_and_the_matches_counted_ahead_give_the_same_answers(
        hybrid_searcher, slice_store):
    """Issue 33: while a fused query's vector is made, its neighbours are searched on the
    worker (`nearest_on_worker`) and its lexical matches counted (`count_ahead`); the answers,
    facets, totals and trend included, are those of a searcher that does neither, on pages
    with and without the facets, with a filter and without."""
    from paperfind.search.filters import Filters
    from paperfind.search.settings import SearchSettings

    searcher, _ = hybrid_searcher
    store, index_root = slice_store
    ahead, after = (open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                                  settings=SearchSettings(nearest_on_worker=on, result_cache=0))
                    for on in (True, False))
    for q in FUSED_QUERIES:
        for filters in (Filters(), Filters(year_from=2019)):
            for include in (frozenset({"facets", "trend"}), frozenset({"trend"})):
                answers = []
                for s in (ahead, after):
                    semantic = s.live._semantic
                    if semantic is not None and semantic._encoder is not None:
                        semantic._encoder._cache.clear()  # each search waits for its vector
                    r = s.search(SearchRequest(q=q, limit=10, mode="hybrid", filters=filters,
                                               include=include)).to_json()
                    r.pop("took_ms")
                    answers.append(r)
                assert answers[0]["mode"] == "hybrid" and answers[0] == answers[1]


def test_facets_counted_ahead_are_the_facets_counted_at_once(hybrid_searcher):
    """The match set's tally kept by `count_ahead`, plus the candidates beyond it, counts
    what the union counted in one pass does (works, totals and papers per facet value)."""
    from paperfind.search.backend import PAPER_FACETS, CandidateRequest, Restriction
    from paperfind.search.filters import Filters
    from paperfind.search.plan import build_plan
    from paperfind.search.query import parse_query

    searcher, _ = hybrid_searcher
    backend = searcher.backend()
    plan = build_plan(parse_query("regret bounds for online learning"), searcher.analyzer, backend)
    for restriction in (Restriction(Filters()), Restriction(Filters(year_from=2020))):
        request = CandidateRequest(plan.lexical(), restriction, 2)
        matched = backend._matches(request)[0]
        others = np.setdiff1d(np.arange(backend.n_docs), matched)[::7]
        extra = np.concatenate([matched[:5], others])  # some matches again, some not
        union = np.union1d(matched, others)
        counter, docs = backend._work_counter()[0], backend.index.docs
        for papers in (PAPER_FACETS, ("institution", "status", "area"), ()):
            backend._memo.clear()
            fresh = backend.facets(request, extra, papers)
            backend.count_ahead(request, papers)
            kept = backend.facets(request, extra, papers)
            assert fresh == kept
            works, total = counter.counted(union)
            assert (kept.works, kept.total_works) == (works, total)
            assert kept.papers == (docs.facets(union, only=papers) if papers else {})


def test_a_neighbour_search_prefetched_is_the_search_made_after(hybrid_searcher):
    """`prefetch_candidates` searches on the worker once the vector is made; the same
    arguments then take that search, others search again: both as a fresh retriever finds."""
    searcher, _ = hybrid_searcher
    semantic = searcher.backend().semantic
    text = "how to get low regret when the losses are chosen by an adversary"
    semantic._query_encoder()._cache.clear()
    fresh = semantic.vector_candidates(text, None, 5)
    for k_asked, k in ((5, 5), (4, 5)):
        semantic._query_encoder()._cache.clear()
        semantic.prefetch(text)
        semantic.prefetch_candidates(text, None, k_asked)
        assert text in semantic._prefetch._after
        rows, scores = semantic.vector_candidates(text, None, k)
        assert rows.tolist() == fresh[0].tolist() and scores.tolist() == fresh[1].tolist()
        assert not semantic._prefetch._after and not semantic.pending(text)


def test_the_local_index_is_asked_for_no_lexical_match_among_the_vectors_papers(hybrid_searcher, slice_store):
    """Issue 33: the local index returns the exact best k, so the vector's papers hold no
    lexical match it missed and the searcher does not score them to find none
    (`exact_candidates`); asked anyway, they are none, and the answers are the same."""
    from paperfind.search.backend import CandidateRequest, Restriction
    from paperfind.search.plan import build_plan
    from paperfind.search.pool import lexical_matches_among
    from paperfind.search.query import parse_query
    from paperfind.search.settings import SearchSettings

    searcher, _ = hybrid_searcher
    store, index_root = slice_store
    fresh = open_searcher(index_root, store, vector_dir=searcher.live.vector_dir,
                          settings=SearchSettings(result_cache=0))
    backend = fresh.backend()
    assert backend.exact_candidates
    for q in FUSED_QUERIES:
        plan = build_plan(parse_query(q), fresh.analyzer, backend)
        for k in (3, 20, None):
            request = CandidateRequest(plan.lexical(), Restriction(), 2, k=k)
            found = backend.candidates(request)
            near = backend.nearest(q, Restriction(), 200)
            assert len(near) and len(lexical_matches_among(backend, request, found, near)) == 0
            backend.exact_candidates = False
            try:
                assert len(lexical_matches_among(backend, request, found, near)) == 0
            finally:
                del backend.exact_candidates
        taken = fresh.search(SearchRequest(q=q, limit=10, mode="hybrid")).to_json()
        backend.exact_candidates = False
        try:
            asked = fresh.search(SearchRequest(q=q, limit=10, mode="hybrid")).to_json()
        finally:
            del backend.exact_candidates
        taken.pop("took_ms"), asked.pop("took_ms")
        assert taken == asked
