"""Famous papers by the names people call them (issue 27), with and without the papers' names.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.nicknames [--build] [--no-write] [--baseline-db DB]

`--build` (re)writes the dev set `bench/nickname_dev.jsonl` from the bundled corpus by the rule
in `bench/nickname_dev.md`. Then, on the bundled corpus (bench/out/bundled.db, with its vectors):

- the dev set through the HTTP API: two `paperfind serve`s of the same database, one with the
  names (default) and the baseline with PAPERFIND_PAPER_NAMES=0, in the same run; R@1 and
  MRR@10, a hit being the paper or another version of its work. With `--baseline-db DB` the
  baseline is DB served with its own index instead (a copy of the database whose index another
  tree built, as the names that tree mined): every figure below is then that against this tree;
- every other dev set (`../shared/eval-dev`) in lexical and hybrid mode, in process, both ways;
- latency of the short queries (the nickname set), in process, result cache off, both ways
  interleaved: median and p95 over every query asked five times;
- the index build's cost of the name mining: `build_paper_name_files` timed alone at this size,
  and the disk of its files.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sqlite3
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx

from bench import corpus
from bench.metrics import percentile, reciprocal_rank, score_ranked
from bench.results import append_results
from bench.server import free_port, start_server, stop_server

HERE = Path(__file__).parent
DEV = HERE / "nickname_dev.jsonl"
KNOWN = HERE / "nickname_known.tsv"
LEAD = re.compile(r"^\s*([^:]{2,30}?)\s*:\s+\S")
PER_YEAR = 4  # most cited papers with a title lead, per year 2013-2018
MODES = ("lexical", "hybrid")


def build_dev(db: Path) -> list[dict]:
    """The dev set: the known names of `nickname_known.tsv`, and the rule's title leads."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    items: list[dict] = []
    taken: set[str] = set()

    def works_of(keys: list[str]) -> list[str]:
        """Every key of the works of `keys` (a hit on any version counts)."""
        out = list(keys)
        for key in keys:
            out += [k for (k,) in conn.execute(
                "SELECT b.key FROM papers a JOIN papers b ON a.work_id = b.work_id "
                "WHERE a.key = ? AND b.key != a.key", (key,))]
        return list(dict.fromkeys(out))

    with open(KNOWN, encoding="utf-8", newline="") as handle:
        for i, row in enumerate(csv.DictReader(handle, delimiter="\t")):
            keys = [k for (k,) in conn.execute("SELECT key FROM papers WHERE lower(title) = lower(?) "
                                               "ORDER BY key", (row["title"],))]
            if not keys:
                raise SystemExit(f"{KNOWN}: row {i + 2}: no paper titled {row['title']!r}")
            taken.update(keys)
            items.append({"qid": f"known-{i + 1:03d}", "query": row["name"],
                          "relevant": {k: 1 for k in works_of(keys)}, "title": row["title"],
                          "source": "known"})
    for year in range(2013, 2019):
        rows = conn.execute("SELECT key, title, citations FROM papers WHERE year = ? AND citations "
                            "IS NOT NULL AND title LIKE '%:%' ORDER BY citations DESC, key", (year,))
        chosen = 0
        for key, title, _ in rows:
            lead = LEAD.match(title)
            if chosen >= PER_YEAR or key in taken or not lead or len(lead.group(1).split()) > 3:
                continue
            taken.add(key)
            chosen += 1
            items.append({"qid": f"lead-{year}-{chosen}", "query": lead.group(1),
                          "relevant": {k: 1 for k in works_of([key])}, "title": title,
                          "source": "title lead"})
    conn.close()
    return items


def load_dev() -> list[dict]:
    with open(DEV, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def over_http(db: Path, items: list[dict], names: bool) -> dict[str, list[str]]:
    port = free_port()
    proc = start_server(db, port, env={"PAPERFIND_PAPER_NAMES": "1" if names else "0"})
    try:
        ranked = {}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            for it in items:
                body = client.get("/api/search", params={"q": it["query"], "size": 10}).json()
                ranked[it["qid"]] = [r["key"] for r in body["results"]]
        return ranked
    finally:
        stop_server(proc)


def rates(items: list[dict], ranked: dict[str, list[str]]) -> tuple[float, float]:
    rr = [reciprocal_rank(ranked[it["qid"]], it["relevant"]) for it in items]
    return sum(r == 1.0 for r in rr) / len(rr), sum(rr) / len(rr)


def mining_cost() -> tuple[float, float, int]:
    """The index's text files of the bundled corpus built without and with the papers' names:
    (seconds without, seconds with, bytes of the name files)."""
    import tempfile

    from paperfind.index.builder import build_text_files, index_docs
    from paperfind.index.paper_name_table import MENTIONS_FILE, NAMES_FILE, STANDING_FILE

    store, _ = corpus.ensure_index("bundled")
    docs = index_docs(store)
    seconds = []
    for names in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            build_text_files(docs, Path(tmp), names=names)
            seconds.append(time.perf_counter() - started)
            if names:
                size = sum((Path(tmp) / f).stat().st_size for f in (NAMES_FILE, STANDING_FILE, MENTIONS_FILE))
    return seconds[0], seconds[1], size


def main(argv: list[str] | None = None) -> int:
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="rewrite bench/nickname_dev.jsonl first")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--baseline-db", type=Path, help="the baseline is this database with its own index "
                    "(another tree's build, names on), not this one with PAPERFIND_PAPER_NAMES=0")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="modes the other dev sets are run in (hybrid alone: the API's default, half the time)")
    ap.add_argument("--no-mining-cost", action="store_true",
                    help="leave out the timing of the name mining (two builds of the text files)")
    args = ap.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m in MODES)
    db = corpus.database("bundled")
    vec = corpus.vectors("bundled")
    store, root = corpus.ensure_index("bundled")
    base_db = args.baseline_db or db
    off = "baseline" if args.baseline_db else "names off"
    on = "this tree" if args.baseline_db else "names on"
    if args.build:
        items = build_dev(db)
        DEV.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
        print(f"wrote {DEV} ({len(items)} queries)", file=sys.stderr)
    items = load_dev()
    http = {False: over_http(base_db, items, bool(args.baseline_db)), True: over_http(db, items, True)}
    (r1_off, mrr_off), (r1_on, mrr_on) = rates(items, http[False]), rates(items, http[True])
    by_source = {}
    for source in sorted({it["source"] for it in items}):
        part = [it for it in items if it["source"] == source]
        by_source[source] = (len(part), rates(part, http[False]), rates(part, http[True]))
    # a fixed split (the file's odd and even lines): a rule that lifts the kind of query lifts both
    for half, name in ((0, "half A (odd lines)"), (1, "half B (even lines)")):
        part = items[half::2]
        by_source[name] = (len(part), rates(part, http[False]), rates(part, http[True]))

    from paperfind.store import Store

    base_store = Store(base_db, readonly=True) if args.baseline_db else store
    base_root = corpus.index_dir(base_db)
    searchers = {names: corpus.open_searcher(
        base_root if not names else root, base_store if not names else store,
        replace(SearchSettings(result_cache=0), paper_names=names or bool(args.baseline_db)),
        vector_dir=corpus.vector_dir(base_db) if not names else vec) for names in (False, True)}
    sets = {}
    for name in corpus.SETS:
        dev = corpus.load_set(name)
        for mode in modes:
            for names, searcher in searchers.items():
                ranked = {it["qid"]: [r["key"] for r in searcher.search(
                    SearchRequest(q=it["query"], limit=100, mode=mode)).results] for it in dev}
                options = ("--lenient",) if name == "author_dev" else ()
                sets[(name, mode, names)] = score_ranked(name, ranked, *options)["metrics"]
    took = {False: [], True: []}
    for _ in range(5):
        for it in items:
            for names, searcher in searchers.items():
                started = time.perf_counter()
                searcher.search(SearchRequest(q=it["query"], limit=10))
                took[names].append((time.perf_counter() - started) * 1000)
    without, with_names, size = mining_cost() if not args.no_mining_cost else (0.0, 0.0, 0)

    lines = ["| nickname dev set, through the HTTP API | queries | R@1 | MRR@10 |", "|---|---:|---:|---:|",
             f"| all, {off} | {len(items)} | {r1_off:.3f} | {mrr_off:.3f} |",
             f"| all, {on} | {len(items)} | {r1_on:.3f} | {mrr_on:.3f} |"]
    for source, (n, before, after) in by_source.items():
        lines.append(f"| {source}: {off} → {on} | {n} | {before[0]:.3f} → {after[0]:.3f} | "
                     f"{before[1]:.3f} → {after[1]:.3f} |")
    lines += ["", f"| set | mode | metric | {off} | {on} | change |", "|---|---|---|---:|---:|---:|"]
    for name in corpus.SETS:
        for mode in modes:
            for metric in ("nDCG@10", "MRR@10", "R@10"):
                x, y = sets[(name, mode, False)][metric], sets[(name, mode, True)][metric]
                lines.append(f"| {name}{' (lenient)' if name == 'author_dev' else ''} | {mode} | {metric} | "
                             f"{x:.3f} | {y:.3f} | {y - x:+.3f} |")
    lines += ["", "| short queries (the nickname set x 5), in process | median ms | p95 ms |", "|---|---:|---:|"]
    for names in (False, True):
        lines.append(f"| {on if names else off} | {statistics.median(took[names]):.2f} | "
                     f"{percentile(took[names], 95):.2f} |")
    if not args.no_mining_cost:
        lines += ["", f"The index's text files at {store.paper_count():,} papers: {without:.1f} s without the "
                  f"names, {with_names:.1f} s with them (+{with_names - without:.1f} s), and "
                  f"{size / 1e6:.1f} MB of name files."]
    table = "\n".join(lines)
    print(table)
    misses = [(it["query"], it["title"], http[True][it["qid"]][:1]) for it in items
              if reciprocal_rank(http[True][it["qid"]], it["relevant"]) < 1.0]
    for miss in misses:
        print("miss:", miss, file=sys.stderr)
    if not args.no_write:
        baseline = (f"the baseline is {args.baseline_db} served by this tree with its own index (another "
                    "tree's build, names on)" if args.baseline_db
                    else "names off is the same tree with PAPERFIND_PAPER_NAMES=0")
        flags = (f"{' --baseline-db ' + str(args.baseline_db) if args.baseline_db else ''}"
                 f"{' --modes ' + args.modes if modes != MODES else ''}"
                 f"{' --no-mining-cost' if args.no_mining_cost else ''}")
        intro = (f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, `python -m bench.nicknames"
                 f"{flags}`: "
                 f"the bundled corpus ({store.paper_count():,} papers), the dev set of "
                 f"bench/nickname_dev.md; {baseline}.\n\n")
        append_results("Famous papers by their names (issue 27): nickname dev set, other sets, latency",
                       intro + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
