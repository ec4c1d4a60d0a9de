"""Chinese queries (issue 28) against a base tree in one run: the zh dev sets' R@10 and MRR@10.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.zh_quality --db DB \\
        --base-tree /work/wt/base-main [--modes hybrid,lexical] [--learned on,off] [--rounds 2]
        [--sets zh_dev,zh_dev2,zh_dev3,tldr_dev,title_typo_dev,author_dev,topical_dev]
        [--variant NAME=TREE ...]

Each side is its tree's paperfind in its own worker process (bench/parity_worker.py, the tree
first on PYTHONPATH) over the same database `--db` (its index and vectors beside it, built by
`paperfind`; the translation is query-side, so every tree reads one index). The sets: eval-dev's
zh_dev (60) and the project's own bench/zh_dev2 (70, rule in bench/zh_dev2.md) and bench/zh_dev3
(70, bench/zh_dev3.md), the noise of one 60-query set being about .03. Per mode and learned ranking on/off (`PAPERFIND_LEARNED_RANKING`):
R@10 and MRR@10 of base, this tree and each `--variant` (a tree of the same base with one lever
changed, e.g. another glossary file: its figures are a column of the same table), each side
ranking every set in turn so that one worker holds the corpus at a time. Then the server-side
latency of the Chinese queries (in-process `search`, response cache off), p50 / p95 over
`--rounds` rounds, base and this alternating query by query round by round (0: not timed).
`--sets` adds the other dev sets (author_dev scored --lenient, bench/inst_topic_dev by its P@10):
a change to the reading of Chinese must leave them where they were. zh_dev2's papers are of the
bundled corpus: on a smaller one most are missing and its figures mean nothing. zh_dev3's are of the
16.5k evaluation corpus (all of them in the bundled one too): it is read at both sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bench import corpus
from bench.inst_topic import precision
from bench.metrics import p50_p95, score_ranked
from bench.parity import Worker
from bench.results import append_results

ZH_SETS = ("zh_dev", "zh_dev2", "zh_dev3")  # the Chinese sets: their queries are the timed ones
OPTIONS = {"author_dev": ("--lenient",)}
METRICS = {"inst_topic_dev": ("P@10",)}  # the figure issue 28 states for that set


def open_worker(tree: Path, db: Path, learned: bool) -> Worker:
    """One tree's paperfind over `db`, learned ranking on or off, checked to import that tree's code."""
    worker = Worker(str(tree), tree, {"PAPERFIND_DB": str(db), "PAPERFIND_EMBED_THREADS": "1",
                                      "PAPERFIND_LEARNED_RANKING": "1" if learned else "0"})
    opened = worker.ask("open")
    if Path(opened["paperfind"]) != (tree / "paperfind").resolve():
        raise SystemExit(f"{tree}: imported paperfind from {opened['paperfind']}")
    return worker


def precision_at_10(name: str, ranked: dict[str, list[str]]) -> float:
    """The share of the top 10 that is relevant (`bench.inst_topic.precision`), over a set's
    queries: the figure of the institution + topic set, whose queries have dozens of relevant papers."""
    items = corpus.load_set(name)
    return statistics.fmean(precision(ranked.get(it["qid"], []), it["relevant"]) for it in items) if items else 0.0


def rank_sets(tree: Path, db: Path, learned: bool, sets: dict[str, list], modes: list[str]) -> dict:
    """{(set, mode): {"R@10", "MRR@10"}} of one tree, its worker opened and closed here."""
    worker = open_worker(tree, db, learned)
    try:
        figures = {}
        for name, asked in sets.items():
            for mode in modes:
                ranked = worker.ask("rank", queries=asked, mode=mode, limit=10)["ranked"]
                figures[name, mode] = score_ranked(name, ranked, *OPTIONS.get(name, ()))["metrics"]
                if "P@10" in METRICS.get(name, ()):
                    figures[name, mode]["P@10"] = precision_at_10(name, ranked)
        return figures
    finally:
        worker.close()


def time_sides(trees: dict[str, Path], db: Path, learned: bool, texts: list[str], rounds: int) -> dict:
    """{side: (p50, p95)} of in-process hybrid searches, the sides alternating query by query."""
    workers = {label: open_worker(tree, db, learned) for label, tree in trees.items()}
    try:
        took: dict[str, list[float]] = {label: [] for label in workers}
        for _ in range(rounds):
            for text in texts:
                for label, worker in workers.items():
                    took[label] += worker.ask("time", queries=[text], mode="hybrid", limit=10)["ms"]
        return {label: p50_p95(ms) for label, ms in took.items()}
    finally:
        for worker in workers.values():
            worker.close()


def parse_variant(text: str) -> tuple[str, Path]:
    """"zh28e=/path/to/tree" -> ("zh28e", Path): a side's label and its tree."""
    name, sep, tree = text.partition("=")
    if not sep or not name or not Path(tree).is_dir():
        raise argparse.ArgumentTypeError(f"--variant takes NAME=TREE with TREE a directory, not {text!r}")
    return name, Path(tree).resolve()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a paperfind database (index, vectors beside it)")
    ap.add_argument("--base-tree", type=Path, required=True, help="the base checkout")
    ap.add_argument("--variant", type=parse_variant, action="append", default=[],
                    help="NAME=TREE: another tree scored beside base and this (a column of the table)")
    ap.add_argument("--modes", default="hybrid,lexical")
    ap.add_argument("--learned", default="on,off", help="learned ranking: on, off or both")
    ap.add_argument("--rounds", type=int, default=2, help="timed rounds (hybrid, learned on)")
    ap.add_argument("--sets", default=",".join(ZH_SETS), help="dev sets, comma-separated (the others: nothing "
                    "Chinese in them should move), e.g. zh_dev,zh_dev2,zh_dev3,tldr_dev,title_typo_dev,author_dev,topical_dev")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    sets = {name: [[it["qid"], it["query"]] for it in corpus.load_set(name)] for name in args.sets.split(",")}
    texts = [text for name in ZH_SETS if name in sets for _, text in sets[name]]
    trees = {"base": args.base_tree.resolve(), "this": corpus.REPO, **dict(args.variant)}
    modes = args.modes.split(",")
    rows, latency = [], {}
    for learned in args.learned.split(","):
        figures = {}
        for label, tree in trees.items():
            figures[label] = rank_sets(tree, args.db, learned == "on", sets, modes)
            print(f"{label}, learned {learned} done", file=sys.stderr, flush=True)
        for name in sets:
            for mode in modes:
                for metric in METRICS.get(name, ("R@10", "MRR@10")):
                    rows.append((name, mode, learned, metric,
                                 [figures[label][name, mode][metric] for label in trees]))
        if learned == args.learned.split(",")[0] and args.rounds > 0 and texts:
            latency = time_sides({k: trees[k] for k in ("base", "this")}, args.db, learned == "on",
                                 texts, args.rounds)
    labels = list(trees)
    table = "\n".join(["| set | mode | learned ranking | metric | " + " | ".join(labels) + " | this - base |",
                       "|---|---|---|---|" + "---:|" * (len(labels) + 1)]
                      + [f"| {n} | {m} | {lr} | {k} | " + " | ".join(f"{v:.3f}" for v in vals)
                         + f" | {vals[1] - vals[0]:+.3f} |" for n, m, lr, k, vals in rows])
    lat = "\n".join(["| side | hybrid p50 ms | hybrid p95 ms |", "|---|---:|---:|"]
                    + [f"| {label} | {p50:.1f} | {p95:.1f} |" for label, (p50, p95) in latency.items()])
    print(table)
    print(lat)
    if not args.no_write:
        load = os.getloadavg()[0]
        variants = "".join(f", {name} = `{tree}`" for name, tree in args.variant)
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load {load:.1f}. Sets `{args.sets}` "
                 f"on `{args.db}`; base = `{args.base_tree}`, this = this tree{variants}, "
                 f"each in its own worker over the same database. Latency: in-process `search` of the "
                 f"Chinese sets' queries, hybrid, learned ranking {args.learned.split(',')[0]}, response "
                 f"cache off, {args.rounds} rounds alternating the sides query by query. "
                 f"Produced by bench/zh_quality.py.\n\n")
        append_results(f"Chinese queries against the base (issue 28, {args.db.name})",
                       intro + table + "\n\n" + lat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
