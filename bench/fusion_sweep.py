"""Choose the semantic weight of each query kind on the development sets.

    .venv/bin/python bench/fusion_sweep.py [--corpus default]

For each kind the hybrid ranking is run with a range of weights over the set of that kind
(keywords: topical_dev, natural: tldr_dev, chinese: zh_dev); weight 0 is lexical alone, the
baseline of the same run. The weights live in paperfind/search/fusion.py (QUERY_KINDS): one
number per kind of query, never per query. Appends the table to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, append_results, load_set, score, write_run  # noqa: E402

KIND_SETS = {"keywords": "topical_dev", "natural": "tldr_dev", "chinese": "zh_dev"}
WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)


def main() -> None:
    from paperfind.search import fusion
    from paperfind.search.engine import Searcher
    from paperfind.search.settings import SearchSettings
    from paperfind.search.response import SearchRequest
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default")
    args = ap.parse_args()
    db = OUT / f"{args.corpus}.db"
    store = Store(db, readonly=True)
    # no response cache: the weights change between runs, the requests do not
    searcher = Searcher(store, Path(str(db) + ".index"), SearchSettings(result_cache=0),
                        vector_dir=Path(str(db) + ".vectors"))
    shipped = {k: v.semantic_weight for k, v in fusion.QUERY_KINDS.items()}
    rows = []
    for kind, name in KIND_SETS.items():
        items = load_set(name)
        for weight in WEIGHTS:
            fusion.QUERY_KINDS[kind] = dataclasses.replace(fusion.QUERY_KINDS[kind],
                                                           semantic_weight=weight)
            ranked = {it["qid"]: [r["key"] for r in searcher.search(
                SearchRequest(q=it["query"], limit=100, mode="hybrid")).results] for it in items}
            path = OUT / f"sweep.{name}.{weight}.jsonl"
            write_run(path, ranked)
            m = score(name, path)["metrics"]
            rows.append((kind, name, weight, m["nDCG@10"], m["MRR@10"], m["R@10"]))
            print(rows[-1], file=sys.stderr, flush=True)
        fusion.QUERY_KINDS[kind] = dataclasses.replace(fusion.QUERY_KINDS[kind],
                                                       semantic_weight=shipped[kind])
    table = "\n".join(["| kind | set | weight | nDCG@10 | MRR@10 | R@10 |", "|---|---|---:|---:|---:|---:|"]
                      + [f"| {k} | {n} | {w} | {a:.3f} | {b:.3f} | {c:.3f} |" for k, n, w, a, b, c in rows])
    print(table)
    append_results(f"Fusion weight per query kind ({args.corpus})",
                   "Weight 0 = lexical alone, measured in the same run. Title vectors "
                   "(multilingual-e5-small, int8). Produced by bench/fusion_sweep.py.\n\n" + table)


if __name__ == "__main__":
    main()
