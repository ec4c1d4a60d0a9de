"""The learned re-ranker on and off, hybrid mode, every dev set, in one run.

    flock /tmp/paperfind-heavy.lock .venv/bin/python bench/learned_ranking.py \
        [--corpus default|bundled] [--model FILE] [--kinds natural] [--no-write]

Two searchers over the same index and vectors (bench/out/<corpus>.db, as bench/modes_quality.py
builds them), one with `learned_ranking=False` (today's ranking, the baseline) and one with the
model applied to `--kinds` (default: the shipped `SearchSettings.learned_kinds`). Every query is
answered by both, alternately, with the query vector already cached so the timing compares
ranking work only. Prints nDCG@10 / MRR@10 / R@10 per set (and per query kind, which is what
picks the kinds the model is applied to), the latency of the whole search p50/p95 with and
without the model, and appends the tables to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUT, append_results, load_set, percentile, score, write_run  # noqa: E402

SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")
OPTIONS = {"author_dev": ("--lenient",)}
DEPTH = 100
METRICS = ("nDCG@10", "MRR@10", "R@10")


def main() -> None:
    from paperfind.search.engine import open_searcher
    from paperfind.search.fusion import classify_query
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.store import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default", help="bench/out/NAME.db: default, bundled, ...")
    ap.add_argument("--model", type=Path, help="model file (default: the shipped one)")
    ap.add_argument("--kinds", help="query kinds the model re-orders, comma-separated")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    db = OUT / f"{args.corpus}.db"
    vectors = Path(str(db) + ".vectors")
    store = Store(db, readonly=True)
    root = Path(str(db) + ".index")
    kinds = tuple(args.kinds.split(",")) if args.kinds else SearchSettings().learned_kinds
    off = open_searcher(root, store, SearchSettings(result_cache=0, learned_ranking=False), vector_dir=vectors)
    on = open_searcher(root, store, SearchSettings(result_cache=0, learned_model=args.model, learned_kinds=kinds),
                  vector_dir=vectors)
    if on.ranker() is None:
        sys.exit("the learned model could not be loaded (see above)")
    table, by_kind, latency = [], [], []
    for name in args.sets.split(","):
        items = load_set(name)
        runs = {"off": {}, "on": {}}
        took = {"off": [], "on": []}
        for it in items:
            for system, searcher in (("off", off), ("on", on), ("off", off), ("on", on)):
                start = time.perf_counter()  # the first pair warms the query vector of each
                response = searcher.search(SearchRequest(q=it["query"], limit=DEPTH, mode="hybrid"))
                took[system].append((time.perf_counter() - start) * 1000)
                runs[system][it["qid"]] = [r["key"] for r in response.results]
        figures = {}
        for system, ranked in runs.items():
            path = OUT / f"{name}.{args.corpus}.learned-{system}.jsonl"
            write_run(path, ranked)
            figures[system] = score(name, path, *OPTIONS.get(name, ()), "--per-query", str(path) + ".tsv")
        for metric in METRICS:
            table.append((name + (" (lenient)" if name in OPTIONS else ""), metric,
                          figures["off"]["metrics"][metric], figures["on"]["metrics"][metric]))
        kinds_of = {it["qid"]: classify_query(it["query"]).name for it in items}
        per_query = {s: _per_query(Path(str(OUT / f"{name}.{args.corpus}.learned-{s}.jsonl") + ".tsv"))
                     for s in runs}
        for kind in sorted(set(kinds_of.values())):
            qids = [q for q, k in kinds_of.items() if k == kind]
            mrr = {s: statistics.fmean(per_query[s].get(q, 0.0) for q in qids) for s in runs}
            by_kind.append((name, kind, len(qids), mrr["off"], mrr["on"]))
        timed = {s: sorted(v[1::2]) for s, v in took.items()}  # the second, warm answer of each
        latency.append((name, *(f(timed[s]) for s in ("off", "on")
                                for f in (statistics.median, lambda v: percentile(v, 95)))))
        print(f"{name} done", file=sys.stderr, flush=True)
    lines = ["| set | metric | learned off | learned on | change |", "|---|---|---:|---:|---:|"]
    lines += [f"| {s} | {m} | {a:.3f} | {b:.3f} | {b - a:+.3f} |" for s, m, a, b in table]
    kind_lines = ["| set | query kind | queries | MRR@10 off | MRR@10 on |", "|---|---|---:|---:|---:|"]
    kind_lines += [f"| {s} | {k} | {n} | {a:.3f} | {b:.3f} |" for s, k, n, a, b in by_kind]
    lat_lines = ["| set | off p50 ms | off p95 ms | on p50 ms | on p95 ms |", "|---|---:|---:|---:|---:|"]
    lat_lines += [f"| {s} | {a:.1f} | {b:.1f} | {c:.1f} | {d:.1f} |" for s, a, b, c, d in latency]
    text = "\n".join(lines) + "\n\n" + "\n".join(kind_lines) + "\n\n" + "\n".join(lat_lines)
    print(text)
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC. Corpus `{args.corpus}` "
                 f"({store.paper_count():,} papers), hybrid mode, model `{on.ranker().source}` applied to "
                 f"the kinds {', '.join(kinds)}; off = today's ranking, same process, queries "
                 f"alternated, latency = the whole `Searcher.search` with the query vector cached "
                 f"(ranking work only). author_dev scored --lenient. MRR per query kind from "
                 f"score.py --per-query. Produced by bench/learned_ranking.py.\n\n")
        append_results(f"Learned ranking: on vs off (issue 17, {args.corpus})", intro + text)


def _per_query(path: Path) -> dict[str, float]:
    """qid → MRR@10 from score.py's --per-query table."""
    import csv

    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {r["qid"]: float(r["MRR@10"]) for r in rows}


if __name__ == "__main__":
    main()
