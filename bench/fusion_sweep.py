"""Choose the semantic weight (and near-tie share) of each query kind on the development sets.

    .venv/bin/python bench/fusion_sweep.py [--corpus default] [--vectors DIR] [--no-write]

For each kind the hybrid ranking is run with a range of weights over the set of that kind
(keywords: topical_dev, natural: tldr_dev, chinese: zh_dev); weight 0 is lexical alone, the
baseline of the same run. For descriptions and Chinese queries the near-tie rule (the semantic
first choice settles a near-tie at the lexical top) is swept as well. The values live in
paperfind/search/fusion.py (QUERY_KINDS): numbers per kind of query, never per query. `--vectors`
measures another vector set (e.g. title + abstract words) over the same corpus. Appends the table
to bench/RESULTS.md unless --no-write.
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
NEAR_TIE_KINDS = ("natural", "chinese")
NEAR_TIES = (0.0, 0.03, 0.05, 0.1)


def main() -> None:
    from paperfind.search import fusion
    from paperfind.search.engine import open_searcher
    from paperfind.search.settings import SearchSettings
    from paperfind.search.response import SearchRequest
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--vectors", type=Path, help="vector directory (default: <db>.vectors)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    db = OUT / f"{args.corpus}.db"
    store = Store(db, readonly=True)
    # no response cache: the weights change between runs, the requests do not
    searcher = open_searcher(Path(str(db) + ".index"), store, SearchSettings(result_cache=0),
                        vector_dir=args.vectors or Path(str(db) + ".vectors"))
    shipped = dict(fusion.QUERY_KINDS)
    rows = []
    for kind, name in KIND_SETS.items():
        items = load_set(name)
        ties = NEAR_TIES if kind in NEAR_TIE_KINDS else (0.0,)
        for weight in WEIGHTS:
            for tie in ties if weight else (0.0,):
                fusion.QUERY_KINDS[kind] = dataclasses.replace(shipped[kind], semantic_weight=weight,
                                                               near_tie=tie)
                ranked = {it["qid"]: [r["key"] for r in searcher.search(
                    SearchRequest(q=it["query"], limit=100, mode="hybrid")).results] for it in items}
                path = OUT / f"sweep.{name}.{weight}.{tie}.jsonl"
                write_run(path, ranked)
                m = score(name, path)["metrics"]
                rows.append((kind, name, weight, tie, m["nDCG@10"], m["MRR@10"], m["R@10"]))
                print(rows[-1], file=sys.stderr, flush=True)
        fusion.QUERY_KINDS[kind] = shipped[kind]
    table = "\n".join(["| kind | set | weight | near-tie | nDCG@10 | MRR@10 | R@10 |",
                       "|---|---|---:|---:|---:|---:|---:|"]
                      + [f"| {k} | {n} | {w} | {t} | {a:.3f} | {b:.3f} | {c:.3f} |"
                         for k, n, w, t, a, b, c in rows])
    print(table)
    if not args.no_write:
        append_results(f"Fusion weight per query kind ({args.corpus})",
                       "Weight 0 = lexical alone, measured in the same run. Vectors: "
                       f"`{(args.vectors or Path(str(db) + '.vectors')).name}` "
                       "(multilingual-e5-small, int8). Produced by bench/fusion_sweep.py.\n\n" + table)


if __name__ == "__main__":
    main()
