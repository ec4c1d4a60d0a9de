"""Soak: minutes at 50 concurrent clients on /api/search, with the kinds of queries people send.

Queries are generated from the database (never from the eval sets): whole titles, title
fragments, author names, keywords, and some of each with a venue or year filter or another sort
order. `paperfind serve` runs in its own process at normal priority; the load generator (asyncio
+ httpx, one process) should run under `nice`. Reports requests/s, p50/p95/p99/max latency,
errors (anything but 200, and transport failures), and the server's resident memory before the
load, during it (peak, and each minute) and after; appends them to bench/RESULTS.md.

Memory is split as Linux reports it: anonymous (the heap: what a leak grows) and file-backed
(the memory-mapped index and vector files, which the kernel can drop and re-read at will).
The mix is larger than the server's response cache, so the cache fills, then evicts, and most
requests are computed: a cache that grew without bound or a leak on the search path would show
as anonymous memory still rising in the last minutes.

    nice .venv/bin/python -m bench.web_soak --db /tmp/paperfind-crash/crash.db --seconds 600
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import threading
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import httpx

from bench.metrics import percentile
from bench.server import free_port, start_server, stop_server


def query_mix(db: Path, n: int = 2000, seed: int = 60) -> list[tuple[str, dict[str, str]]]:
    """(kind, params) pairs: titles, fragments, names, keywords, some filtered or sorted."""
    rng = random.Random(seed)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    titles = [r for r in conn.execute("SELECT title, venue, year FROM papers ORDER BY random() LIMIT 5000")]
    names = [n for (n,) in conn.execute("SELECT name FROM authors WHERE paper_count >= 2 "
                                        "ORDER BY random() LIMIT 3000")]
    keywords = [k for (k,) in conn.execute("SELECT keyword FROM keywords GROUP BY keyword "
                                           "HAVING COUNT(*) >= 3 ORDER BY random() LIMIT 3000")]
    conn.close()
    mix = []
    for i in range(n):
        title, venue, year = rng.choice(titles)
        kind = ["title", "fragment", "name", "keyword", "name", "fragment"][i % 6]
        if kind == "title":
            params = {"q": title}
        elif kind == "fragment":
            words = title.split()
            size = min(len(words), rng.randint(2, 4))
            start = rng.randint(0, max(0, len(words) - size))
            params = {"q": " ".join(words[start:start + size])}
        elif kind == "name":
            params = {"q": rng.choice(names) if names else title}
        else:
            params = {"q": rng.choice(keywords) if keywords else title}
        extra = rng.random()
        if extra < 0.1:
            params["venue"] = venue
        elif extra < 0.2:
            params["year"] = str(year)
        elif extra < 0.25:
            params["sort"] = rng.choice(["newest", "citations"])
        mix.append((kind, params))
    return mix


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory of the server process in MB: total, anonymous and file-backed."""
    fields = {"VmRSS:": "total", "RssAnon:": "anon", "RssFile:": "file"}
    out = {"total": 0.0, "anon": 0.0, "file": 0.0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name = line.split(maxsplit=1)[0] if line else ""
        if name in fields:
            out[fields[name]] = int(line.split()[1]) / 1024
    return out


async def soak(url: str, mix: list[tuple[str, dict[str, str]]], clients: int, seconds: float) -> dict:
    latencies: dict[str, list[float]] = {}
    errors: Counter[str] = Counter()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        deadline = time.perf_counter() + seconds

        async def worker(k: int) -> None:
            i = k
            while time.perf_counter() < deadline:
                kind, params = mix[i % len(mix)]
                i += clients
                started = time.perf_counter()
                try:
                    response = await client.get("/api/search", params=params)
                except httpx.HTTPError as exc:
                    errors[type(exc).__name__] += 1
                    continue
                latencies.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    errors[f"HTTP {response.status_code}"] += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(clients)))
        elapsed = time.perf_counter() - began
    return {"latencies": latencies, "errors": errors, "elapsed": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/paperfind-crash/crash.db"))
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--mix", type=int, default=20000, help="queries generated (cache holds 2048)")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    if not args.db.exists():
        raise SystemExit(f"no database at {args.db}; run bench/crash_ingest.py or paperfind ingest first")
    mix = query_mix(args.db, args.mix)
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    papers = conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    conn.close()
    port = free_port()
    server = start_server(args.db, port, semantic=False)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=60) as client:  # warm up: every kind once
            for _, params in mix[:30]:
                client.get("/api/search", params=params)
        before = rss_mb(server.pid)
        samples = [(0.0, before)]
        stop = threading.Event()
        began = time.monotonic()

        def sample() -> None:
            while not stop.wait(1.0):
                samples.append((time.monotonic() - began, rss_mb(server.pid)))

        sampler = threading.Thread(target=sample)
        sampler.start()
        result = asyncio.run(soak(url, mix, args.clients, args.seconds))
        stop.set()
        sampler.join()
        after = rss_mb(server.pid)
        alive = httpx.get(f"{url}/api/stats", timeout=30).status_code
    finally:
        stop_server(server)

    every = [ms for values in result["latencies"].values() for ms in values]
    errors = sum(result["errors"].values())
    rps = len(every) / result["elapsed"]
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["| queries | requests | req/s | p50 ms | p95 ms | p99 ms | max ms |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for kind, values in sorted(result["latencies"].items()) + [("all", every)]:
        lines.append(f"| {kind} | {len(values):,} | {len(values) / result['elapsed']:.1f} | "
                     f"{percentile(values, 50):.0f} | {percentile(values, 95):.0f} | "
                     f"{percentile(values, 99):.0f} | {max(values):.0f} |")
    lines += [
        "",
        f"Measured {when}: {args.clients} concurrent clients for {result['elapsed']:.0f} s against "
        f"one `paperfind serve` process on {papers:,} papers; {len(mix):,} queries generated from "
        f"the database (whole titles, 2-4-word title fragments, author names, keywords; 25% with a "
        f"venue or year filter or another sort). Errors: **{errors}** "
        f"{dict(result['errors']) if errors else ''}; {rps:.1f} req/s; answering after the soak: "
        f"{alive}. Load generator under `nice` on the same 2 cores.",
        "",
        "| server memory, MB | total | anonymous | file-backed (mapped index, vectors) |",
        "|---|---:|---:|---:|",
        f"| before the load (warmed up) | {before['total']:.0f} | {before['anon']:.0f} | {before['file']:.0f} |",
    ]
    minute = 60.0
    while minute < result["elapsed"]:
        at = min(samples, key=lambda s: abs(s[0] - minute))[1]
        lines.append(f"| after {minute / 60:.0f} min | {at['total']:.0f} | {at['anon']:.0f} | {at['file']:.0f} |")
        minute += 60.0
    top = {k: max(s[1][k] for s in samples) for k in ("total", "anon", "file")}
    lines.append(f"| peak | {top['total']:.0f} | {top['anon']:.0f} | {top['file']:.0f} |")
    lines.append(f"| after the load | {after['total']:.0f} | {after['anon']:.0f} | {after['file']:.0f} |")
    half = [s for s in samples if s[0] >= result["elapsed"] / 2]
    if len(half) >= 2:
        span_min = (half[-1][0] - half[0][0]) / 60
        slope = (half[-1][1]["anon"] - half[0][1]["anon"]) / span_min if span_min else 0.0
        lines += ["", f"Anonymous memory over the second half of the run: {slope:+.1f} MB per minute."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.results import append_results
        append_results(f"Robustness: {args.seconds:.0f} s soak at {args.clients} clients (bench/web_soak.py)",
                       text)
    if errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
