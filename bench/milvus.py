"""The Milvus backend against the local index, both in one run: quality, latency, facets, sync.

    .venv/bin/python -m bench.milvus [--corpora default,full] [--sets ...] [--latency-queries 200]
                                   [--no-write]

For each corpus (default = the 16.5k papers of the default venues, full = the 88k of every
paperlists file; bench/corpus.py builds them) the local index is built as the other benches
build it, then synced into a Milvus Lite collection served by `milvus-lite server` in its own
process on this machine (one local Python process, 2 cores shared with this one: what it
measures is Milvus's query shape and our client path, not a cluster's speed). Then every dev
set runs through both searchers (lexical mode, as bench/search_quality.py), scored with
../shared/eval-dev/score.py; latency p50/p95 is taken over a sample of dev queries, each
searcher's result cache off; facets of the Milvus backend are compared with the local ones
on the same queries. Heavy: run it under `flock /tmp/paperfind-heavy.lock`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.corpus import CACHE as OUT, ensure_index, load_set
from bench.metrics import percentile, score, write_run
from bench.results import append_results

SETS = ("tldr_dev", "title_typo_dev", "author_dev", "topical_dev", "zh_dev")
METRICS = ("nDCG@10", "MRR@10", "R@10", "R@100")
DEPTH = 100
CORPUS_NAMES = {"default": "16.5k", "full": "83k"}
COUNTED_VALUES = 2  # per facet, the most frequent values counted by count(*) (it is slow)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiteServer:
    """`milvus-lite server` over a fresh directory, in its own process."""

    def __init__(self, data_dir: Path, fresh: bool = True) -> None:
        if fresh:
            shutil.rmtree(data_dir, ignore_errors=True)
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        exe = Path(sys.executable).with_name("milvus-lite")
        self.log = open(data_dir.with_suffix(".log"), "wb")
        self.process = subprocess.Popen([str(exe), "server", "--data-dir", str(data_dir), "--host",
                                         "127.0.0.1", "--port", str(self.port)],
                                        stdout=self.log, stderr=self.log)
        from paperfind.milvus.client import MilvusConnection

        deadline = time.monotonic() + 60
        conn = MilvusConnection(self.uri)
        while not conn.healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
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


def searchers(root: Path, conn, collection: str):
    """(local, milvus) searchers over the same index root; vectors off (lexical runs)."""
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
    return local, milvus


def run(searcher, items: list[dict]) -> tuple[dict[str, list[str]], list[float], list]:
    from paperfind.search.response import SearchRequest

    ranked, times, facets = {}, [], []
    for it in items:
        started = time.perf_counter()
        response = searcher.search(SearchRequest(q=it["query"], limit=DEPTH, mode="lexical"))
        times.append((time.perf_counter() - started) * 1000)
        ranked[it["qid"]] = [r["key"] for r in response.results]
        facets.append((response.total, response.facets, getattr(response, "facets_exact", True)))
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
    return {"queries": len(local), "same_total": same_total, "same_facets": same_all,
            "values": values, "values_equal": equal, "exact": exact}


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
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--quality-corpus", default="default", help="the corpus the dev sets are scored on")
    ap.add_argument("--latency-queries", type=int, default=200)
    ap.add_argument("--facet-queries", type=int, default=3, help="per set, for the count(*) comparison")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="write the section from the figures earlier runs saved in bench/out/milvus.*.json")
    args = ap.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    corpora = [] if args.report_only else [c for c in args.corpora.split(",") if c]
    quality_rows, latency_rows, sync_rows, facet_rows, method_rows = [], [], [], [], []
    for corpus in corpora:
        source, root = ensure_index(corpus)
        server = LiteServer(OUT / "milvus" / f"{corpus}.db")
        try:
            collection = f"bench_{corpus}"
            conn, figures = sync_corpus(source, server.uri, collection)
            figures["sizing"] = sizing(source)
            sync_rows.append((corpus, figures))
            print(f"{corpus}: synced {figures}", file=sys.stderr)
            local, milvus = searchers(root, conn, collection)
            for s in (local, milvus):  # load everything once (jieba, translator, keys)
                run(s, [{"qid": "w", "query": q} for q in ("attention", "大语言模型", "Yann LeCun")])
            sample = []
            for name in sets:
                items = load_set(name)
                sample += items
                if corpus != args.quality_corpus:
                    continue
                runs = {}
                for label, searcher in (("local", local), ("milvus", milvus)):
                    ranked, _, facets = run(searcher, items)
                    path = OUT / f"{name}.{corpus}.{label}.jsonl"
                    write_run(path, ranked)
                    runs[label] = (score(name, path)["metrics"], facets)
                for metric in METRICS:
                    quality_rows.append((name, metric, runs["local"][0][metric], runs["milvus"][0][metric]))
                facet_rows.append((corpus, name, facet_agreement(runs["local"][1], runs["milvus"][1])))
                method_rows.append((corpus, name, facet_methods(local, milvus, items[:args.facet_queries])))
                print(f"{corpus} {name}: done", file=sys.stderr)
            random.Random(7).shuffle(sample)
            sample = sample[:args.latency_queries]
            for label, searcher in (("local", local), ("milvus", milvus)):
                _, times, _ = run(searcher, sample)
                latency_rows.append((corpus, label, percentile(times, 50), percentile(times, 95), len(times)))
            conn.close()
        finally:
            server.stop()
        figures_file(corpus).write_text(json.dumps({
            "quality": [r for r in quality_rows], "latency": [r for r in latency_rows if r[0] == corpus],
            "sync": [r for r in sync_rows if r[0] == corpus], "facets": [r for r in facet_rows if r[0] == corpus],
            "methods": [r for r in method_rows if r[0] == corpus],
            "latency_queries": args.latency_queries, "quality_corpus": args.quality_corpus,
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), encoding="utf-8")
    # one section from every corpus measured (each its own run, local and Milvus side by side)
    merged = {"quality": [], "latency": [], "sync": [], "facets": [], "methods": []}
    for corpus in CORPUS_NAMES:
        if figures_file(corpus).exists():
            saved = json.loads(figures_file(corpus).read_text(encoding="utf-8"))
            for key in merged:
                merged[key] += [tuple(r) for r in saved[key]]
    report(merged["quality"], merged["latency"], merged["sync"], merged["facets"], merged["methods"],
           args, write=not args.no_write)


def figures_file(corpus: str) -> Path:
    return OUT / f"milvus.{corpus}.json"


def report(quality_rows, latency_rows, sync_rows, facet_rows, method_rows, args, write: bool) -> None:
    lines = ["| set | metric | local index | Milvus | difference |", "|---|---|---:|---:|---:|"]
    lines += [f"| {s} | {m} | {a:.3f} | {b:.3f} | {b - a:+.3f} |" for s, m, a, b in quality_rows]
    quality = "\n".join(lines)
    lines = ["| corpus | backend | queries | p50 ms | p95 ms |", "|---|---|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {b} | {n} | {p50:.1f} | {p95:.1f} |"
              for c, b, p50, p95, n in latency_rows]
    latency = "\n".join(lines)
    lines = ["| corpus | papers | first sync s | rows/s | upsert time s | re-check s (nothing changed) |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {f['papers']:,} | {f['sync_s']:.1f} | {f['rows_per_s']:,.0f} | "
              f"{f['write_s']:.1f} | {f['recheck_s']:.1f} |" for c, f in sync_rows]
    sync = "\n".join(lines)
    lines = ["| corpus | nnz text | nnz title | nnz authors | nnz venue | analysed text B | stored card B "
             "| scalar fields B | author ids | institutions |", "|---|" + "---:|" * 9]
    for c, f in sync_rows:
        z = f["sizing"]
        lines.append(f"| {CORPUS_NAMES.get(c, c)} | {z['nnz_text']:.1f} | {z['nnz_title']:.1f} | "
                     f"{z['nnz_authors']:.1f} | {z['nnz_venue_terms']:.1f} | {z['analysed_bytes']:.0f} | "
                     f"{z['stored_bytes']:.0f} | {z['scalar_bytes']:.0f} | {z['authors']:.1f} | "
                     f"{z['institutions']:.1f} |")
    sync += "\n\nPer paper, means (the basis of docs/scale-out.md):\n\n" + "\n".join(lines)
    lines = ["| corpus | set | queries | same total | same facets | facet values equal | counted exactly |",
             "|---|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {CORPUS_NAMES.get(c, c)} | {s} | {f['queries']} | {f['same_total']} | {f['same_facets']} | "
              f"{f['values_equal']}/{f['values']} | {f['exact']} |" for c, s, f in facet_rows]
    facets = "\n".join(lines)
    lines = ["| corpus | set | queries | facet values | equal, counted over the pool | equal, count(*) per value "
             "| pool: ms/query | count(*): ms/query |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for c, s_, m in method_rows:
        n = max(m["queries"], 1)
        lines.append(f"| {CORPUS_NAMES.get(c, c)} | {s_} | {m['queries']} | {m['values']} | {m['pool_equal']} "
                     f"({m['pool_exact']} pools held every match) | {m['count_equal']}/{m['count_values']}"
                     f"{' (' + str(m['timeouts']) + ' timed out)' if m['timeouts'] else ''} | "
                     f"{m['pool_ms'] / n:.0f} | {m['count_ms'] / n:.0f} |")
    facets += "\n\nThe two ways to count on Milvus, against the local counts of the same match set:\n\n" + "\n".join(lines)
    text = (f"Quality (lexical mode, {CORPUS_NAMES.get(args.quality_corpus)} papers):\n\n{quality}\n\n"
            "Latency over a shuffled sample of the dev queries (the same sample for both backends, "
            "both warm, result caches off, lexical mode):\n\n"
            f"{latency}\n\nSync (store rows analysed, hashed and upserted in 1,000-row batches):\n\n{sync}\n\n"
            f"Facets against the local ones on the dev queries:\n\n{facets}\n")
    print(text)
    if write:
        intro = ("Produced by bench/milvus.py. Milvus is Milvus Lite 3.2.2 (pymilvus 3.0.2): one local "
                 "Python process (`milvus-lite server`) on the same 2 shared cores, not a cluster; the "
                 "local index is paperfind's in-process index, measured in the same run.\n\n")
        append_results("Milvus backend (issue 16)", intro + text)


def _stop_on_term(signum, frame) -> None:
    raise SystemExit(f"bench/milvus.py: stopped by signal {signum}")  # runs the `finally`s: the server stops


if __name__ == "__main__":
    os.environ.setdefault("PAPERFIND_EMBED_THREADS", "1")
    signal.signal(signal.SIGTERM, _stop_on_term)  # `timeout` sends SIGTERM: no orphaned milvus-lite server
    main()
