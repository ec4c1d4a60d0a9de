"""Chinese queries (issue 28) against a base tree in one run: the zh dev set's R@10 and MRR@10.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.zh_quality --db DB \\
        --base-tree /work/wt/base-main [--modes hybrid,lexical] [--learned on,off] [--rounds 2]
        [--sets zh_dev,tldr_dev,title_typo_dev,author_dev,topical_dev]

Each side is its tree's paperfind in its own worker process (bench/parity_worker.py, the tree
first on PYTHONPATH) over the same database `--db` (its index and vectors beside it, built by
`paperfind`; the translation is query-side, so both trees read one index). Per mode and learned
ranking on/off (`PAPERFIND_LEARNED_RANKING`): R@10 and MRR@10 of base and this tree, then the
server-side latency of the Chinese queries (in-process `search`, response cache off), p50 / p95
over `--rounds` rounds, the two sides alternating query by query round by round. `--sets` adds
the other dev sets (author_dev scored --lenient): a change to the reading of Chinese must leave
them where they were.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench import corpus
from bench.metrics import p50_p95, score_ranked
from bench.parity import Worker
from bench.results import append_results

SET = "zh_dev"
OPTIONS = {"author_dev": ("--lenient",)}


def open_worker(tree: Path, db: Path, learned: bool) -> Worker:
    """One tree's paperfind over `db`, learned ranking on or off, checked to import that tree's code."""
    worker = Worker(str(tree), tree, {"PAPERFIND_DB": str(db), "PAPERFIND_EMBED_THREADS": "1",
                                      "PAPERFIND_LEARNED_RANKING": "1" if learned else "0"})
    opened = worker.ask("open")
    if Path(opened["paperfind"]) != (tree / "paperfind").resolve():
        raise SystemExit(f"{tree}: imported paperfind from {opened['paperfind']}")
    return worker


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a paperfind database (index, vectors beside it)")
    ap.add_argument("--base-tree", type=Path, required=True, help="the base checkout")
    ap.add_argument("--modes", default="hybrid,lexical")
    ap.add_argument("--learned", default="on,off", help="learned ranking: on, off or both")
    ap.add_argument("--rounds", type=int, default=2, help="timed rounds (hybrid, learned on)")
    ap.add_argument("--sets", default=SET, help="dev sets, comma-separated (the others: nothing "
                    "Chinese in them should move), e.g. zh_dev,tldr_dev,title_typo_dev,author_dev,topical_dev")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    items = corpus.load_set(SET)
    queries = [[it["qid"], it["query"]] for it in items]
    sets = {name: [[it["qid"], it["query"]] for it in corpus.load_set(name)] for name in args.sets.split(",")}
    trees = {"base": args.base_tree.resolve(), "this": corpus.REPO}
    rows, latency = [], {}
    for learned in args.learned.split(","):
        workers = {label: open_worker(tree, args.db, learned == "on") for label, tree in trees.items()}
        try:
            for name, asked in sets.items():
                for mode in args.modes.split(","):
                    figures = {}
                    for label, worker in workers.items():
                        ranked = worker.ask("rank", queries=asked, mode=mode, limit=10)["ranked"]
                        figures[label] = score_ranked(name, ranked, *OPTIONS.get(name, ()))["metrics"]
                    for metric in ("R@10", "MRR@10"):
                        base, this = figures["base"][metric], figures["this"][metric]
                        rows.append((name, mode, learned, metric, base, this))
                    print(f"{name}, {mode}, learned {learned} done", file=sys.stderr, flush=True)
            if learned == args.learned.split(",")[0]:
                took = {label: [] for label in workers}
                for _ in range(args.rounds):
                    for _, text in queries:
                        for label, worker in workers.items():
                            took[label] += worker.ask("time", queries=[text], mode="hybrid", limit=10)["ms"]
                latency = {label: p50_p95(ms) for label, ms in took.items()}
        finally:
            for worker in workers.values():
                worker.close()
    table = "\n".join(["| set | mode | learned ranking | metric | base | this | diff |",
                       "|---|---|---|---|---:|---:|---:|"]
                      + [f"| {n} | {m} | {lr} | {k} | {b:.3f} | {t:.3f} | {t - b:+.3f} |"
                         for n, m, lr, k, b, t in rows])
    lat = "\n".join(["| side | hybrid p50 ms | hybrid p95 ms |", "|---|---:|---:|"]
                    + [f"| {label} | {p50:.1f} | {p95:.1f} |" for label, (p50, p95) in latency.items()])
    print(table)
    print(lat)
    if not args.no_write:
        load = os.getloadavg()[0]
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load {load:.1f}. `{SET}` "
                 f"({len(items)} queries; sets `{args.sets}`) on `{args.db}`; base = `{args.base_tree}`, this = this tree, "
                 f"each in its own worker over the same database. Latency: in-process `search`, "
                 f"hybrid, learned ranking {args.learned.split(',')[0]}, response cache off, "
                 f"{args.rounds} rounds alternating the sides query by query. "
                 f"Produced by bench/zh_quality.py.\n\n")
        append_results(f"Chinese queries against the base (issue 28, {args.db.name})",
                       intro + table + "\n\n" + lat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
