"""Facet and trend counts of real match sets: a base tree's counting against this tree's, in turns.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.facet_counts --db DB \
        --base-tree /work/wt/base-main [--n 60] [--no-write]

Why: at 1M papers a common-word query matches 60k-580k papers, and counting their facets and the
trend's works was 4-12 ms of a 17-37 ms lexical search (issue 33). A whole-search A/B on the shared
machine cannot resolve a few ms of a tail; this times the counting alone on the rows the searches
count. The first `--n` queries of each dev set are searched on DB (read only: the database and
its index are opened, never built or written; lexical mode, page of 20, as the portal asks), the
rows each passes to `DocTable.facets` are kept, and each row set is counted by the base tree's
`DocTable.facets` + `WorkCounter.counted` and by this tree's, in turns, best of 3, thread CPU time
(what the counting itself costs, whatever else the machine runs). The two must give the same
counts (checked on every row set). The base's two modules (paperfind/index/doctable.py,
paperfind/search/trend.py) are loaded from its files; their imports come from this tree.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import index_dir, vector_dir
from bench.lexical_engine import queries
from bench.results import append_results, load_average

HEADING = "Facet and trend counts of real match sets, base against this tree (issue 33)"


def module_of(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def captured_rows(db: Path, sets: dict[str, list[str]]):
    """(this tree's backend, per set the row sets its searches counted)."""
    import paperfind.index.doctable as doctable
    from paperfind.index.manager import index_is_current
    from paperfind.search.engine import open_searcher
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.store import Store

    if not index_is_current(index_dir(db), Store(db, readonly=True).data_version()):
        raise SystemExit(f"{db}: no current index (this bench only reads; build it first)")
    searcher = open_searcher(index_dir(db), None, SearchSettings(result_cache=0), vector_dir=vector_dir(db))
    searcher.load_parts()
    searcher.warm_for_serving()
    kept: list[np.ndarray] = []
    counted = doctable.DocTable.facets

    def keep(self, rows, top=20):
        kept.append(np.array(rows))
        return counted(self, rows, top)

    doctable.DocTable.facets = keep
    out = {}
    try:
        for name, qs in sets.items():
            kept.clear()
            for q in qs:
                searcher.search(SearchRequest(q=q, limit=20, mode="lexical"))
            out[name] = list(kept)
    finally:
        doctable.DocTable.facets = counted
    return searcher.live.backend(vectors=False), out


def best_cpu_ms(fn, rows, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.thread_time()
        fn(rows)
        best = min(best, time.thread_time() - started)
    return best * 1000


def measure(db: Path, base_tree: Path, n: int) -> str:
    from paperfind.index.doctable import load_params

    sets = {name: qs[:n] for name, qs in queries(0).items()}
    backend, per_set = captured_rows(db, sets)
    docs, counter = backend.index.docs, backend._work_counter()[0]
    base_docs = module_of(base_tree / "paperfind/index/doctable.py", "base_doctable")
    base_trend = module_of(base_tree / "paperfind/search/trend.py", "base_trend")
    old_docs = base_docs.DocTable(backend.index.path, load_params(backend.index.path))
    old_counter = base_trend.WorkCounter(docs.work, docs.year, docs.venue, docs.labels["venue"])

    def base(rows):
        return old_docs.facets(rows), old_counter.counted(rows)

    def this(rows):
        return docs.facets(rows), counter.counted(rows)

    lines = ["| kind | queries | match rows p50 / p95 | base p50 / p95 ms | this p50 / p95 ms | "
             "per-query ratio p50 | per-query saving p50 / p95 ms |", "|---|---:|---|---|---|---:|---|"]
    for name, row_sets in per_set.items():
        old_ms, new_ms = [], []
        for rows in row_sets:
            (a, (wa, ta)), (b, (wb, tb)) = base(rows), this(rows)
            if a != b or ta != tb or vars(wa) != vars(wb):
                raise SystemExit(f"{name}: the counts differ on a row set of {len(rows)} rows")
            old_ms.append(best_cpu_ms(base, rows))
            new_ms.append(best_cpu_ms(this, rows))
        old, new = np.array(old_ms), np.array(new_ms)
        sizes = np.array([len(r) for r in row_sets])
        lines.append(
            f"| {name} | {len(row_sets)} | {np.median(sizes):,.0f} / {np.percentile(sizes, 95):,.0f} | "
            f"{np.median(old):.2f} / {np.percentile(old, 95):.2f} | {np.median(new):.2f} / "
            f"{np.percentile(new, 95):.2f} | {np.median(new / old):.2f} | "
            f"{np.median(old - new):.2f} / {np.percentile(old - new, 95):.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--base-tree", type=Path, required=True)
    parser.add_argument("--n", type=int, default=60, help="queries a dev set (default 60)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    table = measure(args.db, args.base_tree, args.n)
    text = (f"`python -m bench.facet_counts --db {args.db.name} --base-tree {args.base_tree}`, {started}, "
            f"thread CPU ms of the counting alone (facets and the trend's works), best of 3 a row set; "
            f"same counts on every row set.\n\n{table}\n\nLoad average at the end: {load_average()}.\n")
    print(text)
    if not args.no_write:
        append_results(HEADING, text)


if __name__ == "__main__":
    main()
