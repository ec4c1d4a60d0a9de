"""Vector storage: round trip, quantised forms, bad directories, candidates in another numbering."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paperfind.index.vectors import AlignedVectors, VectorIndex, VectorIndexError, VectorParams, write_index


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


def test_bad_directories_get_clear_messages(tmp_path):
    with pytest.raises(VectorIndexError, match="no vector index here"):
        VectorIndex.open(tmp_path)
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 2), ["a", "b"], ["h", "h"],
                np.zeros((2, 384), np.float32))
    generation = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    (generation / "keys.tsv").write_text("a\th\n")
    with pytest.raises(VectorIndexError, match="keys.tsv has 1 keys"):
        VectorIndex.open(tmp_path)


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


def test_the_rows_with_a_vector_are_found_once_and_a_mask_leaves_them_as_they_were(tmp_path, unit_rows):
    """Issue 33: the rows searchable without a filter are found when the vectors are aligned,
    not per query; a filtered query's mask is applied to a copy, so the unfiltered answers
    after it are the ones before it."""
    keys = [f"k{i:02d}" for i in range(10)]
    write_index(tmp_path, VectorParams("m", 384, "float32", "title", 10), keys, ["h"] * 10, unit_rows[:10])
    outer = keys[:8] + ["zz"]
    aligned = AlignedVectors(VectorIndex.open(tmp_path), outer)
    before = aligned.candidates(unit_rows[2], None, k=9)
    assert not aligned._usable.flags.writeable and aligned._n_usable == 8
    for masked in ([2, 5], [0], list(range(9))):
        mask = np.ones(len(outer), dtype=bool)
        mask[masked] = False
        found, _ = aligned.candidates(unit_rows[2], mask, k=9)
        assert not set(found.tolist()) & set(masked) and len(found) == 8 - len(set(masked) & set(range(8)))
    after = aligned.candidates(unit_rows[2], None, k=9)
    assert before[0].tolist() == after[0].tolist() and before[1].tolist() == after[1].tolist()
    assert len(after[0]) == 8
