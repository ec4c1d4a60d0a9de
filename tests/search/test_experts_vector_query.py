"""The expert finder embeds a whole abstract's first words, past the search's cap on a query's
model tokens (issue 30, exp30i): `SearchSettings.query_max_tokens` (32 since hyb33h) suits a
search's short descriptions, but cut the expert finder's 64 words to ~24 and cost it 5 papers of
200 on dev and dev2 (bench/RESULTS.md). Real model, real COLT papers and their vectors."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.onnx_backend import OnnxE5Embedder
from paperfind.embed.queries import QueryEncoder
from paperfind.embed.runtime import DEFAULT_QUERY_FORM
from paperfind.search.backend import Restriction
from paperfind.search.engine import open_searcher
from paperfind.search.experts import ExpertQuery, find_experts, meaning_hits, vector_text
from paperfind.search.settings import ExpertSettings, SearchSettings

CAP = 16  # the search's cap in these tests: well under a 64-word abstract's tokens
EMBEDDED = 12


@pytest.fixture(scope="module")
def whole() -> OnnxE5Embedder:
    return OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM)


@pytest.fixture(scope="module")
def capped_backend(slice_store, colt_vectors):
    """The slice's index with a dozen COLT papers' vectors, its query model capped at CAP tokens."""
    store, index_root = slice_store
    vector_dir, _ = colt_vectors(EMBEDDED)
    searcher = open_searcher(index_root, store, SearchSettings(query_max_tokens=CAP, result_cache=0),
                             vector_dir=vector_dir)
    backend = searcher.backend()
    assert backend is not None and backend.vectors_ready()
    abstract = next(d.abstract for d in store.iter_index_docs() if len((d.abstract or "").split()) > 80)
    return backend, abstract


def test_a_query_may_ask_for_every_token_past_the_embedders_cap(whole):
    capped = OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM, query_max_tokens=CAP)
    text = ("We study online convex optimization with bandit feedback in adversarial environments "
            "and give regret bounds that improve on the best known ones for smooth losses")
    assert capped.prepare([text], query=True).tokens == CAP
    assert capped.prepare([text], query=True, max_tokens=0).tokens == whole.prepare([text], query=True).tokens > CAP
    assert capped.prepare([text], query=True, max_tokens=CAP + 4).tokens == CAP + 4
    encoder = QueryEncoder(capped)
    np.testing.assert_array_equal(encoder.vector(text, 0), whole.embed([text], query=True)[0].astype(np.float32))
    np.testing.assert_array_equal(encoder.vector(text), capped.embed([text], query=True)[0].astype(np.float32))
    # the cache keeps the two apart, whichever was asked first
    assert float(encoder.vector(text, 0) @ encoder.vector(text)) < 0.999
    assert encoder.job(text, 0)() is encoder.vector(text, 0)


def test_the_expert_finder_embeds_its_words_past_the_searchs_cap(capped_backend, whole):
    backend, abstract = capped_backend
    settings = ExpertSettings()
    text = vector_text(abstract, settings)
    assert settings.query_max_tokens == 0 and whole.prepare([text], query=True).tokens > 2 * CAP
    exact = backend.semantic._aligned.candidates(QueryEncoder(whole).vector(text), None, EMBEDDED)
    rows, cosines = meaning_hits(backend, backend, text, Restriction(), EMBEDDED, settings.query_max_tokens)
    np.testing.assert_array_equal(rows, exact[0])
    np.testing.assert_allclose(cosines, exact[1], rtol=0, atol=1e-6)
    # the search's own route still embeds the capped query
    searched = backend.nearest(text, Restriction(), EMBEDDED)
    assert not np.allclose(np.sort(searched.scores), np.sort(exact[1]), atol=1e-4)
    # and find_experts reads the whole query's cosines
    found = find_experts(backend, ExpertQuery(text=abstract), settings)
    papers = found.papers
    assert papers is not None
    got = papers.cosine[np.searchsorted(papers.rows, exact[0])]
    np.testing.assert_allclose(got, exact[1], rtol=0, atol=1e-6)
