"""A query's vector prepared on the caller's thread and made on the worker's (issue 33, hyb33h):
`OnnxE5Embedder.prepare` + `embed_prepared` and `QueryEncoder.job` give the vectors `embed`
and `vector` give, bit for bit (real model, real titles)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from paperfind.embed.onnx_backend import OnnxE5Embedder
from paperfind.embed.queries import QueryEncoder, QueryPrefetch
from paperfind.embed.runtime import DEFAULT_QUERY_FORM
from paperfind.text.translate import ZhEnTranslator
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def model() -> OnnxE5Embedder:
    return OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM)


@pytest.fixture(scope="module")
def titles() -> list[str]:
    return [r["title"] for r in load_paperlist("aaai", 2022)[:6]]


def test_prepared_texts_give_the_same_vectors_bit_for_bit(model, titles):
    long_text = " ".join(r.get("abstract") or "" for r in load_paperlist("aaai", 2022)[:8])
    texts = [*titles, long_text, ""]
    for query in (True, False):
        prepared = model.prepare(texts, query=query)
        np.testing.assert_array_equal(model.embed_prepared(prepared), model.embed(texts, query=query))
    # the long text is several windows (each with its own <s> and </s>); the empty one a space
    extra = len(prepared.seqs) - len(texts)
    assert prepared.count == len(texts) and extra >= 1 and prepared.owner.count(len(titles)) == extra + 1
    assert prepared.tokens == sum(model.token_count(t or " ") for t in texts) + 2 * extra
    assert model.embed_prepared(model.prepare([], query=True)).shape == (0, model.dim)


def test_a_query_job_is_the_query_vector(model, titles):
    encoder = QueryEncoder(OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM), ZhEnTranslator())
    fresh = QueryEncoder(model, ZhEnTranslator())
    for query in (titles[0], "小样本分类的原型网络", "  spaced   out  query "):
        job = encoder.job(query)
        # the Python part is done: the model was loaded and the query tokenised before the call
        assert encoder.embedder._session is not None  # type: ignore[attr-defined]
        vector = job()
        np.testing.assert_array_equal(vector, fresh.vector(query))
        assert encoder.job(query)() is vector  # kept: a repeated query is the cache's


def test_a_prepared_job_on_the_worker_thread():
    """`start_job` runs the given job on the worker; a second start of the same text is not
    prepared again (`started`), and `take` claims the job's vector."""
    prefetch = QueryPrefetch()
    ran_on: list[str] = []

    def job() -> np.ndarray:
        ran_on.append(threading.current_thread().name)
        return np.ones(3, dtype=np.float32)

    assert not prefetch.started("q")
    prefetch.start_job("q", job)
    assert prefetch.started("q")
    np.testing.assert_array_equal(prefetch.take("q", lambda t: np.zeros(3, dtype=np.float32)), np.ones(3))
    assert not prefetch.started("q") and ran_on and ran_on[0].startswith("paperfind-embed")


def test_a_long_query_is_embedded_by_its_first_tokens(titles):
    """`query_max_tokens`: a query's model tokens past the cap are not embedded (a longer
    description's tail), documents' texts are embedded whole; the searcher's default caps."""
    from paperfind.embed.runtime import make_embedder
    from paperfind.search.settings import SearchSettings

    capped = OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM, query_max_tokens=16)
    whole = OnnxE5Embedder(threads=1, form=DEFAULT_QUERY_FORM)
    long_query = " ".join(titles[:3])
    assert capped.prepare([long_query], query=True).tokens == 16
    assert whole.prepare([long_query], query=True).tokens > 30
    np.testing.assert_array_equal(capped.embed([long_query], query=True),
                                  capped.embed([long_query + " and then some other words"], query=True))
    assert float(capped.embed([long_query], query=True)[0] @ whole.embed([long_query], query=True)[0]) < 0.999
    np.testing.assert_array_equal(capped.embed([long_query]), whole.embed([long_query]))  # a passage
    np.testing.assert_array_equal(capped.embed([titles[0][:20]], query=True),
                                  whole.embed([titles[0][:20]], query=True))  # under the cap
    cap = SearchSettings().query_max_tokens
    assert cap >= 16 and make_embedder("onnx", form=DEFAULT_QUERY_FORM, query_max_tokens=cap).query_max_tokens == cap


def test_a_query_is_prepared_while_another_query_runs(model, titles):
    """The tokens of a query do not wait for the model's run of another (a vector started and
    never taken runs on while the next query is prepared): `prepare` needs the model loaded,
    not the run's lock."""
    model.embed(["load the model"], query=True)
    prepared: list = []
    with model._lock:  # another query's run in progress
        thread = threading.Thread(target=lambda: prepared.append(model.prepare([titles[1]], query=True)))
        thread.start()
        thread.join(60.0)  # a guard against a hang, not a time limit: it returns at once
        assert prepared, "prepare waited for the other run"
    np.testing.assert_array_equal(model.embed_prepared(prepared[0]), model.embed([titles[1]], query=True))


def test_start_prepared_makes_the_tokens_here_once_and_the_vector_on_the_worker(model, titles):
    """The local and the Milvus routes start a query's vector by `start_prepared`: the job is
    made on the caller's thread (`QueryEncoder.job`), not again for a text already started,
    and what the worker makes is the query's vector."""

    class Counted(QueryEncoder):
        jobs = 0

        def job(self, query):
            Counted.jobs += 1
            return super().job(query)

    encoder, prefetch = Counted(model, ZhEnTranslator()), QueryPrefetch()
    prefetch.start_prepared(titles[2], encoder)
    prefetch.start_prepared(titles[2], encoder)
    assert Counted.jobs == 1 and prefetch.started(titles[2])
    vector = prefetch.take(titles[2], lambda t: np.zeros(model.dim, dtype=np.float32))
    np.testing.assert_array_equal(vector, QueryEncoder(model, ZhEnTranslator()).vector(titles[2]))
