"""Document vectors on disk: one .npy matrix, its parameters in JSON, keys in a text file.

Layout: `DIR/CURRENT` names the live generation `DIR/gen-000007/` (written and switched by
`paperfind.index.generations`, like the lexical index) holding `vectors.npy` (float32, float16,
or int8 with `scales.npy`), `params.json` (model, dim, storage type, text budget, count) and
`keys.tsv` (key and text hash per row, in row order).

Transparent and memory-mappable (no pickles), so `serve` and the CLI open the same files
without loading them whole, and the bundled default corpus can ship its vectors. What goes in
them is computed by `paperfind.embed.build` (incrementally, by text hash); this module only
stores and searches them. Search is exact (one matrix product) below `ANN_MIN_VECTORS`; at and
above it an HNSW graph built from the stored vectors (paperfind/index/ann.py) answers instead,
falling back to exact whenever the graph is missing or stale (bench/RESULTS.md, retired vector_index).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
import numpy as np

from paperfind.index.ann import ANN_MIN_SELECTED, ANN_MIN_VECTORS, AnnIndex, AnnParams, build_ann
from paperfind.index.generations import CURRENT_FILE, Generations

FORMAT_VERSION = 1
PARAMS_FILE, VECTORS_FILE, SCALES_FILE, KEYS_FILE = "params.json", "vectors.npy", "scales.npy", "keys.tsv"
DTYPES = ("float32", "float16", "int8")


class VectorIndexError(Exception):
    """A vector directory that cannot be used, with the file and the reason."""


@dataclass(frozen=True)
class VectorParams:
    model: str
    dim: int
    dtype: str  # storage type: float32, float16, or int8 (per-dimension scales in scales.npy)
    text_budget: str
    count: int
    format_version: int = FORMAT_VERSION


class VectorIndex:
    """Opened (memory-mapped) vectors of one model and text budget, searchable by exact cosine."""

    def __init__(self, params: VectorParams, keys: list[str], hashes: list[str], vectors: np.ndarray,
                 ann: AnnIndex | None = None, ann_status: str = "not loaded",
                 generation: Path | None = None, vectors_in_graph: bool = False) -> None:
        self.params, self.keys, self.hashes = params, keys, hashes
        self._vectors = vectors  # float32: memory-mapped when stored as float32, else widened
        self._row = {key: i for i, key in enumerate(keys)}
        self.ann, self.ann_status, self.generation = ann, ann_status, generation
        self._vectors_in_graph = vectors_in_graph  # `vectors` is a view of the graph's storage

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def open(cls, directory: Path, *, use_ann: bool = True) -> "VectorIndex":
        """Open the current generation; its ANN graph too when `use_ann` and one matches the vectors."""
        root = Path(directory)
        directory = _generation_dir(root)
        if directory is None:
            raise VectorIndexError(f"{root}: no vector index here (run the embedding step first)")
        params_path = directory / PARAMS_FILE
        try:
            raw = json.loads(params_path.read_text(encoding="utf-8"))
            params = VectorParams(**raw)
        except (ValueError, TypeError) as exc:
            raise VectorIndexError(f"{params_path}: unreadable parameters ({exc})") from None
        if params.format_version != FORMAT_VERSION or params.dtype not in DTYPES:
            raise VectorIndexError(f"{params_path}: format {params.format_version}/{params.dtype} not supported")
        keys, hashes = read_keys(directory / KEYS_FILE)
        vectors = np.load(directory / VECTORS_FILE, mmap_mode="r", allow_pickle=False)
        if vectors.shape != (params.count, params.dim) or len(keys) != params.count:
            raise VectorIndexError(f"{directory}: {VECTORS_FILE} is {vectors.shape}, {KEYS_FILE} has "
                                   f"{len(keys)} keys, {PARAMS_FILE} says {params.count} x {params.dim}")
        ann, status = AnnIndex.open(directory, params.count, params.dim) if use_ann else (None, "not used")
        in_graph = params.dtype != "float32" and ann is not None
        if in_graph:
            vectors = ann.stored_vectors()  # the graph holds them widened already: one copy, not two
        elif params.dtype != "float32":
            # numpy has no fast float16/int8 matrix product: widen once, search float32 in memory
            # in place: a second matrix of fresh memory (162 MB at the bundled corpus) cost 2 s
            # of page faults on a small VM, every start
            widened = np.array(vectors, dtype=np.float32)
            if params.dtype == "int8":
                widened *= np.load(directory / SCALES_FILE, allow_pickle=False)
            vectors = widened
        return cls(params, keys, hashes, vectors, ann, status, directory, in_graph)

    @property
    def matrix(self) -> np.ndarray:
        """Every stored vector as float32, row i for `keys[i]` (memory-mapped when stored as float32)."""
        return self._vectors

    @property
    def memory_bytes(self) -> int:
        """Bytes held for search: the float32 vectors, plus the graph (which may hold them itself)."""
        graph = self.ann.nbytes if self.ann is not None else 0
        return graph + (0 if self._vectors_in_graph else int(self._vectors.nbytes))

    def vector(self, key: str) -> np.ndarray | None:
        """The stored vector of one paper (float32), or None if it has none yet."""
        row = self._row.get(key)
        return None if row is None else np.array(self._vectors[row], dtype=np.float32)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of `query` (unit length, dim) with every stored vector."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.params.dim:
            raise ValueError(f"query has dimension {query.shape[0]}, index has {self.params.dim}")
        return np.asarray(self._vectors @ query)

    def search(self, query: np.ndarray, k: int = 100, exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """Top `k` (key, cosine) by exact search, ties by key; `exclude` drops keys (e.g. the paper itself)."""
        if len(self) == 0 or k <= 0:
            return []
        scores = self.scores(query)
        skip = {self._row[key] for key in exclude if key in self._row}
        take = min(len(self), k + len(skip))
        top = np.argpartition(-scores, take - 1)[:take] if take < len(self) else np.arange(len(self))
        hits = [(self.keys[i], float(scores[i])) for i in top if i not in skip]
        hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits[:k]


class AlignedVectors:
    """A vector index seen through another component's row numbering (the lexical index's rows).

    `keys[row]` is the key of that component's row; papers without a vector yet (an index still
    being built) are simply never semantic candidates. Built once per index version.
    """

    def __init__(self, index: VectorIndex, keys: Sequence[str]) -> None:
        self.index = index
        position = {key: row for row, key in enumerate(keys)}
        self.outer_rows = np.array([position.get(key, -1) for key in index.keys], dtype=np.int64)
        self.n_outer = len(keys)
        # the rows with a vector, found once: every unfiltered query searches them (0.17 ms a
        # query over 156k rows, on the way from the query's vector to its answer)
        self._usable = self.outer_rows >= 0
        self._usable.setflags(write=False)
        self._n_usable = int(self._usable.sum())
        self.coverage = float(self._n_usable) / len(keys) if len(keys) else 0.0

    def candidates(self, query: np.ndarray, mask: np.ndarray | None,
                   k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top `k` outer rows by cosine, within `mask` (a boolean array over outer rows) if given.

        Ties are broken by outer row, which is key order when the outer rows are sorted by key.
        """
        if len(self.index) == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        usable, n_usable = self._usable, self._n_usable
        if mask is not None:
            usable = usable & np.asarray(mask, dtype=bool)[np.where(usable, self.outer_rows, 0)]
            n_usable = int(usable.sum())
        found = self._approximate(query, usable, n_usable, k)
        if found is not None:
            return found
        scores = self.index.scores(query)
        picked = np.flatnonzero(usable)
        if len(picked) > k:
            part = np.argpartition(-scores[picked], k - 1)[:k]
            threshold = scores[picked][part].min()
            picked = picked[scores[picked] >= threshold]  # keep every tie at the cut
        order = np.lexsort((self.outer_rows[picked], -scores[picked]))[:k]
        chosen = picked[order]
        return self.outer_rows[chosen], scores[chosen].astype(np.float32)

    def _approximate(self, query: np.ndarray, usable: np.ndarray, n_usable: int,
                     k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The graph's answer, or None where exact search is the better tool (see module docs)."""
        ann = self.index.ann
        if ann is None or n_usable < ANN_MIN_SELECTED * len(usable) or k >= n_usable:
            return None
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        rows, scores = ann.search(query, k, None if n_usable == len(usable) else usable)
        if len(rows) < k:  # the walk ran out of allowed rows: let exact search answer
            return None
        order = np.lexsort((self.outer_rows[rows], -scores))
        return self.outer_rows[rows[order]], scores[order]

    @property
    def approximate(self) -> bool:
        """True when unfiltered queries are answered by the ANN graph."""
        return self.index.ann is not None


def read_keys(path: Path) -> tuple[list[str], list[str]]:
    keys, hashes = [], []
    if not path.exists():
        raise VectorIndexError(f"{path}: missing")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        key, sep, digest = line.partition("\t")
        if not sep or not key:
            raise VectorIndexError(f"{path}:{number}: expected 'key<TAB>text hash'")
        keys.append(key)
        hashes.append(digest)
    return keys, hashes


def quantise(vectors: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Storage form of float32 unit vectors; int8 uses one symmetric scale per dimension."""
    if dtype == "float32":
        return np.ascontiguousarray(vectors, dtype=np.float32), None
    if dtype == "float16":
        return vectors.astype(np.float16), None
    if dtype == "int8":
        peak = np.abs(vectors).max(axis=0) if len(vectors) else np.ones(vectors.shape[1], np.float32)
        scales = (np.where(peak > 0, peak, 1.0) / 127.0).astype(np.float32)
        return np.clip(np.rint(vectors / scales), -127, 127).astype(np.int8), scales
    raise ValueError(f"unknown vector storage type {dtype!r}; expected one of {', '.join(DTYPES)}")


def vector_dir_of(db_path: Path | str) -> Path:
    """`paperfind.db` → `paperfind.db.vectors/`: a database's vectors live beside it. Read it as
    `Settings.vector_dir`; it is here so that embed's own CLI, below the settings, has it too."""
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + ".vectors")


def generations(directory: Path) -> Generations:
    """The vector generations under `directory`: `gen-000001/`, `gen-000002/`, ..."""
    return Generations(Path(directory), "gen-", 6)


def _generation_dir(directory: Path) -> Path | None:
    """The live generation; None when none was written yet."""
    found = generations(directory)
    name = found.pointer()
    if name is None:
        return None
    current = found.current()
    if current is None:
        raise VectorIndexError(f"{directory / CURRENT_FILE}: points to a missing generation {name!r}")
    return current


def write_index(directory: Path, params: VectorParams, keys: Sequence[str], hashes: Sequence[str],
                vectors: np.ndarray) -> Path:
    """Write a new generation directory and make it current (`paperfind.index.generations`).

    A reader never sees vectors of one generation with keys of another; the previous generation
    is kept for a reader that read CURRENT just before the switch, older ones are removed.
    """
    stored, scales = quantise(vectors, params.dtype)
    with generations(directory).write() as target:
        np.save(target / VECTORS_FILE, stored, allow_pickle=False)
        if scales is not None:
            np.save(target / SCALES_FILE, scales, allow_pickle=False)
        (target / KEYS_FILE).write_text("".join(f"{k}\t{h}\n" for k, h in zip(keys, hashes)),
                                        encoding="utf-8")
        (target / PARAMS_FILE).write_text(json.dumps(asdict(params), indent=1) + "\n", encoding="utf-8")
    return target


def ensure_ann(directory: Path, *, min_vectors: int = ANN_MIN_VECTORS, threads: int = 1,
               **build_options: int) -> AnnParams | None:
    """Build the ANN graph of the current generation if it has `min_vectors` or more and none matches.

    Idempotent and safe to re-run (the graph is derived from the stored vectors); returns the
    parameters of the graph now in place, or None below the threshold or when newer writes
    removed the generation while its graph was built (their own update builds theirs).
    """
    index = VectorIndex.open(directory)
    if len(index) < min_vectors:
        return None
    if index.ann is not None and not build_options:
        return index.ann.params
    return build_ann(index.generation, index.matrix, threads=threads, guard=generations(directory),
                     **build_options)
