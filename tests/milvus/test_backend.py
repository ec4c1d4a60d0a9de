"""`MilvusBackend` against the local `IndexBackend` over the same slice, call by call of the
search contract, on a real Milvus (a milvus-lite server process)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.text.analyze import Analyzer
from paperfind.milvus.backend import MilvusBackend
from paperfind.milvus.client import MilvusConnection, MilvusUnavailable
from paperfind.search.backend import CandidateRequest, Clause, Filters, Restriction
from tests.milvus_server import start_server

AN = Analyzer()
QUERIES = ["attention transfer", "Paying More Attention to Attention", "reinforcement learning robots",
           "Sergey Levine", "bandit regret lower bound", "graph neural network", "auto-encoders",
           "sample complexity of learning halfspaces"]
FILTERS = [Filters(), Filters(venues=("corl",)), Filters(year_from=2019), Filters(statuses=("oral",)),
           Filters(venues=("iclr",), year_to=2017), Filters(insts=("google",))]
HOSTILE = ['corl"] or venue in ["iclr', ")) or ((", "a || b", "back\\slash\\", '"', "[", "x" * 5000,
           "corl) or (year > 0"]


def groups_of(text: str) -> list:
    """Term groups as the query plan writes them: the stem in the text field, the word in the
    author (0.5) and venue (0.2) fields."""
    return [[("text", AN.stem(w), 1.0), ("authors", w, 0.5), ("venue", w, 0.2)]
            for w in AN.words(text) if not AN.is_stopword(w)]


@pytest.fixture(scope="module")
def milvus(synced, local_index):
    return MilvusBackend(synced, "paperfind_slice", local_index)


def _top(c, n=20):
    order = np.lexsort((c.handles, -np.round(c.scores, 5)))[:n]
    return c.handles[order].tolist()


def test_the_collection_numbers_papers_like_the_local_index(milvus, local_index):
    assert milvus.n_docs == local_index.n_docs
    assert milvus.handles_of(["iclr2017:Sks9_ajex", "nope"]).tolist() == \
        local_index.handles_of(["iclr2017:Sks9_ajex", "nope"]).tolist()
    assert milvus.corpus_stats() == local_index.corpus_stats()


@pytest.mark.parametrize("text", QUERIES)
@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:40])
def test_candidates_scores_and_facets_equal_the_local_backend(milvus, local_index, text, filters):
    groups = groups_of(text)
    for min_match in (1, len(groups)):
        request = CandidateRequest(groups, Restriction(filters=filters), min_match=min_match, k=50)
        ours, theirs = milvus.candidates(request), local_index.candidates(request)
        assert ours.total == theirs.total
        assert _top(ours) == _top(theirs)
        common = np.intersect1d(ours.handles, theirs.handles)
        a = dict(zip(ours.handles.tolist(), ours.scores.tolist()))
        b = dict(zip(theirs.handles.tolist(), theirs.scores.tolist()))
        assert all(abs(a[h] - b[h]) < 1e-4 for h in common.tolist())
        facets, local = milvus.facets(request, np.zeros(0, np.int64)), local_index.facets(request, np.zeros(0, np.int64))
        assert facets.exact  # the slice is small: the pool holds every match
        assert (facets.papers, facets.works, facets.total_works) == (local.papers, local.works, local.total_works)


@pytest.mark.parametrize("text", ["深度网络泛化", "强化学习探索", "bandit regret lower bound"])
def test_title_company_is_the_local_indexs(milvus, local_index, text):
    """A Chinese word's senses are weighed by the local index's titles on both backends
    (paperfind.search.sense_weights): the same counts, the same plan."""
    from paperfind.search.sense_weights import sense_terms
    from paperfind.text.translate import ZhEnTranslator

    terms = ZhEnTranslator().translate(text).terms or tuple((w, (w,)) for w in text.split())
    words = [[sense_terms(AN, s) for s in senses] for _, senses in terms]
    assert milvus.title_company(words) == local_index.title_company(words)


def test_filter_only_requests_list_every_paper_the_filters_let_through(milvus, local_index):
    for filters in FILTERS[1:]:
        request = CandidateRequest([], Restriction(filters=filters))
        assert milvus.candidates(request).handles.tolist() == local_index.candidates(request).handles.tolist()


def test_people_and_clauses(milvus, local_index):
    levine = local_index.people("sergey levine")[0].author_id
    exclude = Clause(((("title", AN.stem("robot")), ("abstract", AN.stem("robot")),
                       ("keywords", AN.stem("robot")), ("authors", "robot")),))
    require = Clause(((("authors", "levine"),),))
    for restriction in (Restriction(people=((levine,),)), Restriction(exclude=(exclude,)),
                        Restriction(require=(require,)),
                        Restriction(filters=Filters(venues=("corl",)), exclude=(exclude,))):
        request = CandidateRequest(groups_of("reinforcement learning"), restriction, k=30)
        assert _top(milvus.candidates(request), 30) == _top(local_index.candidates(request), 30)
    for args in (([levine],), ([levine], Restriction(filters=Filters(venues=("corl",))))):
        ours, theirs = milvus.papers_of(*args), local_index.papers_of(*args)
        assert ours[0].tolist() == theirs[0].tolist() and ours[1].tolist() == theirs[1].tolist()
    request = CandidateRequest(groups_of("bandit"), people=(levine,), k=5)
    assert set(milvus.papers_of([levine])[0].tolist()) <= set(milvus.candidates(request).handles.tolist())


def test_stored_cards_versions_and_sequences(milvus, local_index):
    handles = list(range(0, milvus.n_docs, 37))
    assert milvus.stored(handles) == local_index.stored(handles)
    restriction = Restriction(filters=Filters(year_from=2019))
    ours = milvus.work_versions(handles, restriction)
    theirs = local_index.work_versions(handles, restriction)
    assert [[(v.handle, v.allowed, v.doc) for v in vs] for vs in ours] == \
           [[(v.handle, v.allowed, v.doc) for v in vs] for vs in theirs]
    terms = [AN.stem("learning"), AN.stem("neural"), AN.stem("network"), "zzz"]
    for field in ("title", "abstract", "keywords"):
        a = milvus.sequences(np.asarray(handles), field, terms)
        b = local_index.sequences(np.asarray(handles), field, terms)
        assert a.indptr.tolist() == b.indptr.tolist() and a.codes.tolist() == b.codes.tolist()
    groups = groups_of("deep reinforcement learning")
    ours, theirs = milvus.scores(groups, np.asarray(handles)), local_index.scores(groups, np.asarray(handles))
    assert np.allclose(ours[0], theirs[0], atol=1e-4) and ours[1].tolist() == theirs[1].tolist()


@pytest.mark.parametrize("value", HOSTILE, ids=[repr(v[:20]) for v in HOSTILE])
def test_hostile_filter_values_match_what_they_match_locally(milvus, local_index, value):
    for filters in (Filters(venues=(value,)), Filters(insts=(value,)), Filters(areas=(value,)),
                    Filters(statuses=(value,)), Filters(venues=("corl", value))):
        request = CandidateRequest(groups_of("learning"), Restriction(filters=filters), k=20)
        assert _top(milvus.candidates(request)) == _top(local_index.candidates(request))
        request = CandidateRequest([], Restriction(filters=filters))
        assert milvus.candidates(request).handles.tolist() == local_index.candidates(request).handles.tolist()
    exclude = Clause(((("title", value),),))
    request = CandidateRequest(groups_of("learning"), Restriction(exclude=(exclude,)), k=20)
    assert _top(milvus.candidates(request)) == _top(local_index.candidates(request))


def test_milvus_stopped_mid_session_raises_unavailable_then_recovers(tmp_path, slice_db, local_index):
    from paperfind.milvus.sync import sync_store
    from paperfind.store import Store

    server = start_server(tmp_path)
    try:
        conn = MilvusConnection(server.uri)
        sync_store(Store(slice_db), conn, "paperfind_slice")
        backend = MilvusBackend(conn, "paperfind_slice", local_index)
        request = CandidateRequest(groups_of("graph neural network"), k=10)
        before = _top(backend.candidates(request))
        server.kill()  # SIGKILL: the process is gone, its port closed
        assert not conn.healthy()
        with pytest.raises(MilvusUnavailable):
            backend.candidates(CandidateRequest(groups_of("bandit regret"), k=10))
        with pytest.raises(MilvusUnavailable):
            backend.stored([1, 2])
        server.start()  # the same data directory: what was synced is still there
        assert conn.healthy()
        assert _top(backend.candidates(CandidateRequest(groups_of("graph neural network"), k=11)), 10) == before
    finally:
        server.kill()


def test_a_field_search_weighs_each_word_by_its_boost():
    """Milvus weighs a query word by how often the query text holds it: a Chinese query's
    English rendering (0.6 of a typed word), a typo's second correction (0.5) and a joined
    form's share are written fewer times than the words typed (5 for the strongest)."""
    from paperfind.milvus.backend import weighted_text

    assert weighted_text({"robot": 1.0, "grasp": 0.6, "graps": 0.5, "x": 0.01}).split() == \
        ["robot"] * 5 + ["grasp"] * 3 + ["graps"] * 2 + ["x"]
    assert weighted_text({"only": 0.6}) == "only only only only only"
