"""The bundled corpus's vectors in shards: one file per venue-year, over a base generation.

The corpus ships in venue-year shards (`paperfind/data/corpus/`), and its vectors follow the
same cut so that re-embedding one venue-year's papers rewrites one file: `corpus.vectors/`
holds `params.json` (model, dim, text budget) and `<venue>-<year>.npz` per shard (`keys`,
`hashes` of the embedded texts, int8 `vectors` and their per-dimension `scales`). Venue-years
that have no shard are still covered by the one-file generation the corpus shipped before
(`default-corpus.vectors/`), whose rows are taken for every key no shard has; a regenerated
venue-year moves into its shard, so that base only shrinks.

A first start assembles base and shards into an ordinary vector generation beside the
database (`assemble`); the background embedder then finds every text hash current.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from paperfind.index.vectors import (VectorIndex, VectorIndexError, VectorParams, quantise,
                                     write_index)

SHARD_SUFFIX = ".npz"
PARAMS_FILE = "params.json"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip entries without a clock: the same vectors, the same bytes


_KEY_VENUE_YEAR = re.compile(r"^(?P<venue>.+?)(?P<year>\d{4}):")
_SHARD_VENUE_YEAR = re.compile(r"^(?P<venue>.+)-(?P<year>\d{4})\.npz$")


def shard_name(venue: str, year: int) -> str:
    return f"{venue}-{year}{SHARD_SUFFIX}"


def key_venue_year(key: str) -> tuple[str, int] | None:
    """(venue, year) of a paper key, `iclr2025:PwxYoMvmvy` → ("iclr", 2025)."""
    match = _KEY_VENUE_YEAR.match(key)
    return (match["venue"], int(match["year"])) if match else None


def write_shard(path: Path, keys: list[str], hashes: list[str], vectors: np.ndarray) -> bool:
    """Write one shard (int8, scales of its own); False when the file already had these bytes."""
    stored, scales = quantise(np.asarray(vectors, dtype=np.float32), "int8")
    arrays = {"keys": np.array(keys, dtype=str), "hashes": np.array(hashes, dtype=str),
              "vectors": stored, "scales": scales}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            entry = io.BytesIO()
            np.save(entry, array, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, entry.getvalue())
    blob = buffer.getvalue()
    if path.is_file() and path.read_bytes() == blob:
        return False
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)
    return True


def read_shard(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """(keys, hashes, float32 vectors) of one shard; a `VectorIndexError` names a bad file."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, hashes = data["keys"].tolist(), data["hashes"].tolist()
            vectors = data["vectors"].astype(np.float32) * data["scales"].astype(np.float32)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise VectorIndexError(f"{path}: not a vector shard ({exc})") from None
    if vectors.ndim != 2 or len(keys) != len(vectors) or len(hashes) != len(keys):
        raise VectorIndexError(f"{path}: {len(keys)} keys, {len(hashes)} hashes, vectors {vectors.shape}")
    return keys, hashes, vectors


def _raw_params(shard_dir: Path) -> dict:
    path = shard_dir / PARAMS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VectorIndexError(f"{path}: unreadable shard parameters ({exc})") from None
    if not isinstance(raw, dict):
        raise VectorIndexError(f"{path}: expected a JSON object")
    return raw


def read_params(shard_dir: Path) -> VectorParams:
    raw = {k: v for k, v in _raw_params(shard_dir).items() if k != "base"}
    try:
        return VectorParams(**raw)
    except TypeError as exc:
        raise VectorIndexError(f"{shard_dir / PARAMS_FILE}: unreadable shard parameters ({exc})") from None


def base_of(shard_dir: Path) -> Path | None:
    """The one-file generation under the shards, as `params.json` names it (relative to them)."""
    base = _raw_params(shard_dir).get("base")
    return (shard_dir / base).resolve() if isinstance(base, str) and base else None


def assemble(shard_dir: Path, base: Path | None, out_dir: Path) -> int:
    """Write the vectors of base and shards (a shard's rows over the base's) as a generation
    of `out_dir`; returns how many. The base is skipped when its model or dim differ."""
    params = read_params(shard_dir)
    rows: dict[str, tuple[str, np.ndarray]] = {}
    shards = sorted(shard_dir.glob(f"*{SHARD_SUFFIX}"))
    # a shard holds its whole venue-year: the base's rows of it are of papers since renamed or gone
    sharded = {(m["venue"], int(m["year"])) for m in map(_SHARD_VENUE_YEAR.match, (p.name for p in shards)) if m}
    if base is not None and (base / "CURRENT").exists():
        index = VectorIndex.open(base, use_ann=False)
        if (index.params.model, index.params.dim) == (params.model, params.dim):
            matrix = index.matrix
            rows = {key: (digest, matrix[i]) for i, (key, digest) in enumerate(zip(index.keys, index.hashes))
                    if key_venue_year(key) not in sharded}
    for path in shards:
        keys, hashes, vectors = read_shard(path)
        if vectors.shape[1] != params.dim:
            raise VectorIndexError(f"{path}: vectors of dim {vectors.shape[1]}, params say {params.dim}")
        rows.update((key, (digest, vectors[i])) for i, (key, digest) in enumerate(zip(keys, hashes)))
    keys = sorted(rows)
    matrix = np.stack([rows[k][1] for k in keys]) if keys else np.zeros((0, params.dim), np.float32)
    write_index(out_dir, VectorParams(params.model, params.dim, params.dtype, params.text_budget,
                                      len(keys)), keys, [rows[k][0] for k in keys], matrix)
    return len(keys)


def write_shards(vector_dir: Path, venue_years: dict[str, tuple[str, int]], shard_dir: Path,
                 base: Path | None) -> list[str]:
    """Cut the current generation of `vector_dir` (a database's vectors) into shards.

    `venue_years` maps each paper key to its venue and year. A venue-year gets a shard when it
    has one already, or when the base lacks one of its papers' vectors or holds another text
    for one; the others stay with the base. Returns the shard files written or removed.
    """
    index = VectorIndex.open(vector_dir, use_ann=False)
    shard_dir.mkdir(parents=True, exist_ok=True)
    params = {"model": index.params.model, "dim": index.params.dim, "dtype": "int8",
              "text_budget": index.params.text_budget, "count": len(index),
              "format_version": index.params.format_version}
    if base is not None:
        params["base"] = os.path.relpath(base, shard_dir)
    params_path = shard_dir / PARAMS_FILE
    text = json.dumps(params, indent=1) + "\n"
    if not params_path.is_file() or params_path.read_text(encoding="utf-8") != text:
        params_path.write_text(text, encoding="utf-8")
    base_hash: dict[str, str] = {}
    base_count: dict[tuple[str, int], int] = defaultdict(int)
    if base is not None and (base / "CURRENT").exists():
        old = VectorIndex.open(base, use_ann=False)
        base_hash = dict(zip(old.keys, old.hashes))
        for key in old.keys:
            base_count[key_venue_year(key)] += 1
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for row, key in enumerate(index.keys):
        if key in venue_years:
            groups[venue_years[key]].append(row)
    matrix = index.matrix
    written, wanted = [], set()
    for (venue, year), group in sorted(groups.items()):
        path = shard_dir / shard_name(venue, year)
        # the base has this venue-year's papers, no others, each with the same text
        covered = len(group) == base_count[(venue, year)] and all(
            base_hash.get(index.keys[r]) == index.hashes[r] for r in group)
        if covered and not path.exists():
            continue
        wanted.add(path.name)
        if write_shard(path, [index.keys[r] for r in group], [index.hashes[r] for r in group],
                       matrix[group]):
            written.append(path.name)
    for stale in shard_dir.glob(f"*{SHARD_SUFFIX}"):
        if stale.name not in wanted:
            stale.unlink()
            written.append(stale.name)
    return written


def shard_files(shard_dir: Path) -> Iterable[Path]:
    return sorted(shard_dir.glob(f"*{SHARD_SUFFIX}"))


def main(argv: list[str] | None = None) -> int:
    """`python -m paperfind.index.vector_shards --db DB --out DIR [--base DIR]`: cut the vectors
    of a database (built from the corpus and embedded) into the bundled corpus's shards."""
    import argparse
    import sqlite3

    from paperfind.index.vectors import vector_dir_of

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True, help="the shard folder (corpus.vectors/)")
    parser.add_argument("--base", type=Path, default=None, help="the one-file generation under the shards")
    args = parser.parse_args(argv)
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    venue_years = {key: (venue, year) for key, venue, year in conn.execute("SELECT key, venue, year FROM papers")}
    conn.close()
    written = write_shards(vector_dir_of(args.db), venue_years, args.out, args.base)
    print(f"vector shards: {len(written)} written or removed in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
