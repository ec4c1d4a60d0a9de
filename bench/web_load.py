"""Load on /api/search: requests/s and p50/p95 latency under 1, 8 and 32 concurrent clients.

Starts `paperfind serve` as a subprocess on a free port (building the database from the bundled
corpus first if there is none), measures in-process search latency on the same queries as the
baseline, then runs asyncio + httpx clients for `--seconds` at each concurrency and appends the
table to bench/RESULTS.md. The load generator runs on the same machine, so its CPU use counts
against the server: the figures are a floor for a dedicated server.

    nice .venv/bin/python bench/web_load.py --db paperfind.db --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import append_results  # noqa: E402
from paperfind.core import Paperfind  # noqa: E402
from paperfind.search.response import SearchRequest  # noqa: E402
from paperfind.settings import Settings  # noqa: E402


def sample_queries(pf: Paperfind, n: int, seed: int = 7) -> list[str]:
    """Title fragments (3-5 words) and author names drawn from the database itself."""
    rng = random.Random(seed)
    conn = pf.store().conn
    titles = [t for (t,) in conn.execute("SELECT title FROM papers ORDER BY key")]
    names = [a for (a,) in conn.execute("SELECT name FROM authors WHERE paper_count > 2 ORDER BY id")]
    queries = []
    for i in range(n):
        if i % 4 == 3 and names:
            queries.append(rng.choice(names))
            continue
        words = rng.choice(titles).split()
        size = min(len(words), rng.randint(3, 5))
        start = rng.randint(0, max(0, len(words) - size))
        queries.append(" ".join(words[start:start + size]))
    return queries


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else 0.0


def in_process(pf: Paperfind, queries: list[str], seconds: float) -> dict:
    searcher = pf.searcher()
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        searcher.search(SearchRequest(q=queries[i % len(queries)], limit=20))
        latencies.append((time.perf_counter() - started) * 1000)
        i += 1
    return {"requests": len(latencies), "rps": len(latencies) / seconds,
            "p50": percentile(latencies, 50), "p95": percentile(latencies, 95), "errors": 0}


async def load(url: str, queries: list[str], clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        deadline = time.perf_counter() + seconds

        async def worker(offset: int) -> None:
            nonlocal errors
            i = offset
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                response = await client.get("/api/search", params={"q": queries[i % len(queries)]})
                latencies.append((time.perf_counter() - started) * 1000)
                errors += response.status_code != 200
                i += clients

        began = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(clients)))
        elapsed = time.perf_counter() - began
    return {"requests": len(latencies), "rps": len(latencies) / elapsed,
            "p50": percentile(latencies, 50), "p95": percentile(latencies, 95), "errors": errors}


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
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()

    pf = Paperfind(Settings.from_env(db_path=args.db))
    pf.ensure_database()
    queries = sample_queries(pf, args.queries)
    papers = pf.store().paper_count()
    port = free_port()
    server = start_server(args.db, port, args.workers)
    rows = []
    try:
        httpx.get(f"http://127.0.0.1:{port}/api/search", params={"q": queries[0]})  # warm up
        base = in_process(pf, queries, min(args.seconds, 10.0))
        rows.append(("in-process `Searcher.search`", 1, base))
        for clients in [int(c) for c in args.clients.split(",")]:
            result = asyncio.run(load(f"http://127.0.0.1:{port}", queries, clients, args.seconds))
            rows.append(("HTTP `/api/search`", clients, result))
            print(f"{clients:>3} clients: {result['rps']:.0f} req/s, p50 {result['p50']:.1f} ms, "
                  f"p95 {result['p95']:.1f} ms, {result['errors']} errors", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)

    table = ["| what | clients | requests | req/s | p50 ms | p95 ms | errors |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for what, clients, r in rows:
        table.append(f"| {what} | {clients} | {r['requests']} | {r['rps']:.0f} | {r['p50']:.1f} | "
                     f"{r['p95']:.1f} | {r['errors']} |")
    note = (f"\n{papers:,} papers; {len(queries)} queries (title fragments of 3-5 words and author "
            f"names drawn from the database), {args.seconds:.0f} s per row, {args.workers} uvicorn "
            f"process(es), "
            f"the load generator on the same 2 cores. Run: `nice .venv/bin/python bench/web_load.py`.")
    text = "\n".join(table) + "\n" + note
    print(text)
    if not args.no_write:
        append_results(f"Web: /api/search under load, {args.workers} worker(s) (bench/web_load.py)",
                       text)


if __name__ == "__main__":
    main()
