"""Issue 30's expert finder, variants in process on the dev set, the baseline (7d9e322's settings)
in the same run: `python -m bench.experts_tune --db DB` (reuses bench/experts.py's ablation path).
The profile model and the volume normalisation measured in bench/RESULTS.md were knobs of b8d5010,
removed after they lost."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from bench.experts import DEV, scores_of
from bench.metrics import p50_p95

VARIANTS = (
    ("baseline (7d9e322: depth 2,000, 64 query terms)", {"depth": 2000, "max_terms": 64}),
    ("depth 5,000 per route", {"depth": 5000, "max_terms": 64}),
    ("128 query terms", {"max_terms": 128, "depth": 2000}),
    ("depth 20,000 per route", {"depth": 20000, "max_terms": 64}),
    ("256 query terms", {"max_terms": 256, "depth": 2000}),
    ("128 query terms, depth 5,000 (kept: the defaults)", {"max_terms": 128, "depth": 5000}),
    ("best 10 works count, decay 0.8", {"top_papers": 10, "decay": 0.8, "depth": 2000, "max_terms": 64}),
    ("128 query terms, best 10 works, decay 0.8", {"max_terms": 128, "top_papers": 10, "decay": 0.8,
                                                   "depth": 2000}),
    ("128 query terms, 128 words embedded", {"max_terms": 128, "query_vector_words": 128, "depth": 2000}),
    ("baseline again (warm)", {"depth": 2000, "max_terms": 64}),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--only", default="", help="comma-separated variant indices")
    args = parser.parse_args(argv)
    import numpy as np

    from paperfind.core import Paperfind
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.settings import Settings

    items = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()]
    pf = Paperfind(Settings(db_path=args.db))
    backend = pf.searcher().backend()
    names = backend.index.names

    def slug(author_id: int) -> str:
        return names.card(int(np.searchsorted(names.ids, author_id)))["slug"]

    base = pf.settings.search.experts
    find_experts(backend, ExpertQuery(text="warm up the query model"), base)
    chosen = [VARIANTS[int(i)] for i in args.only.split(",")] if args.only else VARIANTS
    for label, change in chosen:
        settings = replace(base, **change)
        runs, took = [], []
        for i in items:
            started = time.perf_counter()
            found = find_experts(backend, ExpertQuery(text=i["query"], before=i["before"]), settings)
            took.append(1000 * (time.perf_counter() - started))
            runs.append([slug(e.author_id) for e in found.experts[:10]])
        f = scores_of(runs, items)
        p50, p95 = p50_p95(took)
        print(f"| {label} | {f['R@10']:.3f} | {f['MRR@10']:.3f} | {f['nDCG@10']:.3f} | {p50:.0f} | {p95:.0f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
