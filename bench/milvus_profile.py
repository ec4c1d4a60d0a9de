"""Where a Milvus search spends its time: engine calls per query kind, client and server CPU.

    .venv/bin/python -m bench.milvus_profile [--corpus default] [--repeat 3] [--no-write]

One query of each kind (title, author name, Chinese, natural-language question, filter-only;
the first item of the matching dev set, and a `venue:` + `year:` filter) runs through the
Milvus searcher `--repeat` times after a warm-up, result cache off, lexical mode, 10 results a
page. Per kind: the engine calls one search makes (per pymilvus method, with the wall time the
client waited for them), the client process's CPU (`time.process_time`) and the server's
(`milvus-lite server` is its own process: its utime + stime from /proc), and the wall time.
The local index answers the same queries in the same run, as the baseline. Heavy: run it
under `flock /tmp/paperfind-heavy.lock`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from bench.corpus import CACHE as OUT, ensure_index, load_set
from bench.results import append_results

TICK = os.sysconf("SC_CLK_TCK")


def queries() -> dict[str, tuple[str, str]]:
    """Per kind, (what the table shows, the query): a dev set's query is named by its place,
    never printed (the eval README: no per-query output that contains the queries)."""
    return {"title": ("title_typo_dev 1st (its title)", load_set("title_typo_dev")[0]["title"]),
            "author name": ("author_dev 2nd", load_set("author_dev")[1]["query"]),
            "chinese": ("zh_dev 1st", load_set("zh_dev")[0]["query"]),
            "question": ("tldr_dev 1st", load_set("tldr_dev")[0]["query"]),
            "filter-only": ("venue:iclr year:2020",) * 2}


def cpu_of(pid: int) -> float:
    """utime + stime of process `pid`, seconds."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def profile(searcher, conn, server_pid: int | None, query: str, repeat: int, before=None) -> dict:
    from paperfind.search.response import SearchRequest

    request = SearchRequest(q=query, limit=10, mode="lexical")
    searcher.search(request)  # warm: the plan's look-ups, the row cache of this query's candidates
    calls0, secs0 = conn.log.snapshot() if conn is not None else (Counter(), Counter())
    cpu0, server0, wall0 = time.process_time(), cpu_of(server_pid) if server_pid else 0.0, time.perf_counter()
    for _ in range(repeat):
        if before is not None:
            before()
        searcher.search(request)
    wall = (time.perf_counter() - wall0) / repeat
    cpu = (time.process_time() - cpu0) / repeat
    server = ((cpu_of(server_pid) - server0) / repeat) if server_pid else 0.0
    calls, secs = conn.log.snapshot() if conn is not None else (Counter(), Counter())
    per_call = {m: ((calls[m] - calls0[m]) / repeat, (secs[m] - secs0[m]) / repeat)
                for m in calls if calls[m] - calls0[m]}
    return {"wall_ms": wall * 1000, "client_cpu_ms": cpu * 1000, "server_cpu_ms": server * 1000,
            "calls": per_call}


def forget(backend, rows: bool) -> None:
    """Forget the backend's candidate pools (a repeat then costs what a new query of that shape
    costs whose candidates were seen before), and with `rows` the rows it keeps (a query whose
    candidates were never fetched)."""
    with backend._lock:
        backend._pools.clear()
        backend._people_exprs.clear()
        if rows:
            backend._rows.clear()
            backend._analysed.clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold", action="store_true",
                    help="clear the backend's row cache too before each search (its pools always are)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--label", default="", help="what this run measures (the section title says it)")
    args = ap.parse_args()
    from bench.milvus import LiteServer, searchers
    from paperfind.milvus.client import MilvusConnection
    from paperfind.milvus.sync import sync_store

    source, root = ensure_index(args.corpus)
    server = LiteServer(OUT / "milvus" / f"{args.corpus}.db", fresh=False)
    rows = []
    try:
        collection = f"bench_{args.corpus}"
        conn = MilvusConnection(server.uri)
        report = sync_store(source, conn, collection)  # incremental: nothing when it is current
        print(report.line(), file=sys.stderr)
        local, milvus = searchers(root, conn, collection)
        for kind, (shown, q) in queries().items():
            base = profile(local, None, None, q, args.repeat)
            got = profile(milvus, conn, server.process.pid, q, args.repeat,
                          lambda: forget(milvus.backend(), args.cold))
            rows.append((kind, shown, base, got))
            print(f"{kind}: local {base['wall_ms']:.1f} ms, milvus {got['wall_ms']:.1f} ms "
                  f"(client cpu {got['client_cpu_ms']:.0f}, server cpu {got['server_cpu_ms']:.0f}) "
                  f"{ {m: (round(n, 1), round(s * 1000)) for m, (n, s) in got['calls'].items()} }",
                  file=sys.stderr)
        conn.close()
    finally:
        server.stop()
    lines = ["| kind | query | local ms | Milvus ms | client CPU ms | server CPU ms | engine calls per search (ms waited) |",
             "|---|---|---:|---:|---:|---:|---|"]
    for kind, shown, base, got in rows:
        calls = ", ".join(f"{m} {n:g} ({s * 1000:.0f})" for m, (n, s) in sorted(got["calls"].items()))
        lines.append(f"| {kind} | {shown.replace('|', '/')} | {base['wall_ms']:.1f} | {got['wall_ms']:.1f} | "
                     f"{got['client_cpu_ms']:.0f} | {got['server_cpu_ms']:.0f} | {calls} |")
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        intro = (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `python -m bench.milvus_profile "
                 f"--corpus {args.corpus} --repeat {args.repeat}{' --cold' if args.cold else ''}`: one query "
                 "of each kind, warm-up then timed repeats (the backend's candidate pools cleared before each" + (
                 ", and its row cache" if args.cold else "; the rows it fetched kept, as a server keeps them")
                 + "), lexical, 10 a page, result "
                 "cache off. Milvus Lite 3.2.2 is one local process (`milvus-lite server`) on the same "
                 "2 shared cores; server CPU is its utime + stime over the repeats.\n\n")
        append_results(f"Milvus per-query profile{': ' + args.label if args.label else ''} (issue 16)",
                       intro + table + "\n")


if __name__ == "__main__":
    os.environ.setdefault("PAPERFIND_EMBED_THREADS", "1")
    main()
