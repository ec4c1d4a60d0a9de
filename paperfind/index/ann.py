"""Approximate nearest neighbours over a vector generation: a faiss HNSW graph stored beside it.

Why: exact search is one matrix product over every stored vector, 7.9 ms per query at 80k x 384
on one core here and growing with the corpus; the HNSW graph answers in 2.4 ms with recall@10
0.987 against exact (bench/RESULTS.md, retired vector_index, where faiss-cpu, hnswlib and usearch were compared
on the real title vectors; faiss: wheels on PyPI, filtered search, recall as good as hnswlib,
which has no wheel and compiles at install). Below `ANN_MIN_VECTORS` exact search takes under
3 ms, the graph saves at most ~1 ms a query and costs a build, so small corpora have none.

The graph lives in the generation directory it was built from (`gen-N/ann.faiss`, faiss's own
binary format, no pickles) with its parameters in `gen-N/ann.json`, including a digest of the
vectors it indexes. It is derived data: rebuilt from the stored vectors at any time
(`ensure_ann`), and ignored (search falls back to exact) when missing, unreadable, or built from
other vectors. An incremental vector update writes a new generation, which has no graph until
`ensure_ann` builds one, so a stale graph is never searched.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from paperfind.index.generations import Generations

ANN_FILE, ANN_PARAMS_FILE = "ann.faiss", "ann.json"
ANN_FORMAT_VERSION = 1
# At and above this many vectors a graph is built and searched: exact search at 40k took 2.9 ms
# (graph 1.9 ms), at 80k 7.9 ms (graph 2.4 ms); below, the gain is under a millisecond.
ANN_MIN_VECTORS = 40_000
# Filtered searches use the graph only when the filter keeps at least this share of the rows;
# a narrow filter makes HNSW walk far (slow, lower recall) while exact search gets cheaper.
ANN_MIN_SELECTED = 0.25
DEFAULT_M, DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH = 32, 128, 400


@dataclass(frozen=True)
class AnnParams:
    library: str  # e.g. "faiss-cpu 1.15.1"
    kind: str  # faiss index type
    metric: str  # inner product of unit vectors = cosine
    m: int
    ef_construction: int
    ef_search: int
    count: int
    dim: int
    vectors_digest: str  # of the generation's vectors.npy (and scales.npy), see `vectors_digest`
    format_version: int = ANN_FORMAT_VERSION


def _faiss():
    try:
        import faiss
    except ImportError:
        return None
    faiss.omp_set_num_threads(1)  # one query at a time gains nothing from threads on shared cores
    return faiss


def vectors_digest(generation: Path) -> str:
    """Digest of the stored vectors (and int8 scales) of a generation: what a graph must match."""
    digest = hashlib.blake2b(digest_size=16)
    for name in ("vectors.npy", "scales.npy"):
        path = generation / name
        if path.exists():
            with open(path, "rb") as f:
                while chunk := f.read(1 << 22):
                    digest.update(chunk)
    return digest.hexdigest()


class AnnIndex:
    """A loaded HNSW graph over the rows of one vector generation."""

    def __init__(self, index, params: AnnParams) -> None:
        self._index, self.params = index, params

    @classmethod
    def open(cls, generation: Path, count: int, dim: int) -> tuple["AnnIndex | None", str]:
        """The graph of `generation` if present and built from its current vectors, with why not."""
        params_path, index_path = generation / ANN_PARAMS_FILE, generation / ANN_FILE
        if not params_path.exists() or not index_path.exists():
            return None, "no graph"
        faiss = _faiss()
        if faiss is None:
            return None, "faiss-cpu not installed"
        try:
            params = AnnParams(**json.loads(params_path.read_text(encoding="utf-8")))
        except (ValueError, TypeError) as exc:
            return None, f"{params_path}: unreadable ({exc})"
        if params.format_version != ANN_FORMAT_VERSION or (params.count, params.dim) != (count, dim):
            return None, f"graph of {params.count} x {params.dim}, vectors are {count} x {dim}"
        if params.vectors_digest != vectors_digest(generation):
            return None, "graph built from other vectors (stale)"
        try:
            index = faiss.read_index(str(index_path))
        except RuntimeError as exc:
            return None, f"{index_path}: unreadable ({exc})"
        if index.ntotal != count or index.d != dim:
            return None, f"{index_path}: holds {index.ntotal} x {index.d}"
        return cls(index, params), "ok"

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Up to `k` (rows, cosines), best first; `allowed` (bool per row) restricts the rows."""
        faiss = _faiss()
        query = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        k = min(k, self.params.count)
        params = faiss.SearchParametersHNSW()
        params.efSearch = max(self.params.ef_search, k)
        if allowed is not None:
            bits = np.packbits(np.asarray(allowed, dtype=bool), bitorder="little")
            selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bits))
            params.sel = selector
        scores, rows = self._index.search(query, k, params=params)
        found = rows[0] >= 0
        return rows[0][found].astype(np.int64), scores[0][found].astype(np.float32)

    def stored_vectors(self) -> np.ndarray:
        """The graph's own float32 copy of the vectors (a read-only view, valid while self lives).

        It equals the widened stored vectors it was built from (the digest guarantees the
        source), so the exact path searches this instead of widening a second copy.
        """
        faiss = _faiss()
        storage = faiss.downcast_index(self._index.storage)
        view = faiss.rev_swig_ptr(storage.get_xb(), self.params.count * self.params.dim)
        view = view.reshape(self.params.count, self.params.dim)
        view.flags.writeable = False
        return view

    @property
    def nbytes(self) -> int:
        """Size of the graph and its copy of the vectors (what the process holds for it)."""
        faiss = _faiss()
        return int(faiss.serialize_index(self._index).nbytes)


def build_ann(generation: Path, vectors: np.ndarray, *, m: int = DEFAULT_M,
              ef_construction: int = DEFAULT_EF_CONSTRUCTION, ef_search: int = DEFAULT_EF_SEARCH,
              threads: int = 1, guard: Generations | None = None) -> AnnParams | None:
    """Build the graph of `vectors` (the generation's rows, float32 unit length) and store it.

    Written to temporary names and renamed into place, the parameters last: a reader sees either
    no graph or a complete one. `guard`, the generations `generation` belongs to, is locked while
    the files are written: the build takes seconds to minutes without the lock (writers of new
    vectors do not wait for it), and a generation that newer writes removed meanwhile gets no
    files (None), where writing them would fail or leave them in a directory nobody reads.
    """
    faiss = _faiss()
    if faiss is None:
        raise RuntimeError("the ANN index needs the 'faiss-cpu' package (pip install faiss-cpu==1.15.1)")
    digest = vectors_digest(generation)  # before the build: the files may go while it runs
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    count, dim = vectors.shape
    index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    faiss.omp_set_num_threads(max(1, threads))
    try:
        index.add(vectors)
    finally:
        faiss.omp_set_num_threads(1)
    params = AnnParams(library=f"faiss-cpu {faiss.__version__}", kind="IndexHNSWFlat",
                       metric="inner_product", m=m, ef_construction=ef_construction,
                       ef_search=ef_search, count=count, dim=dim, vectors_digest=digest)
    with guard.locked() if guard is not None else nullcontext():
        if not generation.is_dir():
            return None
        tmp_index = generation / f".{ANN_FILE}.{os.getpid()}.tmp"
        tmp_params = generation / f".{ANN_PARAMS_FILE}.{os.getpid()}.tmp"
        faiss.write_index(index, str(tmp_index))
        tmp_params.write_text(json.dumps(asdict(params), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp_index, generation / ANN_FILE)
        os.replace(tmp_params, generation / ANN_PARAMS_FILE)
    return params
