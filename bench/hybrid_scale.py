"""Hybrid latency and memory on a large corpus, lexical measured in the same run, query by query.

The bundled corpus (80k) ships vectors; the 88k paperlists corpus has none until embedded:

    python -m paperfind.embed.build --db bench/out/full.db --out /tmp/full.vectors --threads 2
    flock /tmp/paperfind-timing.lock nice .venv/bin/python -m bench.hybrid_scale \\
        --index bench/out/full.db.index --vectors /tmp/full.vectors

The query-vector cache is emptied before every hybrid query, so the embedding is paid each
time. Prints a markdown table (recorded by hand in bench/RESULTS.md with its reading).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.corpus import EVAL, open_searcher
from bench.metrics import p50_p95 as pct
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings

SETS = ("tldr_dev", "zh_dev", "title_typo_dev", "topical_dev")


def rss_mb() -> float:
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--vectors", type=Path, required=True)
    ap.add_argument("--per-set", type=int, default=100)
    args = ap.parse_args()
    base = rss_mb()
    searcher = open_searcher(args.index, vector_dir=args.vectors, settings=SearchSettings(result_cache=0))
    searcher.search(SearchRequest(q="warm", limit=10, mode="lexical"))
    lexical_rss = rss_mb()
    for warm in ("warm up the model", "图神经网络"):
        searcher.search(SearchRequest(q=warm, limit=10, mode="hybrid"))
    semantic = searcher.live._semantic
    print(f"vectors: {semantic._aligned.index.params}; graph: {semantic._aligned.approximate}; "
          f"coverage {semantic.coverage:.0%}")
    print(f"RSS: lexical warm +{lexical_rss - base:.0f} MB, hybrid warm +{rss_mb() - base:.0f} MB")
    encoder = semantic._query_encoder()
    print("| query set | queries | lexical p50 | p95 | hybrid p50 | p95 | embedding p50 | p95 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in SETS:
        texts = [json.loads(line)["query"] for line in open(EVAL / f"{name}.jsonl", encoding="utf-8")]
        lexical, hybrid, embedding = [], [], []
        for text in texts[:args.per_set]:
            start = time.perf_counter()
            searcher.search(SearchRequest(q=text, limit=10, mode="lexical"))
            lexical.append((time.perf_counter() - start) * 1000)
            encoder._cache.clear()
            start = time.perf_counter()
            searcher.search(SearchRequest(q=text, limit=10, mode="hybrid"))
            hybrid.append((time.perf_counter() - start) * 1000)
            encoder._cache.clear()
            start = time.perf_counter()
            encoder.vector(text)
            embedding.append((time.perf_counter() - start) * 1000)
        cells = [f"{v:.1f}" for pair in (pct(lexical), pct(hybrid), pct(embedding)) for v in pair]
        print(f"| {name} | {len(lexical)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
