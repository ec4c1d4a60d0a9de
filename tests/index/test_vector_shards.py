"""The bundled vectors in venue-year shards over a base generation: cut, assembled, and bad files.

Vectors here are made up (no model runs): what is tested is that the rows a first start
assembles are the ones shipped, that an unchanged venue-year keeps its bytes, and that a
shard that cannot be read names itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paperfind.index.vector_shards import assemble, base_of, read_shard, write_shard, write_shards
from paperfind.index.vectors import VectorIndex, VectorIndexError, VectorParams, write_index

PARAMS = VectorParams("test-model", 8, "int8", "words24", 0)


def unit_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, 8)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def generation(root: Path, keys: list[str], hashes: list[str], rows: np.ndarray) -> Path:
    write_index(root, VectorParams(PARAMS.model, 8, "int8", "words24", len(keys)), keys, hashes, rows)
    return root


def test_only_venue_years_the_base_lacks_get_a_shard_and_assembly_gives_every_row(tmp_path: Path) -> None:
    base_keys = ["colt2019:a", "colt2019:b", "iclr2025:x"]
    base = generation(tmp_path / "base", base_keys, ["h1", "h2", "old"], unit_rows(3, 1))
    keys = ["colt2019:a", "colt2019:b", "cvpr2024:c", "iclr2025:x"]
    rows = np.vstack([VectorIndex.open(base).matrix[:2], unit_rows(2, 2)])
    db_vectors = generation(tmp_path / "db.vectors", keys, ["h1", "h2", "h3", "new"], rows)
    venue_years = {"colt2019:a": ("colt", 2019), "colt2019:b": ("colt", 2019),
                   "cvpr2024:c": ("cvpr", 2024), "iclr2025:x": ("iclr", 2025)}
    shards = tmp_path / "corpus.vectors"
    assert write_shards(db_vectors, venue_years, shards, base) == ["cvpr-2024.npz", "iclr-2025.npz"]
    assert base_of(shards) == base.resolve()
    assert write_shards(db_vectors, venue_years, shards, base) == []  # nothing changed: no bytes either

    out = tmp_path / "fresh.vectors"
    assert assemble(shards, base_of(shards), out) == 4
    index = VectorIndex.open(out)
    assert index.keys == sorted(keys)
    assert dict(zip(index.keys, index.hashes))["iclr2025:x"] == "new"  # the shard's row wins
    source = VectorIndex.open(db_vectors)
    for key in keys:  # int8 twice over: the same direction
        assert float(index.vector(key) @ source.vector(key)) / (
            np.linalg.norm(index.vector(key)) * np.linalg.norm(source.vector(key))) > 0.995


def test_a_shard_keeps_its_bytes_when_written_again(tmp_path: Path) -> None:
    path = tmp_path / "acl-2024.npz"
    assert write_shard(path, ["acl2024:1", "acl2024:2"], ["a", "b"], unit_rows(2, 3)) is True
    blob = path.read_bytes()
    assert write_shard(path, ["acl2024:1", "acl2024:2"], ["a", "b"], unit_rows(2, 3)) is False
    assert path.read_bytes() == blob
    keys, hashes, vectors = read_shard(path)
    assert keys == ["acl2024:1", "acl2024:2"] and hashes == ["a", "b"] and vectors.shape == (2, 8)


def test_a_broken_shard_or_parameters_name_the_file(tmp_path: Path) -> None:
    shards = tmp_path / "corpus.vectors"
    shards.mkdir()
    (shards / "params.json").write_text(json.dumps({**PARAMS.__dict__, "base": ""}))
    (shards / "cvpr-2024.npz").write_bytes(b"not a zip")
    with pytest.raises(VectorIndexError, match="cvpr-2024.npz: not a vector shard"):
        assemble(shards, None, tmp_path / "out")
    (shards / "params.json").write_text("{")
    with pytest.raises(VectorIndexError, match="params.json: unreadable shard parameters"):
        assemble(shards, None, tmp_path / "out")
