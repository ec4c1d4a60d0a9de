"""Load on /api/search: requests/s and p50/p95 latency under 1, 8 and 32 concurrent clients.

Starts `paperfind serve` as a subprocess on a free port (building the database from the bundled
corpus first if there is none), measures in-process search latency (response cache off) as the
baseline, then drives the server with wrk (Debian package `wrk`: a C load generator, so the
clients take little of the 2 cores the server runs on) for `--seconds` at each concurrency, in
two query mixes:

- repeating: `--queries` title fragments and author names asked over and over, as a portal's
  popular queries and search-as-you-type prefixes are (the server's response cache answers
  them after their first time);
- distinct: every request a query not asked before in the run, so every request is computed.

The table goes to bench/RESULTS.md. The load generator shares the machine with the server, so
the figures are a floor for a dedicated server.

    nice .venv/bin/python bench/web_load.py --db paperfind.db --seconds 30 [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import append_results, percentile  # noqa: E402
from paperfind.core import Paperfind  # noqa: E402
from paperfind.search.engine import open_searcher  # noqa: E402
from paperfind.search.response import SearchRequest  # noqa: E402
from paperfind.search.settings import SearchSettings  # noqa: E402
from paperfind.settings import Settings  # noqa: E402


def sample_queries(pf: Paperfind, n: int, seed: int = 7) -> list[str]:
    """`n` different title fragments (3-5 words) and author names (1 in 4) from the database."""
    rng = random.Random(seed)
    conn = pf.store().conn
    titles = [t for (t,) in conn.execute("SELECT title FROM papers ORDER BY key")]
    names = [a for (a,) in conn.execute("SELECT name FROM authors WHERE paper_count > 2 ORDER BY id")]
    queries: dict[str, None] = {}
    for i in range(50 * n):
        if len(queries) == n:
            break
        if i % 4 == 3 and names:
            queries[rng.choice(names)] = None
            continue
        words = rng.choice(titles).split()
        size = min(len(words), rng.randint(3, 5))
        start = rng.randint(0, max(0, len(words) - size))
        queries[" ".join(words[start:start + size])] = None
    return list(queries)


def in_process(pf: Paperfind, queries: list[str], seconds: float) -> dict:
    """The baseline: the search itself, one thread, no HTTP, no response cache."""
    searcher = open_searcher(pf.settings.index_dir, pf.store(),
                        SearchSettings(use_vectors=pf.settings.semantic, result_cache=0),
                        vector_dir=pf.vector_dir)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        searcher.search(SearchRequest(q=queries[i % len(queries)], limit=20))
        latencies.append((time.perf_counter() - started) * 1000)
        i += 1
    return {"requests": len(latencies), "rps": len(latencies) / seconds,
            "p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "p99": percentile(latencies, 99), "errors": 0}


WRK_SCRIPT = """
paths = {%s}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[((counter - 1) %% #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests": %%d, "us": %%d, "p50": %%d, "p95": %%d, "p99": %%d, "non2xx": %%d, "socket": %%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
"""


def wrk(url: str, queries: list[str], clients: int, seconds: float) -> dict:
    """One wrk run over `queries` in order (one wrk thread, `clients` connections)."""
    paths = ",\n".join(json.dumps("/api/search?" + urllib.parse.urlencode({"q": q})) for q in queries)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % paths)
    try:
        done = subprocess.run(["wrk", "-t1", f"-c{clients}", f"-d{seconds:.0f}s", "--timeout", "10s",
                               "-s", script.name, url], capture_output=True, text=True, check=True)
    finally:
        Path(script.name).unlink()
    line = next(l for l in done.stdout.splitlines() if l.startswith("RESULT "))
    r = json.loads(line[len("RESULT "):])
    return {"requests": r["requests"], "rps": r["requests"] / (r["us"] / 1e6),
            "p50": r["p50"] / 1000, "p95": r["p95"] / 1000, "p99": r["p99"] / 1000,
            "errors": r["non2xx"] + r["socket"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(db: Path, port: int, workers: int = 1) -> subprocess.Popen:
    cmd = [str(Path(sys.executable).parent / "paperfind"), "serve", "--db", str(db), "--port", str(port),
           "--workers", str(workers)]
    proc = subprocess.Popen(cmd, cwd=REPO)
    deadline = time.monotonic() + 1800  # the first start may build the database
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"paperfind serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit("paperfind serve did not come up")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=REPO / "paperfind.db")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--queries", type=int, default=400, help="size of the repeating mix")
    parser.add_argument("--distinct", type=int, default=40000, help="queries for the distinct mix")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("web_load: needs wrk (Debian: apt install wrk)")
    load_before = " / ".join(f"{x:.1f}" for x in os.getloadavg())

    pf = Paperfind(Settings.from_env(db_path=args.db))
    pf.ensure_database()
    pool = sample_queries(pf, args.queries + args.distinct)
    repeating, distinct = pool[:args.queries], pool[args.queries:]
    papers = pf.store().paper_count()
    port = free_port()
    server = start_server(args.db, port, args.workers)
    url = f"http://127.0.0.1:{port}"
    rows = []
    try:
        httpx.get(f"{url}/api/search", params={"q": "warm up"})
        rows.append(("in-process `Searcher.search`, no cache", "-", 1, in_process(pf, distinct, min(args.seconds, 10.0))))
        used = 0
        for mix in ("repeating", "distinct"):
            for clients in [int(c) for c in args.clients.split(",")]:
                if mix == "repeating":
                    result = wrk(url, repeating, clients, args.seconds)
                else:  # never a query of an earlier row: each request is computed
                    result = wrk(url, distinct[used:], clients, args.seconds)
                    used += result["requests"] + clients
                    if used > len(distinct):
                        print(f"warning: the distinct mix ran out of queries ({len(distinct)})")
                rows.append(("HTTP `/api/search`", mix, clients, result))
                print(f"{mix:>9} {clients:>3} clients: {result['rps']:.0f} req/s, p50 {result['p50']:.1f} ms, "
                      f"p95 {result['p95']:.1f} ms, {result['errors']} errors", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)

    table = ["| what | queries | clients | requests | req/s | p50 ms | p95 ms | p99 ms | errors |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for what, mix, clients, r in rows:
        table.append(f"| {what} | {mix} | {clients} | {r['requests']} | {r['rps']:.0f} | {r['p50']:.1f} | "
                     f"{r['p95']:.1f} | {r['p99']:.1f} | {r['errors']} |")
    note = (f"\n{papers:,} papers; hybrid mode (the default); repeating = {len(repeating)} queries "
            f"(title fragments of 3-5 words, 1 in 4 an author name, drawn from the database) asked "
            f"in turn; distinct = a new query for every request. {args.seconds:.0f} s per row, "
            f"{args.workers} uvicorn process(es), wrk (1 thread) on the same 2 cores. Measured "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average before the run "
            f"{load_before}. Run: `nice .venv/bin/python bench/web_load.py --workers {args.workers}`.")
    text = "\n".join(table) + "\n" + note
    print(text)
    if not args.no_write:
        append_results(f"Web: /api/search under load, {args.workers} worker(s) (bench/web_load.py)",
                       text)


if __name__ == "__main__":
    main()
