"""The Milvus backend against the local index, both in one run: quality, latency, facets, sync.

    .venv/bin/python -m bench.milvus [--corpora default,full] [--sets ...] [--latency-sets ...]
                                   [--latency-queries 40] [--keep] [--no-write] [--report-only]

For each corpus (default = the 16.5k papers of the default venues, full = the 88k of every
paperlists file; bench/corpus.py builds them) the local index is built as the other benches
build it, then synced into a Milvus Lite collection served by `milvus-lite server` in its own
process on this machine (one local Python process, 2 cores shared with this one: what it
measures is Milvus's query shape and our client path, not a cluster's speed). Then every dev
set of `--sets` runs through both searchers (lexical mode, as bench/search_quality.py), scored
with ../shared/eval-dev/score.py (author_dev --lenient), each query timed (latency p50/p95 per
set, result caches off); the sets of `--latency-sets` are only timed, on their first
`--latency-queries` items. Facets of the Milvus backend are compared with the local ones on
the same queries. Each corpus saves its figures (bench/out/milvus.CORPUS.json); the section
is written from every corpus saved, so corpora (and sets) can be run in separate jobs. Heavy: run it under `flock /tmp/paperfind-heavy.lock`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.corpus import CACHE as OUT, ensure_index, load_set
from bench.metrics import percentile, score, write_run
from bench.results import append_results
from bench.server import free_port

SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")
METRICS = ("nDCG@10", "MRR@10", "R@10", "R@100")
DEPTH = 100
CORPUS_NAMES = {"default": "16.5k", "full": "88k"}
CAPPED = "Milvus first stage <= {}"  # the label of the capped backend's rows
OPTIONS = {"author_dev": ("--lenient",)}  # as the other benches score it
COUNTED_VALUES = 2  # per facet, the most frequent values counted by count(*) (it is slow)


class LiteServer:
    """`milvus-lite server` over a fresh directory, in its own process."""

    def __init__(self, data_dir: Path, fresh: bool = True) -> None:
        if fresh:
            shutil.rmtree(data_dir, ignore_errors=True)
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        exe = Path(sys.executable).with_name("milvus-lite")
        self.log = open(data_dir.with_suffix(".log"), "wb")
        self.process = subprocess.Popen([str(exe), "server", "--data-dir", str(data_dir), "--host",
                                         "127.0.0.1", "--port", str(self.port)],
                                        stdout=self.log, stderr=self.log)
        from paperfind.milvus.client import MilvusConnection

        deadline = time.monotonic() + 300  # a kept 88k collection takes Lite about a minute to open
        conn = MilvusConnection(self.uri)
        while not conn.healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()  # not left running on its directory (a later run would open it too)
                raise SystemExit("milvus-lite server did not start")
            time.sleep(0.2)
        conn.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def sync_corpus(source, uri: str, collection: str) -> tuple[object, dict]:
    """Sync `source` into a new collection; (connection, figures)."""
    from paperfind.milvus.client import MilvusConnection
    from paperfind.milvus.sync import sync_store

    conn = MilvusConnection(uri)
    started = time.perf_counter()
    report = sync_store(source, conn, collection)
    first = time.perf_counter() - started
    if report.up_to_date:  # a kept collection (--keep): nothing was written, nothing to report
        return conn, None
    again = sync_store(source, conn, collection, force=True)  # nothing changed: hashes compared
    return conn, {"papers": report.papers, "sync_s": first, "write_s": report.timings["write"],
                  "rows_per_s": report.papers / first, "recheck_s": again.seconds,
                  "unchanged": again.unchanged}


def sizing(source) -> dict:
    """Per paper, what the collection holds: non-zeros of each BM25 sparse vector (distinct
    terms), bytes of the analysed text, of the stored card, of the scalar fields; the basis of
    docs/scale-out.md's memory figures."""
    from paperfind.text.analyze import Analyzer
    from paperfind.milvus.rows import paper_row
    from paperfind.milvus.schema import BM25_FIELDS

    an, n = Analyzer(), 0
    sums = {f"nnz_{f}": 0 for f in BM25_FIELDS} | {"analysed_bytes": 0, "stored_bytes": 0,
                                                    "scalar_bytes": 0, "authors": 0, "institutions": 0}
    for doc in source.iter_index_docs():
        row = paper_row(doc, an, None, {})
        n += 1
        for f in BM25_FIELDS:
            sums[f"nnz_{f}"] += len(set(row[f].replace(" | ", " ").replace(" , ", " ").split()))
        sums["analysed_bytes"] += sum(len(row[f].encode()) for f in (*BM25_FIELDS, "abstract", "keywords"))
        sums["stored_bytes"] += len(json.dumps(row["stored"], ensure_ascii=False).encode())
        sums["scalar_bytes"] += (len(row["key"]) + 8 * 3 + len(row["venue"]) + len(row["status"])
                                 + len(row["area"]) + len(row["track"]) + 32 + 1
                                 + sum(len(i) for i in row["institutions"]) + 8 * len(row["author_ids"]))
        sums["authors"] += len(row["author_ids"])
        sums["institutions"] += len(row["institutions"])
    return {k: v / max(n, 1) for k, v in sums.items()} | {"papers": n}


def searchers(root: Path, conn, collection: str, first_stage: int = 0):
    """(local, milvus) searchers over the same index root; vectors off (lexical runs); with
    `first_stage`, a third: Milvus with its field searches capped at that many papers."""
    from paperfind.milvus.live import MilvusLive
    from paperfind.text.translate import ZhEnTranslator
    from paperfind.search.engine import Searcher
    from paperfind.search.live import LiveIndex
    from paperfind.search.settings import SearchSettings

    settings = SearchSettings(result_cache=0, use_vectors=False)
    translator = ZhEnTranslator()
    local = Searcher(LiveIndex(root, settings=settings, translator=translator), translator, settings)
    lookups = LiveIndex(root, settings=settings, translator=translator)
    milvus = Searcher(MilvusLive(conn, collection, lookups, use_vectors=False, translator=translator),
                      translator, settings)
    if not first_stage:
        return local, milvus
    capped = Searcher(MilvusLive(conn, collection, lookups, use_vectors=False, translator=translator,
                                 first_stage=first_stage), translator, settings)
    return local, milvus, capped


def run(searcher, items: list[dict]) -> tuple[dict[str, list[str]], list[float], list]:
    from paperfind.search.response import SearchRequest

    ranked, times, facets = {}, [], []
    for it in items:
        started = time.perf_counter()
        response = searcher.search(SearchRequest(q=it["query"], limit=DEPTH, mode="lexical"))
        times.append((time.perf_counter() - started) * 1000)
        ranked[it["qid"]] = [r["key"] for r in response.results]
        facets.append((response.total, response.facets, response.counts == "exact"))
    return ranked, times, facets


def facet_agreement(local: list, milvus: list) -> dict:
    """Share of queries whose totals / every facet list are equal, and of the shown facet
    values whose counts are equal."""
    same_total = sum(a[0] == b[0] for a, b in zip(local, milvus))
    same_all = sum(a[1] == b[1] for a, b in zip(local, milvus))
    values = equal = 0
    for (_, fa, _), (_, fb, _) in zip(local, milvus):
        for facet, pairs in fa.items():
            theirs = {str(v): n for v, n in fb.get(facet, [])}
            for v, n in pairs:
                values += 1
                equal += theirs.get(str(v)) == n
    exact = sum(bool(b[2]) for b in milvus)
    exact_same = sum(bool(b[2]) and a[0] == b[0] and a[1] == b[1] for a, b in zip(local, milvus))
    return {"queries": len(local), "same_total": same_total, "same_facets": same_all,
            "values": values, "values_equal": equal, "exact": exact, "exact_same": exact_same}


def facet_methods(local, milvus, items: list[dict], budget_s: float = 15.0) -> dict:
    """The two ways to count a query's facets on Milvus, against the local counts of the same
    match set: over the candidate pool (what serves) and by one count(*) query per value shown
    locally. Equal values, and milliseconds per query of each."""
    import numpy as np

    from paperfind.search.query import parse_query

    lb, mb = local.backend(), milvus.backend()
    none = np.zeros(0, dtype=np.int64)
    from paperfind.milvus.client import MilvusUnavailable

    out = {"queries": 0, "values": 0, "pool_equal": 0, "count_equal": 0, "pool_ms": 0.0,
           "count_ms": 0.0, "pool_exact": 0, "count_values": 0, "timeouts": 0}
    for it in items:
        if out["count_ms"] > budget_s * 1000:  # count(*) per value is slow: a few queries say it
            break
        q = parse_query(it["query"])
        ranking = milvus._rank(mb, milvus._read(mb, q, {}, "lexical"), 10, "lexical", 2000)
        request = ranking.request
        if request is None:
            continue
        reference = lb.facets(request, none).papers
        started = time.perf_counter()
        mb._pools.clear()
        pooled = mb.facets(request, none)
        out["pool_ms"] += (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        shown = {f: pairs[:COUNTED_VALUES] for f, pairs in reference.items()}
        counted = {}
        for facet, pairs in shown.items():  # a facet at a time, at most ~10 s a query
            if time.perf_counter() - started > 10:
                out["timeouts"] += 1
                break
            try:
                counted.update(mb.counted_facets(request, {facet: pairs})[0])
            except MilvusUnavailable:  # a count(*) over text_match outlasted the call timeout
                out["timeouts"] += 1
                break
        out["count_ms"] += (time.perf_counter() - started) * 1000
        out["count_values"] += sum(len(p) for p in shown.values())
        out["queries"] += 1
        out["pool_exact"] += bool(pooled.exact)
        for facet, pairs in reference.items():
            pool_counts = {str(v): n for v, n in pooled.papers.get(facet, [])}
            count_counts = {str(v): n for v, n in counted.get(facet, [])}
            for i, (v, n) in enumerate(pairs):
                out["values"] += 1
                out["pool_equal"] += pool_counts.get(str(v)) == n
                if i < COUNTED_VALUES:
                    out["count_equal"] += count_counts.get(str(v)) == n
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", default="default,full")
    ap.add_argument("--sets", default=",".join(SETS), help="the dev sets scored (whole) on every corpus")
    ap.add_argument("--latency-sets", default="",
                    help="more sets timed only, on their first --latency-queries items (no quality)")
    ap.add_argument("--latency-queries", type=int, default=40)
    ap.add_argument("--facet-queries", type=int, default=0, help="per set, for the count(*) comparison")
    ap.add_argument("--capped", type=int, default=0,
                    help="also run Milvus with its field searches capped at this many papers (milvus_first_stage)")
    ap.add_argument("--keep", action="store_true", help="keep the Lite directory (and its collection) from the last run")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="write the section from the figures earlier runs saved in bench/out/milvus.*.json")
    args = ap.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    timed_only = [s for s in args.latency_sets.split(",") if s and s not in sets]
    corpora = [] if args.report_only else [c for c in args.corpora.split(",") if c]
    for corpus in corpora:
        quality_rows, latency_rows, sync_rows, facet_rows, method_rows = [], [], [], [], []
        source, root = ensure_index(corpus)
        server = LiteServer(OUT / "milvus" / f"{corpus}.db", fresh=not args.keep)
        try:
            collection = f"bench_{corpus}"
            conn, figures = sync_corpus(source, server.uri, collection)
            if figures is not None:
                figures["sizing"] = sizing(source)
                sync_rows.append((corpus, figures))
            print(f"{corpus}: synced {figures}", file=sys.stderr)
            local, milvus, *capped = searchers(root, conn, collection, args.capped)
            backends = [("local", local), ("milvus", milvus)] + [("capped", c) for c in capped]
            for _, s in backends:  # load everything once (jieba, translator, keys)
                run(s, [{"qid": "w", "query": q} for q in ("attention", "大语言模型", "Yann LeCun")])
            for name in sets + timed_only:
                items = load_set(name)
                if name in timed_only:
                    items = items[:args.latency_queries]
                runs = {}
                for label, searcher in backends:
                    ranked, times, facets = run(searcher, items)
                    figures = (percentile(times, 50), percentile(times, 95), len(times))
                    if label == "capped":  # its own row, beside the same run's local figures
                        latency_rows.append((corpus, f"{name}, {CAPPED.format(args.capped)}", "local",
                                             *latency_rows[-2][3:]))
                        latency_rows.append((corpus, f"{name}, {CAPPED.format(args.capped)}", "milvus", *figures))
                    else:
                        latency_rows.append((corpus, name, label, *figures))
                    if name in sets:
                        path = OUT / f"{name}.{corpus}.{label}.jsonl"
                        write_run(path, ranked)
                        runs[label] = (score(name, path, *OPTIONS.get(name, ()))["metrics"], facets, ranked)
                print(f"{corpus} {name}: done {latency_rows[-2:]}", file=sys.stderr)
                if name not in sets:
                    continue
                same = sum(runs["local"][2][q] == runs["milvus"][2].get(q) for q in runs["local"][2])
                for metric in METRICS:
                    quality_rows.append((corpus, name, metric, runs["local"][0][metric], runs["milvus"][0][metric],
                                         same, len(items)))
                if "capped" in runs:
                    same = sum(runs["local"][2][q] == runs["capped"][2].get(q) for q in runs["local"][2])
                    for metric in METRICS:
                        quality_rows.append((corpus, f"{name}, {CAPPED.format(args.capped)}", metric,
                                             runs["local"][0][metric], runs["capped"][0][metric], same, len(items)))
                facet_rows.append((corpus, name, facet_agreement(runs["local"][1], runs["milvus"][1])))
                if args.facet_queries:
                    method_rows.append((corpus, name, facet_methods(local, milvus, items[:args.facet_queries])))
            conn.close()
        finally:
            server.stop()
        figures_file(corpus, "+".join(sets + timed_only)).write_text(json.dumps({
            "quality": quality_rows, "latency": latency_rows, "sync": sync_rows, "facets": facet_rows,
            "methods": method_rows, "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}),
            encoding="utf-8")
    # one section from every corpus measured (each its own run, local and Milvus side by side)
    merged = {"quality": [], "latency": [], "sync": [], "facets": [], "methods": []}
    finished = []
    for corpus in CORPUS_NAMES:
        for path in sorted(OUT.glob(f"milvus.{corpus}.*.json")):
            saved = json.loads(path.read_text(encoding="utf-8"))
            finished.append(f"{CORPUS_NAMES[corpus]} ({path.stem.split('.', 2)[2]}) {saved['finished']}")
            for key in merged:
                merged[key] += [tuple(r) for r in saved[key]]
    report(merged, finished, write=not args.no_write)


def figures_file(corpus: str, sets: str) -> Path:
    """Where one run over `corpus` and these sets keeps its figures (a later run of the same
    corpus and sets replaces them; the section is written from all of them)."""
    return OUT / f"milvus.{corpus}.{sets}.json"


def report(merged: dict, finished: list[str], write: bool) -> None:
    lines = ["| corpus | set | metric | local index | Milvus | difference | 100-deep lists identical |",
             "|---|---|---|---:|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {s} | {m} | {a:.3f} | {b:.3f} | {b - a:+.3f} | {same}/{n} |"
              for c, s, m, a, b, same, n in merged["quality"]]
    quality = "\n".join(lines)
    lines = ["| corpus | set | queries | local p50 ms | local p95 ms | Milvus p50 ms | Milvus p95 ms | p50 ratio |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    by = {(c, s, b): (p50, p95, n) for c, s, b, p50, p95, n in merged["latency"]}
    for (c, s, b), (p50, p95, n) in by.items():
        if b != "local" or (c, s, "milvus") not in by:
            continue
        m50, m95, _ = by[(c, s, "milvus")]
        lines.append(f"| {CORPUS_NAMES.get(c, c)} | {s} | {n} | {p50:.1f} | {p95:.1f} | {m50:.0f} | {m95:.0f} | "
                     f"{m50 / max(p50, 1e-9):.0f} |")
    latency = "\n".join(lines)
    lines = ["| corpus | papers | first sync s | rows/s | upsert time s | re-check s (nothing changed) | re-check rows/s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {f['papers']:,} | {f['sync_s']:.1f} | {f['rows_per_s']:,.0f} | "
              f"{f['write_s']:.1f} | {f['recheck_s']:.1f} | {f['papers'] / max(f['recheck_s'], 1e-9):,.0f} |"
              for c, f in merged["sync"]]
    sync = "\n".join(lines)
    lines = ["| corpus | set | queries | same total | same facets | facet values equal | counted exactly "
             "(`counts: exact`) | of those, same total and facets |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {s} | {f['queries']} | {f['same_total']} | {f['same_facets']} | "
              f"{f['values_equal']}/{f['values']} | {f['exact']} | {f.get('exact_same', '-')} |"
              for c, s, f in merged["facets"]]
    facets = "\n".join(lines)
    text = (f"Quality (lexical mode, every query of each set, 100 deep, scored by ../shared/eval-dev/score.py; "
            f"author_dev --lenient as elsewhere):\n\n{quality}\n\n"
            "Latency per set: each query of the quality run timed once, in set order, after a warm-up of "
            "three queries (result caches off, lexical, 100 results a page; the Milvus backend keeps the "
            "rows it fetched, as a server does):\n\n"
            f"{latency}\n\nSync (store rows analysed, hashed and upserted in 1,000-row batches into a new "
            f"collection; then again with `--force`, nothing changed):\n\n{sync}\n\n"
            f"Facets against the local ones on the dev queries:\n\n{facets}\n\nRuns finished: "
            + "; ".join(finished) + "\n")
    print(text)
    if write:
        intro = ("Produced by bench/milvus.py. Milvus is Milvus Lite 3.2.2 (pymilvus 3.0.2): one local "
                 "Python process (`milvus-lite server`) on the same 2 shared cores, not a cluster; the "
                 "local index is paperfind's in-process index, measured in the same run.\n\n")
        append_results("Milvus backend after the per-query cuts: every dev set, 16.5k and 88k (issue 16)",
                       intro + text)


def _stop_on_term(signum, frame) -> None:
    raise SystemExit(f"bench/milvus.py: stopped by signal {signum}")  # runs the `finally`s: the server stops


if __name__ == "__main__":
    os.environ.setdefault("PAPERFIND_EMBED_THREADS", "1")
    signal.signal(signal.SIGTERM, _stop_on_term)  # `timeout` sends SIGTERM: no orphaned milvus-lite server
    main()
