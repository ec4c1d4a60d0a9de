"""The Atom feeds (issue 31): size and time of a feed against the same list's JSON, and how
often a feed reader's repeated poll is answered 304.

Serves `--db` (default: the bundled corpus's database, read only) with this tree's code and the
lexical index (no vectors, so the run is short and the feed and its JSON run the same search),
then for each list asks its feed and its JSON twin alternately `--rounds` times after one warm
request each: p50 / p95 of the time to the last byte, and the body's size. Then polls each feed
`--rounds` times with the ETag of its first answer (as a reader does) and counts the 304s. The
search result cache serves the feed and the JSON alike, so the difference is the Atom document.

    nice .venv/bin/python -m bench.feeds [--db bench/out/bundled.db] [--rounds 40]
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx

from bench.corpus import CACHE
from bench.metrics import p50_p95
from bench.results import append_results
from bench.server import free_port, start_server, stop_server

# (list, its feed, the same list's JSON: first page, same order)
LISTS = (
    ("search 'learning' (broad), 20 entries", "/feeds/search.atom?q=learning",
     "/api/search?q=learning&sort=date"),
    ("search 'learning' since 2025, 100 entries", "/feeds/search.atom?q=learning&since=2025&size=100",
     "/api/search?q=learning&since=2025&size=100&sort=date"),
    ("venue-year ICLR 2024, 50 entries", "/feeds/venues/iclr.atom?year=2024",
     "/api/venues/iclr?year=2024"),
    ("author huishuai-zhang (all works)", "/feeds/authors/huishuai-zhang.atom",
     "/api/authors/huishuai-zhang"),
)


def timed(client: httpx.Client, path: str, headers: dict[str, str] | None = None) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = client.get(path, headers=headers)
    return (time.perf_counter() - started) * 1000, response


def measure(client: httpx.Client, rounds: int) -> list[str]:
    rows = []
    for name, feed, twin in LISTS:
        for path in (feed, twin):
            assert timed(client, path)[1].status_code == 200, path  # warm: the search is cached after
        feed_ms, twin_ms = [], []
        for _ in range(rounds):
            ms, feed_response = timed(client, feed)
            feed_ms.append(ms)
            ms, twin_response = timed(client, twin)
            twin_ms.append(ms)
        etag = feed_response.headers["etag"]
        polls = [timed(client, feed, {"if-none-match": etag}) for _ in range(rounds)]
        not_modified = sum(r.status_code == 304 and not r.content for _, r in polls)
        (f50, f95), (j50, j95) = p50_p95(feed_ms), p50_p95(twin_ms)
        p50_304, _ = p50_p95([ms for ms, _ in polls])
        rows.append(f"| {name} | {len(feed_response.content):,} | {len(twin_response.content):,} | "
                    f"{f50:.1f} / {f95:.1f} | {j50:.1f} / {j95:.1f} | {not_modified}/{rounds} | {p50_304:.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=CACHE / "bundled.db")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    port = free_port()
    started = time.perf_counter()
    proc = start_server(args.db, port, semantic=False)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            papers = client.get("/api/stats").json()["papers"]
            rows = measure(client, args.rounds)
    finally:
        stop_server(proc)
    table = "\n".join([
        "| list | feed bytes | JSON bytes | feed p50 / p95 ms | JSON p50 / p95 ms | 304s of repeated polls | 304 p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|", *rows])
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    note = (f"\n\nMeasured {when} in {time.perf_counter() - started:.0f} s on {args.db.name} "
            f"({papers:,} papers), `paperfind serve` of this tree, lexical (PAPERFIND_SEMANTIC=0), one "
            f"client, {args.rounds} alternating rounds per list after one warm request each (so the "
            f"search itself comes from the result cache for both). The JSON is the same list's API "
            f"call, its baseline; a poll sends the ETag of the feed's first answer.")
    print(table + note)
    append_results("Atom feeds: size, time against the JSON list, 304s of a repeated poll (bench/feeds.py, issue 31)",
                   table + note)


if __name__ == "__main__":
    main()
