"""The "int8mix" query encoders: int8 speed, vectors that still search the q4 document vectors."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.e5_calibrate import measure_act_peaks
from paperfind.embed.e5_graph import PEAKS_FILE, build_model, load_act_peaks
from paperfind.embed.e5_weights import load_weights
from paperfind.embed.onnx_backend import OnnxE5Embedder
from paperfind.embed.runtime import DEFAULT_QUERY_FORM, QUERY_FORMS, make_embedder
from paperfind.search.settings import SearchSettings
from paperfind.settings import Settings
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def texts() -> list[str]:
    rows = load_paperlist("aaai", 2022)[:12]
    sentences = [" ".join((r.get("abstract") or "").split(". ")[0].split()[:25]) for r in rows[:6]]
    return [r["title"] for r in rows] + sentences + ["小样本分类的原型网络"]


def _single(form: str, texts: list[str]) -> np.ndarray:
    embedder = OnnxE5Embedder(form=form)
    return np.vstack([embedder.embed([t], query=True) for t in texts])


@pytest.fixture(scope="module")
def q4_vectors(texts) -> np.ndarray:
    return _single("q4", texts)


def test_int8mix_stays_close_to_q4_where_plain_int8_drifts(texts, q4_vectors):
    mix = np.sum(_single("int8mix", texts) * q4_vectors, axis=1)
    plain = np.sum(_single("int8", texts) * q4_vectors, axis=1)
    assert mix.min() > 0.998 and mix.mean() > 0.999, mix
    # the balancing and per-token scales are what keep it close: plain int8 drifts 3x further
    assert (1 - mix.mean()) * 2.5 < 1 - plain.mean(), (mix.mean(), plain.mean())


def test_int8mix_mha_is_int8mix_in_fewer_kernels(texts, q4_vectors):
    """The fused-attention form: as close to q4 as int8mix (the same arithmetic in another
    order), one attention node a layer, and a padded batch still masks its padding."""
    mix = np.sum(_single("int8mix", texts) * q4_vectors, axis=1)
    mha = np.sum(_single("int8mix_mha", texts) * q4_vectors, axis=1)
    assert mha.min() > 0.998 and abs(mha.mean() - mix.mean()) < 2e-4, (mha.mean(), mix.mean())
    weights, peaks = load_weights(), load_act_peaks()
    fused = [n.op_type for n in build_model(weights, "int8mix_mha", act_peaks=peaks).graph.node]
    plain = [n.op_type for n in build_model(weights, "int8mix", act_peaks=peaks).graph.node]
    assert fused.count("MultiHeadAttention") == weights.layers and "Softmax" not in fused
    assert len(plain) - len(fused) >= 10 * weights.layers
    embedder = OnnxE5Embedder(form="int8mix_mha")
    batched = embedder.embed(texts, query=True)
    np.testing.assert_allclose(np.sum(batched * _single("int8mix_mha", texts), axis=1), 1.0, atol=1e-3)


def test_query_side_uses_int8mix_mha_by_default_and_q4_on_request():
    assert DEFAULT_QUERY_FORM == "int8mix_mha" and SearchSettings().query_form == "int8mix_mha"
    assert Settings.from_env({}).searcher_settings().query_form == "int8mix_mha"
    assert Settings.from_env({"PAPERFIND_QUERY_FORM": "q4"}).searcher_settings().query_form == "q4"
    assert Settings.from_env({"PAPERFIND_QUERY_FORM": "int8mix"}).searcher_settings().query_form == "int8mix"
    with pytest.raises(ValueError):
        Settings.from_env({"PAPERFIND_QUERY_FORM": "int4"})
    assert make_embedder("onnx", form="int8mix").form == "int8mix"
    assert make_embedder("onnx").form == "q4"  # documents keep the stored vectors' form
    assert set(QUERY_FORMS) >= {"int8mix_mha", "int8mix", "q4"}


def test_shipped_peaks_fit_the_model_and_a_fresh_measurement(texts):
    weights = load_weights()
    peaks = load_act_peaks()
    assert PEAKS_FILE.exists() and peaks.shape == (weights.layers, 2, weights.hidden)
    measured = measure_act_peaks(texts[:6])
    assert measured.shape == peaks.shape and (measured > 0).all()
    # measured on 600 corpus texts, the shipped peaks bound a handful of other titles' channels
    assert np.mean(measured <= peaks * 1.25) > 0.99
    with pytest.raises(ValueError, match="activation peaks"):
        build_model(weights, "int8mix")


def test_the_milvus_route_embeds_queries_in_the_local_index_form():
    from paperfind.milvus.live import MilvusLive

    assert MilvusLive(None, "papers", None)._query_encoder().embedder.form == DEFAULT_QUERY_FORM
    assert MilvusLive(None, "papers", None, query_form="q4")._query_encoder().embedder.form == "q4"
