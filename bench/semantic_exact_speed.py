"""Exact vector search latency and memory at 16.5k and 88k x 384 per storage type.

Timing does not depend on the vectors' content, so synthetic unit vectors are used here;
recall of the quantised forms against float32 is measured with real vectors in
semantic_quality.py. Single-threaded BLAS: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 nice ...
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from paperfind.index.vectors import VectorIndex, VectorParams, write_index


def main() -> None:
    rng = np.random.default_rng(1)
    for n in (16_563, 88_000):
        rows = rng.normal(size=(n, 384)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        queries = rows[rng.choice(n, 50, replace=False)] + 0.01
        for dtype in ("float32", "float16", "int8"):
            with tempfile.TemporaryDirectory() as tmp:
                write_index(Path(tmp), VectorParams("synthetic", 384, dtype, "title", n),
                            [f"k{i}" for i in range(n)], ["h"] * n, rows)
                index = VectorIndex.open(Path(tmp))
                index.search(queries[0], k=100)
                times = []
                for q in queries:
                    start = time.perf_counter()
                    index.search(q, k=100)
                    times.append((time.perf_counter() - start) * 1000)
                size = sum(f.stat().st_size for f in Path(tmp).rglob("*.npy")) / 2**20
                print(f"n={n:>6} {dtype:<8} p50 {np.percentile(times, 50):6.1f} ms  "
                      f"p95 {np.percentile(times, 95):6.1f} ms  on disk / mapped {size:6.1f} MiB", flush=True)


if __name__ == "__main__":
    sys.exit(main())
