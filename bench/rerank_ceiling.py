"""How far any re-ranker of today's top k can lift a dev set (issue 17): the target's rank today
and the MRR@10 of a perfect re-ranker of the top k, strict and lenient.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.rerank_ceiling [--corpus default]

A re-ranker only re-orders what the first stage returns, so its best case puts the relevant
paper first whenever it is in the top k and changes nothing else: that MRR@10 bounds every
re-ranking signal (a cross-encoder, a learned model, SPLADE, a translation model) at that
depth. For the queries whose target is at 2-10 it also counts the venue-years of the paper
that stands first instead (a later paper on the same topic shares the description's words).
Today = hybrid search with the shipped settings, 100 results; lenient = score.py's
--lenient (another record of the same paper counts).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from bench.corpus import ensure_index, load_set, open_searcher, vectors
from bench.metrics import reciprocal_rank

DEPTHS = (1, 5, 10, 20, 100)
BANDS = ((1, 1), (2, 5), (6, 10), (11, 20), (21, 100))


def main() -> None:
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--sets", default="tldr_dev,zh_dev")
    args = ap.parse_args()
    store, root = ensure_index(args.corpus)
    searcher = open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vectors(args.corpus))
    bands, ceilings, intruders = [], [], {}
    for name in args.sets.split(","):
        items = load_set(name)
        runs = [[r["key"] for r in searcher.search(SearchRequest(q=it["query"], limit=100, mode="hybrid")).results]
                for it in items]
        for label, lenient in (("strict", False), ("lenient", True)):
            ranks, mrr = [], []
            for it, keys in zip(items, runs):
                rel = set(it["relevant"]) | (set(it.get("dup_keys", [])) if lenient else set())
                ranks.append(next((i + 1 for i, k in enumerate(keys) if k in rel), None))
                mrr.append(reciprocal_rank(keys, rel))
            if lenient:
                intruders[name] = Counter(keys[0].split(":")[0] for keys, r in zip(runs, ranks)
                                          if r is not None and 2 <= r <= 10)
            counts = [sum(1 for r in ranks if r is not None and lo <= r <= hi) for lo, hi in BANDS]
            bands.append((name, label, len(items), counts, sum(r is None for r in ranks)))
            perfect = [sum(1 for r in ranks if r is not None and r <= k) / len(ranks) for k in DEPTHS]
            ceilings.append((name, label, statistics.fmean(mrr), perfect))
    print(f"Corpus `{args.corpus}` ({store.paper_count():,} papers), hybrid, shipped settings.\n")
    print("| set | scoring | queries | target at 1 | 2-5 | 6-10 | 11-20 | 21-100 | not in the 100 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, label, n, counts, missing in bands:
        print(f"| {name} | {label} | {n} | " + " | ".join(str(c) for c in counts) + f" | {missing} |")
    print("\n| set | scoring | MRR@10 today | " + " | ".join(f"perfect re-ranker of top {k}" for k in DEPTHS[1:]) + " |")
    print("|---|---|---:|" + "---:|" * (len(DEPTHS) - 1))
    for name, label, today, perfect in ceilings:
        print(f"| {name} | {label} | {today:.3f} | " + " | ".join(f"{p:.3f}" for p in perfect[1:]) + " |")
    print("\n| set | target at 2-10 (lenient) | venue-year of the paper first instead |\n|---|---:|---|")
    for name, c in intruders.items():
        print(f"| {name} | {sum(c.values())} | " + ", ".join(f"{k} {v}" for k, v in c.most_common()) + " |")


if __name__ == "__main__":
    main()
