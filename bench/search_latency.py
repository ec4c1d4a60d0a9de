"""Search latency per query kind, warm, single process, with the bm25s baseline timed in the same run.

    nice .venv/bin/python -m bench.search_latency [--corpus default|full|both] [--n 100] [--no-write]

With `--http DB --base-tree PATH` it measures instead what a client of the portal waits for
(issue 33): two freshly started `paperfind serve`, each of its own copy of DB, one with the code of
PATH (a checkout of the base ref: `git worktree add /tmp/base REF`) and one with this tree's,
taking turns query by query (so a change in the machine's load falls on both), each asked
/api/search for the first page of 20 of every query once (so no answer comes from the response
cache), in lexical and in the default mode, per kind: title with typos
(title_typo_dev), author name (author_dev), TL;DR question (tldr_dev), Chinese (zh_dev) and short
name (the acronym a title of the database opens with, `BERT: ...`). Per kind and side: the server's
own time (`took_ms`) p50 / p95, the HTTP time a client measures p50 / p95 (one kept-alive
connection), and the HTTP layer, the p50 of HTTP minus server per request; and per kind the
machine's speed while it was timed (bench.machine's probe, the median of one before every 20
queries), with the rows that fell in a slow spell named under the table.

    flock /tmp/paperfind-timing.lock nice .venv/bin/python -m bench.search_latency \
        --http /tmp/paperfind.db --base-tree /tmp/base [--n 60] [--no-write]

Kinds: title fragment (3-6 consecutive words of a corpus title), natural-language question
(tldr_dev TL;DRs), author name (author_dev), typo (title_typo_dev typo items), filter-only
(`venue:X year:Y` drawn from the corpus). Each query runs once to warm up, then is timed; the
figures are p50/p95 of the timed runs. paperfind returns a full page (10 results with
highlights, facets, author cards); bm25s only ranks (top 10 ids), so the ratio flatters bm25s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from statistics import median

from bench import baselines, machine
from bench.corpus import ensure_index, load_set, open_searcher
from bench.metrics import p50_p95 as percentiles
from bench.results import append_results, load_average

KINDS = ("title fragment", "question", "author name", "typo", "filter-only")
HTTP_KINDS = ("title with typos", "author name", "TL;DR question", "Chinese", "short name")
HTTP_MODES = ("lexical", "hybrid")
PROBE_EVERY = 20  # queries of a kind between two timings of the machine's speed
PROBE_WAIT = 0.2  # s: a server frees an answer's leftovers after sending it, on the other core


def make_queries(docs, n: int, seed: int = 7) -> dict[str, list[str]]:
    rng = random.Random(seed)
    titles = [d.title.split() for d in docs if len(d.title.split()) >= 6]
    fragments = []
    for words in rng.sample(titles, n):
        size = rng.randint(3, 6)
        start = rng.randint(0, len(words) - size)
        fragments.append(" ".join(words[start:start + size]))
    pairs = sorted({(d.venue, d.year) for d in docs})
    filters = [f"venue:{v} year:{y}" for v, y in (rng.choice(pairs) for _ in range(n))]
    typos = [it["query"] for it in load_set("title_typo_dev") if it["corruption"] == "typo"]
    return {"title fragment": fragments,
            "question": [it["query"] for it in load_set("tldr_dev")][:n],
            "author name": [it["query"] for it in load_set("author_dev")][:n],
            "typo": typos[:n], "filter-only": filters}


def time_calls(fn, queries: list[str]) -> list[float]:
    for q in queries:
        fn(q)  # warm: caches, page cache, lazy imports
    out = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - started) * 1000)
    return out


def bench_corpus(corpus: str, n: int) -> list[tuple]:
    from paperfind.search.engine import SearchRequest

    started = time.perf_counter()
    store, root = ensure_index(corpus)
    print(f"{corpus}: index ready in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    docs = list(store.iter_index_docs())
    from paperfind.search.settings import SearchSettings

    searcher = open_searcher(root, settings=SearchSettings(result_cache=0))  # time the search, not the cache
    baseline = baselines.for_docs(docs)
    rows = []
    for kind, queries in make_queries(docs, n).items():
        ours = time_calls(lambda q: searcher.search(SearchRequest(q=q, limit=10, mode="lexical")), queries)
        theirs = time_calls(lambda q: baseline.search(q, k=10), queries)
        p50, p95 = percentiles(ours)
        b50, b95 = percentiles(theirs)
        rows.append((corpus, len(docs), kind, len(queries), p50, p95, b50, b95))
        print(f"{corpus} {kind}: {p50:.1f}/{p95:.1f} ms vs bm25s {b50:.1f}/{b95:.1f}", file=sys.stderr)
    return rows


def short_names(db: Path, n: int, seed: int = 7) -> list[str]:
    """`n` acronyms that titles of `db` open with (`BERT: Pre-training of ...`)."""
    import re
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    heads = sorted({m.group(1) for (title,) in conn.execute("SELECT title FROM papers")
                    if (m := re.match(r"([A-Za-z0-9-]{3,12}):", title))
                    and sum(c.isupper() for c in m.group(1)) >= 2})
    conn.close()
    return random.Random(seed).sample(heads, min(n, len(heads)))


def http_queries(db: Path, n: int) -> dict[str, list[str]]:
    typos = [it["query"] for it in load_set("title_typo_dev")]
    return {"title with typos": typos[:n],
            "author name": [it["query"] for it in load_set("author_dev")][:n],
            "TL;DR question": [it["query"] for it in load_set("tldr_dev")][:n],
            "Chinese": [it["query"] for it in load_set("zh_dev")][:n],
            "short name": short_names(db, n)}


def time_sides(ports: dict[str, int], queries: dict[str, list[str]],
               probes: dict[tuple, float] | None = None) -> dict[str, dict[tuple, dict]]:
    """Each query of each kind once per mode on every side's server, the sides taking turns
    query by query (in alternating order), so a change in the machine's load falls on both;
    per side and (kind, mode) the server's times, the client's, and their differences (ms).
    `probes`, when given, gets the machine's speed per (kind, mode): the median of bench.machine's
    probe timed before every `PROBE_EVERY` queries."""
    import http.client
    import json
    from urllib.parse import urlencode

    probe = machine.Probe() if probes is not None else None

    # the standard library's client: httpx's own Python took ~1 ms a request of the time measured
    clients = {name: http.client.HTTPConnection("127.0.0.1", port, timeout=60)
               for name, port in ports.items()}
    out: dict[str, dict[tuple, dict]] = {name: {} for name in ports}
    try:
        for mode in HTTP_MODES:
            for kind, qs in queries.items():
                times = {name: {"server": [], "http": [], "layer": []} for name in ports}
                speeds = []
                for i, q in enumerate(qs):
                    if probe is not None and i % PROBE_EVERY == 0:  # spells can be shorter than a kind
                        time.sleep(PROBE_WAIT)  # the servers' work after an answer (tidy.py) done
                        speeds.append(probe.ms())
                    path = "/api/search?" + urlencode({"q": q, "size": 20, "mode": mode})
                    for name in (list(ports) if i % 2 == 0 else list(ports)[::-1]):
                        started = time.perf_counter()
                        clients[name].request("GET", path)
                        answer = clients[name].getresponse()
                        body = answer.read()
                        http = (time.perf_counter() - started) * 1000
                        if answer.status != 200:
                            raise SystemExit(f"{name}: {answer.status} for {path}")
                        server = json.loads(body)["took_ms"]
                        for key, value in (("server", server), ("http", http), ("layer", http - server)):
                            times[name][key].append(value)
                for name in ports:
                    out[name][kind, mode] = times[name]
                if speeds:
                    probes[kind, mode] = median(speeds)
    finally:
        for client in clients.values():
            client.close()
    return out


def http_bench(db: Path, base_tree: Path, n: int) -> str:
    """Base and this tree, each serving its own fresh copy of `db`, timed in turns; the table."""
    import tempfile

    from bench.corpus import REPO, copy_database
    from bench.server import free_port, start_server, stop_server, wait_idle

    queries = http_queries(db, n)
    procs, ports = {}, {}
    with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
        try:
            for name, tree in (("base", base_tree), ("this", REPO)):
                copy = copy_database(db, Path(tmp) / name)
                ports[name] = free_port()
                env = {"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
                procs[name] = start_server(copy, ports[name], env=env, cwd=tree)
            waited = wait_idle(list(procs.values()))
            probes: dict[tuple, float] = {}
            sides = time_sides(ports, queries, probes)
        finally:
            for proc in procs.values():
                stop_server(proc)
    lines = ["| kind | mode | queries | server p50 / p95 ms (base → this) | HTTP p50 / p95 ms (base → this) "
             "| HTTP layer p50 ms (base → this) | HTTP p95 ratio | machine probe ms |",
             "|---|---|---:|---|---|---|---:|---:|"]
    for (kind, mode), base in sides["base"].items():
        this = sides["this"][kind, mode]
        b, t = ({k: percentiles(v) for k, v in side.items()} for side in (base, this))
        lines.append(f"| {kind} | {mode} | {len(base['http'])} | {b['server'][0]:.1f} / {b['server'][1]:.1f} → "
                     f"{t['server'][0]:.1f} / {t['server'][1]:.1f} | {b['http'][0]:.1f} / {b['http'][1]:.1f} → "
                     f"{t['http'][0]:.1f} / {t['http'][1]:.1f} | {b['layer'][0]:.2f} → {t['layer'][0]:.2f} | "
                     f"{t['http'][1] / b['http'][1]:.2f} | {probes[kind, mode]:.2f} |")
    load = load_average()
    speed = machine.summary({f"{kind} {mode}": ms for (kind, mode), ms in probes.items()})
    return "\n".join(lines) + (f"\n\nThe servers' start-up work ended {waited:.0f} s after both answered; "
                                f"timed from then. Load average at the end: {load}. {speed}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("default", "full", "both"), default="both")
    ap.add_argument("--n", type=int, default=100, help="queries per kind")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--http", type=Path, metavar="DB", help="time the portal over HTTP on DB (issue 33)")
    ap.add_argument("--base-tree", type=Path, help="with --http: a checkout of the base ref")
    args = ap.parse_args()
    if args.http:
        if not args.base_tree:
            ap.error("--http needs --base-tree")
        table = http_bench(args.http.resolve(), args.base_tree.resolve(), args.n)
        print(table)
        if not args.no_write:
            intro = ("A freshly started `paperfind serve` per side (base ref, this tree) on copies of "
                     "one database, taking turns query by query, one kept-alive client each, first "
                     "page of 20, each query once, `nice`d "
                     "under the timing lock on the shared 2-core machine. Produced by `python -m "
                     "bench.search_latency --http DB --base-tree BASE`.\n\n")
            append_results("Portal latency per kind over HTTP, base and this tree (issue 33)", intro + table)
        return
    corpora = ("default", "full") if args.corpus == "both" else (args.corpus,)
    rows = [r for c in corpora for r in bench_corpus(c, args.n)]
    lines = ["| corpus | docs | kind | queries | paperfind p50 ms | p95 ms | bm25s p50 ms | p95 ms | p50 ratio |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for corpus, n_docs, kind, n, p50, p95, b50, b95 in rows:
        lines.append(f"| {corpus} | {n_docs:,} | {kind} | {n} | {p50:.1f} | {p95:.1f} | {b50:.1f} | "
                     f"{b95:.1f} | {p50 / b50:.2f} |")
    table = "\n".join(lines)
    print(table)
    if not args.no_write and args.corpus == "both":
        intro = ("Warm, single process, `nice`d on the shared 2-core machine (other jobs running), "
                 "lexical mode, 10 results per page with highlights, facets and author cards; "
                 "bm25s 0.3.16 (title + abstract + authors) timed in the same run returns top-10 ids "
                 "only. Produced by `python -m bench.search_latency`.\n\n")
        append_results("Search latency (issue 3)", intro + table)


if __name__ == "__main__":
    main()
