"""Approximate search (usearch HNSW) against exact search, on real vectors of a vector index.

Recall@10 against exact cosine, query latency and build time, with the index's own vectors
(perturbed by nothing: each query is a stored paper's vector, itself excluded) and, with
--tile N, the matrix repeated N times with small noise to reach ~88k rows when only the default
corpus is embedded (an approximation of a larger corpus's density; say so when quoting it).
    OMP_NUM_THREADS=1 nice .venv/bin/python bench/semantic_ann.py --vectors DB.vectors [--tile 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from paperfind.index.vectors import VectorIndex


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vectors", type=Path, required=True)
    parser.add_argument("--tile", type=int, default=1)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    try:
        from usearch.index import Index
    except ImportError:
        raise SystemExit("this experiment needs usearch: pip install usearch==2.26.0") from None
    base = np.asarray(VectorIndex.open(args.vectors)._vectors, dtype=np.float32)
    rng = np.random.default_rng(3)
    parts = [base] + [base + rng.normal(scale=0.02, size=base.shape).astype(np.float32)
                      for _ in range(args.tile - 1)]
    data = np.vstack(parts)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    queries = data[rng.choice(len(data), args.queries, replace=False)]
    start = time.perf_counter()
    exact = [np.argsort(-(data @ q))[1:11] for q in queries]
    exact_ms = (time.perf_counter() - start) * 1000 / len(queries)
    print(f"{len(data)} x {data.shape[1]} real vectors (tile {args.tile}); exact {exact_ms:.1f} ms/query")
    for connectivity, expansion in ((16, 64), (16, 128), (32, 256)):
        index = Index(ndim=data.shape[1], metric="cos", dtype="f16", connectivity=connectivity,
                      expansion_add=128, expansion_search=expansion)
        start = time.perf_counter()
        index.add(np.arange(len(data)), data, threads=1)
        build_s = time.perf_counter() - start
        times, hits = [], 0.0
        for q, truth in zip(queries, exact):
            start = time.perf_counter()
            found = index.search(q, 11, threads=1).keys
            times.append((time.perf_counter() - start) * 1000)
            hits += len(set(found.tolist()[1:11]) & set(truth.tolist())) / 10
        print(f"usearch M={connectivity} ef={expansion}: build {build_s:.0f} s, query p50 "
              f"{np.percentile(times, 50):.2f} ms, recall@10 {hits / len(queries):.3f}", flush=True)


if __name__ == "__main__":
    main()
