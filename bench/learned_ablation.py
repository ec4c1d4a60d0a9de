"""Which feature groups carry the learned ranker's gain: grouped cross-validation with each
group left out, on the training queries of `python -m paperfind.rank.train`.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.learned_ablation \
        [--db bench/out/bundled.db] [--max-queries 2400] [--folds 5] [--no-write]

Collects the same candidates and features as the training command (same seed and sample),
then runs its cross-validation once with every feature and once per group without it. The
baseline (today's order, MRR@10 of the held-out queries) is computed from the same folds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import CACHE as OUT, vector_dir
from bench.results import append_results

GROUPS = {
    "today's score and rank": ("pipeline_rel", "pipeline_rank"),
    "BM25F and per-field BM25": ("bm25f_rel", "bm25f_rank", "bm25_title_rel", "bm25_abstract_rel",
                                 "matched_share"),
    "second-stage features": ("title_match", "title_cover", "title_in_query", "proximity",
                              "coverage", "keyword", "author", "phrase"),
    "semantic (e5 cosine, rank)": ("cosine", "cosine_gap", "semantic_rank"),
    "query kind and length": ("query_kind", "query_words", "query_chars"),
}


def main() -> None:
    from paperfind.rank import train
    from paperfind.search.learned import FEATURES
    from paperfind.settings import BUNDLED_CORPUS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=OUT / "bundled.db")
    ap.add_argument("--max-queries", type=int, default=2400)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    started = time.perf_counter()
    searcher = train.open_searcher(args.db, vector_dir(args.db))
    queries, _ = train.training_queries(BUNDLED_CORPUS, searcher.backend())
    if args.max_queries and len(queries) > args.max_queries:
        queries = sorted(random.Random(args.seed).sample(queries, args.max_queries), key=lambda q: q.key)
    ts, counts = train.collect(searcher, queries, 100)
    params = dict(train.PARAMS, seed=args.seed)
    rows = []
    for label, dropped in [("all features", ())] + list(GROUPS.items()):
        columns = [i for i, name in enumerate(FEATURES) if name not in dropped]
        cv = train.cross_validate(ts, args.folds, params, train.ROUNDS, args.seed, columns, quiet=True)
        today = float(np.mean([f["mrr10_today"] for f in cv]))
        learned = float(np.mean([f["mrr10_learned"] for f in cv]))
        rows.append((label if not dropped else f"without {label}", today, learned))
        print(f"{rows[-1][0]}: today {today:.4f} learned {learned:.4f}", file=sys.stderr, flush=True)
    lines = ["| features | CV MRR@10 today | CV MRR@10 learned | gain |", "|---|---:|---:|---:|"]
    lines += [f"| {r[0]} | {r[1]:.4f} | {r[2]:.4f} | {r[2] - r[1]:+.4f} |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC. `{args.db.name}` "
                 f"({searcher.backend().n_docs:,} papers), {counts['queries']} TL;DR queries of the "
                 f"training venue-years (seeded sample, as `paperfind.rank.train`), {args.folds}-fold "
                 f"cross-validation grouped by work, {train.ROUNDS} rounds; each row leaves one "
                 f"feature group out. {time.perf_counter() - started:.0f} s in all. Produced by "
                 f"bench/learned_ablation.py.\n\n")
        append_results("Learned ranking: feature ablation (issue 17)", intro + table)


if __name__ == "__main__":
    main()
