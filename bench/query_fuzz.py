"""Query fuzz: 100,000+ generated queries through the library and thousands through HTTP.

Queries mix random Unicode (CJK, emoji, combining marks, right-to-left, control characters, lone
surrogates in process), the query language (author:, venue:, year:, quotes, -, OR), SQL and FTS
syntax, HTML, regex metacharacters, real words of the database, and very long strings. The
library run must raise nothing; the HTTP run must answer every query with 200 (or 4xx for a
parameter out of range) and never 500. Reports the slowest queries, and appends the figures
to bench/RESULTS.md.

    nice .venv/bin/python -m bench.query_fuzz --db /tmp/paperfind-crash/crash.db
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

import httpx

from bench.corpus import REPO

from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings

OPERATORS = ["author:", "venue:", "year:", "year:2017..2019", "year:..2015", "year:9999..1",
             "inst:", "area:", "status:", "title:", "abstract:", "-", "--", "OR", "AND", "NOT",
             "|", "&", "+", '"', '""', "'", "(", ")", "*", "?", "~", "^", ":", "::", "..", "\\",
             "author:\"", "venue:iclr", "status:oral", "inst:mit", "-author:"]
INJECTION = ["' OR 1=1 --", "\"; DROP TABLE papers; --", "UNION SELECT * FROM sqlite_master",
             "%", "_", "%%_%", "NEAR(deep learning, 3)", "\"deep learning\"*", "title:deep*",
             "{title abstract}: graph", "^neural", "MATCH", "rowid", "*:*", "a AND (b OR", "\\x00",
             "<script>alert(1)</script>", "&amp;&lt;", "${7*7}", "{{7*7}}", "../../etc/passwd",
             ".*+?[](){}|^$", "(a+)+b", "\u202egnp.exe", "\ufeff", "\u200b\u200c\u200d", "Ω≈ç√∫",
             "𝔡𝔢𝔢𝔭", "ﬁne-tuning", "I\u0307stanbul", "ß", "ǅ", "😀🤖🧠", "王晓明 模型", "深度学习",
             "Ａｄａｍ", "ÆØÅ", "ي", "שלום", "\t\n\r", " " * 50, "0" * 30, "-1e308", "NaN"]
RANGES = [(0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x3FF), (0x590, 0x6FF),
          (0x2000, 0x206F), (0x3000, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xFF00, 0xFFEF),
          (0x1F300, 0x1F6FF), (0x1D400, 0x1D7FF), (0x0, 0x1F)]


def vocabulary(db: Path, n: int = 5000) -> list[str]:
    """Real words and names of the database, so queries also hit the index."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    titles = [t for (t,) in conn.execute("SELECT title FROM papers ORDER BY random() LIMIT ?", (n,))]
    names = [a for (a,) in conn.execute("SELECT name FROM authors ORDER BY random() LIMIT ?", (n // 5,))]
    conn.close()
    words = [w for t in titles for w in t.split()]
    return words + names or ["learning"]


def random_unicode(rng: random.Random, size: int, surrogates: bool) -> str:
    chars = []
    for _ in range(size):
        lo, hi = rng.choice(RANGES)
        chars.append(chr(rng.randint(lo, hi)))
    if surrogates and rng.random() < 0.3:
        chars.insert(rng.randrange(len(chars) + 1), chr(rng.randint(0xD800, 0xDFFF)))
    return "".join(chars)


def generate(rng: random.Random, words: list[str], surrogates: bool = True) -> str:
    """One query: a soup of real words, operators, injections and random Unicode."""
    kind = rng.random()
    if kind < 0.003:  # very long word soups: ~0.5-2.5 s each on 13,620 papers, so a few hundred
        return " ".join(rng.choice(words + OPERATORS) for _ in range(rng.choice([500, 2000, 20000])))
    if kind < 0.02:
        return rng.choice(["a", "(", '"', "-", "x y "]) * rng.choice([1000, 10000, 100000])
    if kind < 0.2:
        return random_unicode(rng, rng.randint(0, 60), surrogates)
    parts = []
    for _ in range(rng.randint(0, 8)):
        pick = rng.random()
        if pick < 0.45:
            parts.append(rng.choice(words))
        elif pick < 0.7:
            parts.append(rng.choice(OPERATORS))
        elif pick < 0.85:
            parts.append(rng.choice(INJECTION))
        else:
            parts.append(random_unicode(rng, rng.randint(1, 8), surrogates))
        if rng.random() < 0.3 and len(parts) > 1:  # glue: author:"Name, -word, "phrase
            parts[-2:] = [parts[-2] + parts[-1]]
    return rng.choice([" ", "", "  "]).join(parts)


def random_params(rng: random.Random, q: str) -> dict[str, object]:
    """HTTP parameters around the query, valid most of the time, out of range sometimes."""
    params: dict[str, object] = {"q": q}
    if rng.random() < 0.3:
        params["sort"] = rng.choice(["relevance", "newest", "citations", "bogus"])
    if rng.random() < 0.3:
        params["mode"] = rng.choice(["lexical", "semantic", "hybrid", "x"])
    if rng.random() < 0.2:
        params["page"] = rng.choice([1, 2, 50, 10_000, 0, -1, "x"])
    if rng.random() < 0.2:
        params["size"] = rng.choice([1, 20, 100, 101, 0])
    if rng.random() < 0.2:
        params["year"] = rng.choice(["2019", "2017..2019", "2019..2017", "1899", "x", "2024.."])
    if rng.random() < 0.2:
        params["venue"] = rng.choice(["iclr", "nips", "<b>", "", "x" * 300])
    return params


def library_run(pf: Paperfind, queries: int, words: list[str], seed: int) -> dict:
    searcher = pf.searcher()
    rng = random.Random(seed)
    slowest: list[tuple[float, str]] = []
    failures: list[str] = []
    total_ms = 0.0
    for i in range(queries):
        q = generate(rng, words)
        request = SearchRequest(q=q, limit=rng.choice([1, 10, 10, 20]),
                                offset=rng.choice([0] * 48 + [20, 9990]),
                                sort=rng.choice(["relevance", "newest", "citations"]), mode="lexical")
        started = time.perf_counter()
        try:
            searcher.search(request).to_json()
        except Exception:  # noqa: BLE001 - every failure is the finding
            failures.append(f"{q[:80]!r}: {traceback.format_exc().splitlines()[-1]}")
        ms = (time.perf_counter() - started) * 1000
        total_ms += ms
        slowest = sorted(slowest + [(ms, q)], reverse=True)[:5]
        if (i + 1) % 10000 == 0:
            print(f"  library: {i + 1} queries, {len(failures)} failures, slowest {slowest[0][0]:.0f} ms",
                  flush=True)
    return {"queries": queries, "failures": failures, "slowest": slowest,
            "mean_ms": total_ms / max(queries, 1)}


def http_run(url: str, queries: int, words: list[str], seed: int) -> dict:
    rng = random.Random(seed)
    statuses: dict[int, int] = {}
    slowest: list[tuple[float, str]] = []
    failures: list[str] = []
    with httpx.Client(base_url=url, timeout=120) as client:
        for i in range(queries):
            params = random_params(rng, generate(rng, words, surrogates=False))
            started = time.perf_counter()
            try:
                response = client.get("/api/search" if i % 4 else "/", params=params)
            except httpx.InvalidURL:
                continue  # httpx refuses to build URLs over 64 KiB; the server test covers them
            except httpx.HTTPError as exc:
                failures.append(f"{str(params)[:80]}: {type(exc).__name__}")
                continue
            ms = (time.perf_counter() - started) * 1000
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500 or response.status_code not in (200, 414, 422):
                failures.append(f"{str(params)[:80]}: {response.status_code} {response.text[:120]}")
            slowest = sorted(slowest + [(ms, str(params["q"]))], reverse=True)[:5]
    return {"queries": queries, "statuses": statuses, "failures": failures, "slowest": slowest}


def ensure_db(db: Path) -> None:
    if db.exists():
        return
    lists = REPO.parent / "shared" / "data" / "paperlists"
    pf = Paperfind(Settings(db_path=db, semantic=False))
    pf.ingest([lists / v for v in ("iclr", "icml", "nips", "colm")], progress=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/paperfind-fuzz/fuzz.db"))
    parser.add_argument("--library", type=int, default=100_000)
    parser.add_argument("--http", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    args.db.parent.mkdir(parents=True, exist_ok=True)
    ensure_db(args.db)
    pf = Paperfind(Settings(db_path=args.db, semantic=False))
    pf.refresh_index()
    papers = pf.store().paper_count()
    words = vocabulary(args.db)

    from bench.server import free_port, start_server, stop_server
    started = time.perf_counter()
    lib = library_run(pf, args.library, words, args.seed)
    lib_s = time.perf_counter() - started
    port = free_port()
    server = start_server(args.db, port, semantic=False)
    try:
        started = time.perf_counter()
        web = http_run(f"http://127.0.0.1:{port}", args.http, words, args.seed + 1)
        web_s = time.perf_counter() - started
        alive = httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=30).status_code
    finally:
        stop_server(server)

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    slow = lambda rows: "; ".join(f"{ms:.0f} ms for {q[:40]!r}{'…' if len(q) > 40 else ''} "  # noqa: E731
                                  f"({len(q):,} chars)" for ms, q in rows[:3])
    lines = [
        "| run | queries | exceptions / 5xx | statuses | mean ms | slowest |",
        "|---|---:|---:|---|---:|---|",
        f"| library `Searcher.search` | {lib['queries']:,} | {len(lib['failures'])} | - | "
        f"{lib['mean_ms']:.1f} | {slow(lib['slowest'])} |",
        f"| HTTP `/api/search` and `/` | {web['queries']:,} | "
        f"{sum(n for s, n in web['statuses'].items() if s >= 500)} | "
        f"{', '.join(f'{s}: {n}' for s, n in sorted(web['statuses'].items()))} | - | {slow(web['slowest'])} |",
        "",
        f"Measured {when} on {papers:,} papers (`{args.db.name}`), seed {args.seed}: library "
        f"{lib_s:.0f} s, HTTP {web_s:.0f} s (one client, `paperfind serve`), server alive after: "
        f"{alive}. 422 = a parameter out of range (page, size, year, mode), 414 = a query string "
        f"over 32 KiB; the query text itself is never refused (cut at 2,000 characters).",
    ]
    if lib["failures"] or web["failures"]:
        lines.append("Failures: " + "; ".join((lib["failures"] + web["failures"])[:10]))
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.results import append_results
        append_results("Robustness: query fuzz (bench/query_fuzz.py)", text)
    if lib["failures"] or web["failures"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
