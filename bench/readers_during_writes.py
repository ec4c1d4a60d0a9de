"""Readers during writes: search (library) and HTTP keep answering, complete, while another
process ingests.

A base database is built from part of the data; then `paperfind serve` runs on it and reader
threads search it (in process, through `Searcher`) and query it over HTTP, first idle, then while
a second process runs `paperfind ingest` of the rest of ../shared/data (which rebuilds the index
at its end), then after. Every answer is checked:

- no exception, no HTTP status other than 200;
- every paper a search returns exists in the database with its authors (`/api/papers/{key}`);
- in every read snapshot the papers and the records agree (no paper without its records, no
  record without its paper: a file is one transaction) and the counts never go back;
- after the writer exits, the new index is served without a restart.

Latency (p50/p95/p99/max) is reported per phase and appended to bench/RESULTS.md.

    nice .venv/bin/python bench/readers_during_writes.py            # full data, minutes
    nice .venv/bin/python bench/readers_during_writes.py --small    # a few files, seconds
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import percentile  # noqa: E402
from paperfind.core import Paperfind  # noqa: E402
from paperfind.search.response import SearchRequest  # noqa: E402
from paperfind.settings import Settings  # noqa: E402

DATA = REPO.parent / "shared" / "data"
BASE_VENUES = ("colm", "corl", "uai", "colt", "aistats")  # the base; the rest is the write


@dataclass
class Observed:
    """What the readers saw, by phase ("idle", "write", "after")."""

    phase: str = "idle"
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    checks: int = 0
    index_versions: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, ms: float) -> None:
        with self.lock:
            self.latencies[f"{kind}/{self.phase}"].append(ms)

    def fail(self, message: str) -> None:
        with self.lock:
            if len(self.errors) < 200:
                self.errors.append(f"[{self.phase}] {message}")


def queries_from(db: Path, n: int = 300, seed: int = 11) -> list[str]:
    """Title fragments, author names and keywords drawn from the database (not from eval sets)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    titles = [t for (t,) in conn.execute("SELECT title FROM papers ORDER BY key")]
    names = [a for (a,) in conn.execute("SELECT name FROM paper_authors ORDER BY paper_id, position "
                                        "LIMIT 20000")]
    keywords = [k for (k,) in conn.execute("SELECT DISTINCT keyword FROM keywords ORDER BY keyword")]
    conn.close()
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 1 and names:
            out.append(rng.choice(names))
        elif kind == 2 and keywords:
            out.append(rng.choice(keywords))
        else:
            words = rng.choice(titles).split()
            size = min(len(words), rng.randint(2, 5))
            start = rng.randint(0, max(0, len(words) - size))
            out.append(" ".join(words[start:start + size]))
    return out


def library_reader(pf: Paperfind, queries: list[str], seen: Observed, stop: threading.Event,
                   offset: int = 0, pause_s: float = 0.0) -> None:
    """Search in process; every result must be a paper of the database with its authors."""
    searcher = pf.searcher()
    store = pf.store()
    i = offset
    while not stop.wait(pause_s):
        q = queries[i % len(queries)]
        i += 1
        started = time.perf_counter()
        try:
            response = searcher.search(SearchRequest(q=q, limit=10, mode="lexical"))
        except Exception as exc:  # noqa: BLE001 - the bench reports every failure
            seen.fail(f"library search {q!r}: {type(exc).__name__}: {exc}")
            continue
        seen.record("library", (time.perf_counter() - started) * 1000)
        name = searcher.live._loaded_name
        if name and (not seen.index_versions or seen.index_versions[-1] != name):
            seen.index_versions.append(name)
        keys = [hit["key"] for hit in response.to_json()["results"]]
        cards = {c["key"]: c for c in store.paper_cards(keys)}
        for key in keys:
            if key not in cards:
                seen.fail(f"library search {q!r}: result {key} is not in the database")
            elif not cards[key]["authors"] and _has_authors(store.conn, key):
                seen.fail(f"library search {q!r}: {key} is shown without its authors")


def _has_authors(conn: sqlite3.Connection, key: str) -> bool:
    row = conn.execute("SELECT data FROM records WHERE paper_key = ? AND data LIKE '%\"authors\": [{%' "
                       "LIMIT 1", (key,)).fetchone()
    return row is not None


def http_reader(url: str, queries: list[str], seen: Observed, stop: threading.Event,
                offset: int = 0, pause_s: float = 0.0) -> None:
    """Search over HTTP; every result must open as a paper page's JSON twin."""
    i = offset
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.wait(pause_s):
            q = queries[i % len(queries)]
            i += 1
            started = time.perf_counter()
            try:
                response = client.get("/api/search", params={"q": q, "size": 10})
            except httpx.HTTPError as exc:
                seen.fail(f"HTTP search {q!r}: {type(exc).__name__}: {exc}")
                continue
            seen.record("http", (time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                seen.fail(f"HTTP search {q!r}: status {response.status_code}: {response.text[:200]}")
                continue
            results = response.json()["results"]
            if results and i % 5 == 0:
                paper = client.get(f"/api/papers/{results[0]['key']}")
                if paper.status_code != 200:
                    seen.fail(f"HTTP paper {results[0]['key']}: status {paper.status_code}")


def snapshot_checker(db: Path, seen: Observed, stop: threading.Event, every_s: float = 0.5) -> None:
    """In one read snapshot, papers and records agree; counts never go back."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=30000")
    last = (0, 0)
    while not stop.wait(every_s):
        try:
            conn.execute("BEGIN")
            papers = conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
            keyed = conn.execute("SELECT COUNT(DISTINCT paper_key) FROM records").fetchone()[0]
            records = conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            seen.fail(f"snapshot: {exc}")
            continue
        seen.checks += 1
        if papers != keyed:
            seen.fail(f"snapshot: {papers} papers but {keyed} paper keys in records")
        if (papers, records) < last:
            seen.fail(f"snapshot: counts went back from {last} to {(papers, records)}")
        last = max(last, (papers, records))
    conn.close()


def start_server(db: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "paperfind.cli", "serve", "--db", str(db),
                             "--port", str(port)], cwd=REPO, stdout=subprocess.DEVNULL,
                            env=_env())
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"paperfind serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise SystemExit("paperfind serve did not come up")


def _env() -> dict[str, str]:
    import os
    return {**os.environ, "PAPERFIND_SEMANTIC": "0"}


def ingest_cli(db: Path, paths: list[Path], nice: bool = True) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "paperfind.cli", "ingest", "--db", str(db), *map(str, paths)]
    return subprocess.Popen((["nice", "-n", "10"] if nice else []) + cmd, cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())


def run(db: Path, base: list[Path], write: list[Path], idle_s: float, after_s: float,
        library_threads: int, http_threads: int, pause_s: float = 0.0) -> tuple[Observed, dict]:
    """The whole experiment; returns what the readers saw and a few facts about the run."""
    from bench.web_load import free_port

    if db.exists():
        db.unlink()
    shutil.rmtree(Path(str(db) + ".index"), ignore_errors=True)
    pf = Paperfind(Settings(db_path=db, semantic=False))
    pf.ingest(base, progress=False)
    queries = queries_from(db)
    port = free_port()
    server = start_server(db, port)
    seen, stop = Observed(), threading.Event()
    threads = [threading.Thread(target=library_reader, args=(pf, queries, seen, stop, k * 37, pause_s))
               for k in range(library_threads)]
    threads += [threading.Thread(target=http_reader, args=(f"http://127.0.0.1:{port}", queries,
                                                           seen, stop, k * 53, pause_s))
                for k in range(http_threads)]
    threads.append(threading.Thread(target=snapshot_checker, args=(db, seen, stop)))
    facts: dict = {"base_papers": pf.store().paper_count()}
    try:
        for t in threads:
            t.start()
        time.sleep(idle_s)
        seen.phase = "write"
        started = time.perf_counter()
        writer = ingest_cli(db, write)
        out, err = writer.communicate()
        facts["write_s"] = time.perf_counter() - started
        facts["writer_code"] = writer.returncode
        facts["writer_out"] = out.strip().splitlines()[-2:]
        facts["writer_errors"] = [line for line in err.splitlines() if line.startswith("error:")]
        seen.phase = "after"
        time.sleep(after_s)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        server.terminate()
        server.wait(timeout=30)
    facts["papers"] = pf.store().paper_count()
    return seen, facts


def summary(seen: Observed) -> list[str]:
    lines = ["| reader | phase | requests | p50 ms | p95 ms | p99 ms | max ms |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for kind in ("library", "http"):
        for phase in ("idle", "write", "after"):
            values = seen.latencies.get(f"{kind}/{phase}", [])
            if values:
                lines.append(f"| {kind} | {phase} | {len(values)} | {percentile(values, 50):.1f} | "
                             f"{percentile(values, 95):.1f} | {percentile(values, 99):.1f} | "
                             f"{max(values):.1f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/paperfind-rw/rw.db"))
    parser.add_argument("--small", action="store_true", help="A few files only (seconds).")
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument("--after-seconds", type=float, default=10.0)
    parser.add_argument("--library-threads", type=int, default=1)
    parser.add_argument("--http-threads", type=int, default=2)
    parser.add_argument("--pause-ms", type=float, default=0.0,
                        help="Think time between a reader's requests (0: as fast as possible).")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    args.db.parent.mkdir(parents=True, exist_ok=True)

    lists = DATA / "paperlists"
    base = [lists / v for v in BASE_VENUES]
    if args.small:
        base = [lists / "colm"]
        write = [lists / "corl", lists / "uai"]
    else:
        write = [p for p in sorted(lists.iterdir()) if p.is_dir() and p.name not in BASE_VENUES]
        write.append(DATA / "extra")
    seen, facts = run(args.db, base, write, args.idle_seconds, args.after_seconds,
                      args.library_threads, args.http_threads, args.pause_ms / 1000)
    table = summary(seen)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    note = [
        "",
        f"Measured {when}. Base {facts['base_papers']:,} papers ({', '.join(v.name for v in base)}); "
        f"the writer (`nice paperfind ingest` in a second process, then its index rebuild) took "
        f"{facts['write_s']:.0f} s and ended with {facts['papers']:,} papers (exit code "
        f"{facts['writer_code']}). Readers: {args.library_threads} in-process `Searcher` thread(s), "
        f"{args.http_threads} HTTP client thread(s) against `paperfind serve` ({args.pause_ms:.0f} ms "
        f"between requests), a snapshot checker every "
        f"0.5 s ({seen.checks} snapshots). Index versions served in process: "
        f"{' → '.join(seen.index_versions) or '-'}. All on the same 2 cores.",
        f"Errors or half-updated answers: **{len(seen.errors)}**"
        + ("" if not seen.errors else " — " + "; ".join(seen.errors[:5])),
    ]
    text = "\n".join(table + note)
    print(text)
    if facts["writer_errors"]:
        print("writer reported:", *facts["writer_errors"][:10], sep="\n  ")
    if not args.no_write and not args.small:
        from bench.common import append_results
        append_results("Robustness: readers during writes (bench/readers_during_writes.py)", text)
    if seen.errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
