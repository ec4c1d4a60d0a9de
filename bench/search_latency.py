"""Search latency per query kind, warm, single process, with the bm25s baseline timed in the same run.

    nice .venv/bin/python -m bench.search_latency [--corpus default|full|both] [--n 100] [--no-write]

Kinds: title fragment (3-6 consecutive words of a corpus title), natural-language question
(tldr_dev TL;DRs), author name (author_dev), typo (title_typo_dev typo items), filter-only
(`venue:X year:Y` drawn from the corpus). Each query runs once to warm up, then is timed; the
figures are p50/p95 of the timed runs. paperfind returns a full page (10 results with
highlights, facets, author cards); bm25s only ranks (top 10 ids), so the ratio flatters bm25s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from bench import baselines
from bench.corpus import ensure_index, load_set, open_searcher
from bench.metrics import p50_p95 as percentiles
from bench.results import append_results

KINDS = ("title fragment", "question", "author name", "typo", "filter-only")


def make_queries(docs, n: int, seed: int = 7) -> dict[str, list[str]]:
    rng = random.Random(seed)
    titles = [d.title.split() for d in docs if len(d.title.split()) >= 6]
    fragments = []
    for words in rng.sample(titles, n):
        size = rng.randint(3, 6)
        start = rng.randint(0, len(words) - size)
        fragments.append(" ".join(words[start:start + size]))
    pairs = sorted({(d.venue, d.year) for d in docs})
    filters = [f"venue:{v} year:{y}" for v, y in (rng.choice(pairs) for _ in range(n))]
    typos = [it["query"] for it in load_set("title_typo_dev") if it["corruption"] == "typo"]
    return {"title fragment": fragments,
            "question": [it["query"] for it in load_set("tldr_dev")][:n],
            "author name": [it["query"] for it in load_set("author_dev")][:n],
            "typo": typos[:n], "filter-only": filters}


def time_calls(fn, queries: list[str]) -> list[float]:
    for q in queries:
        fn(q)  # warm: caches, page cache, lazy imports
    out = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - started) * 1000)
    return out


def bench_corpus(corpus: str, n: int) -> list[tuple]:
    from paperfind.search.engine import SearchRequest

    started = time.perf_counter()
    store, root = ensure_index(corpus)
    print(f"{corpus}: index ready in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    docs = list(store.iter_index_docs())
    from paperfind.search.settings import SearchSettings

    searcher = open_searcher(root, settings=SearchSettings(result_cache=0))  # time the search, not the cache
    baseline = baselines.for_docs(docs)
    rows = []
    for kind, queries in make_queries(docs, n).items():
        ours = time_calls(lambda q: searcher.search(SearchRequest(q=q, limit=10, mode="lexical")), queries)
        theirs = time_calls(lambda q: baseline.search(q, k=10), queries)
        p50, p95 = percentiles(ours)
        b50, b95 = percentiles(theirs)
        rows.append((corpus, len(docs), kind, len(queries), p50, p95, b50, b95))
        print(f"{corpus} {kind}: {p50:.1f}/{p95:.1f} ms vs bm25s {b50:.1f}/{b95:.1f}", file=sys.stderr)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("default", "full", "both"), default="both")
    ap.add_argument("--n", type=int, default=100, help="queries per kind")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    corpora = ("default", "full") if args.corpus == "both" else (args.corpus,)
    rows = [r for c in corpora for r in bench_corpus(c, args.n)]
    lines = ["| corpus | docs | kind | queries | paperfind p50 ms | p95 ms | bm25s p50 ms | p95 ms | p50 ratio |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for corpus, n_docs, kind, n, p50, p95, b50, b95 in rows:
        lines.append(f"| {corpus} | {n_docs:,} | {kind} | {n} | {p50:.1f} | {p95:.1f} | {b50:.1f} | "
                     f"{b95:.1f} | {p50 / b50:.2f} |")
    table = "\n".join(lines)
    print(table)
    if not args.no_write and args.corpus == "both":
        intro = ("Warm, single process, `nice`d on the shared 2-core machine (other jobs running), "
                 "lexical mode, 10 results per page with highlights, facets and author cards; "
                 "bm25s 0.3.16 (title + abstract + authors) timed in the same run returns top-10 ids "
                 "only. Produced by `python -m bench.search_latency`.\n\n")
        append_results("Search latency (issue 3)", intro + table)


if __name__ == "__main__":
    main()
