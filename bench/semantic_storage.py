"""Recall@10 of the quantised storage forms against float32, with real vectors and real queries.

Uses the subset vectors cached by semantic_embed_subset.py (or any vector index directory via
--index, then with its own rows as queries).
    .venv/bin/python bench/semantic_storage.py --cache /tmp/semantic-cache
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from paperfind.index.vectors import quantise


def recall_at_10(docs: np.ndarray, queries: np.ndarray, dtype: str) -> float:
    stored, scales = quantise(docs, dtype)
    approx = stored.astype(np.float32) * (scales if scales is not None else 1.0)
    exact_top = np.argsort(-(queries @ docs.T), axis=1)[:, :10]
    approx_top = np.argsort(-(queries @ approx.T), axis=1)[:, :10]
    return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact_top, approx_top)]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, required=True)
    args = parser.parse_args()
    queries = np.vstack([np.load(args.cache / "q_zh_dev.npy"), np.load(args.cache / "q_tldr_dev.npy")])
    for path in sorted(args.cache.glob("d_*.npy")):
        docs = np.load(path)
        figures = "  ".join(f"{dtype} {recall_at_10(docs, queries, dtype):.3f}" for dtype in ("float16", "int8"))
        print(f"{path.stem[2:]:<10} {len(docs)} docs, {len(queries)} queries, recall@10 vs float32: {figures}")


if __name__ == "__main__":
    main()
