"""The hostile-edge probe (issue 34): hostile requests on both backends, hostile records, outages.

Run against real parts: a database ingested by `paperfind ingest` from the repo's slices (COLT
2019, CoRL 2022, ICLR 2017) and a file of crafted records, served by `paperfind serve` from its
local index and, synced, from a `milvus-lite server`. Every request goes over a raw socket, so
what a hostile client can send (control bytes, malformed %-escapes, 1 MiB lines) is sent as is.

- parameters: generated requests (known and unknown parameters, hostile values, every route)
  on each backend. Each answer is < 500, in the portal's error shape with its security headers,
  an unknown API parameter or malformed escape is a 422, and no link of an HTML page leaves the
  site once a browser has normalised it.
- raw lines: fixed cases (64 KiB and 1 MiB targets, an 8 MiB header, invalid bytes, //host paths).
- records: the crafted file's messages (file, line, field), true counts, no control characters
  stored.
- outages (Milvus): killed, then hung: a plain 503 without the engine's text or address; after a
  first timeout answers come at once; served again when it is back.
- mixed sequence: every kind of query through one server process, totals and first 100 keys of
  the Milvus portal against the local one.

    .venv/bin/python -m bench.probe [--cases 1500] [--seed 34] [--base REF]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from bench.corpus import REPO
from bench.server import MilvusServer, free_port, raw_exchange, start_server, stop_server

SLICES = REPO / "tests" / "data" / "slices" / "paperlists"
SLICE = [("colt", 2019), ("corl", 2022), ("iclr", 2017)]
SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options")
KNOWN = ["q", "page", "size", "sort", "mode", "venue", "year", "status", "area", "inst", "institution",
         "explain", "format", "limit", "aspect", "lang"]
UNKNOWN = ["utm_source", "qq", "Q", "per_page", "offset", "callback", "_", "q[]", "size ", "q\x00"]
HOSTILE = ["", "x", "-1", "0", "101", "10001", "1e9", "NaN", "true", "2024", "2017..2019", "\n5831\x0b",
           "2024\n", "\t2024", "9999..1", "<script>alert(1)</script>", "' OR 1=1 --", "\u202eevil",
           "\u2066x\u2069", "a\u200bb", "深度学习", "清华 具身智能", "%E4%B8", "%FF", "%C3%28", "%00",
           "%0d%0aSet-Cookie:x=1", "javascript:alert(1)", "//evil.example", "../../etc/passwd",
           "a" * 3000, "é" * 500, "lexical", "semantic", "hybrid", "newest", "csv", "bibtex", "jsonl"]


def raw(port: int, request: bytes, timeout: float = 60) -> tuple[int, dict[str, str], bytes, float]:
    """(status, headers, body, seconds) of one raw request on a new connection."""
    started = time.perf_counter()
    status_line, headers, body = raw_exchange(port, request, timeout=timeout)
    parts = status_line.split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return status, headers, body, time.perf_counter() - started


def get(port: int, target: bytes, accept: str = "application/json", extra: bytes = b"") -> tuple:
    return raw(port, b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: " + accept.encode()
               + b"\r\nConnection: close\r\n" + extra + b"\r\n")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [v for k, v in attrs if k in ("href", "src", "action", "formaction") and v]


def page_problems(status: int, headers: dict, body: bytes) -> list[str]:
    """What is wrong with one answer, whatever was asked."""
    problems = []
    if status == 0 or status >= 500:
        problems.append(f"status {status}")
    problems += [f"no {h}" for h in SECURITY if h not in headers]
    text = body.decode("utf-8", "replace")
    if "Traceback" in text:
        problems.append("a traceback")
    kind = headers.get("content-type", "")
    if status >= 400 and "json" in kind:
        error = json.loads(body).get("error", {})
        if error.get("status") != status or not error.get("message"):
            problems.append("not the error shape")
    if "text/html" in kind:
        links = _Links()
        links.feed(text)
        for href in links.hrefs:
            # as a browser reads it: tabs and newlines dropped, \\ as /; a paper's own links
            # (PDF, code) are absolute and leave on purpose, a path that starts // leaves by mistake
            seen = re.sub(r"[\t\n\r]", "", href).replace("\\", "/").strip()
            if seen.startswith("//") or seen.lower().startswith(("javascript:", "data:text")):
                problems.append(f"off-site link {href[:60]!r}")
    return problems


def generated_cases(rng: random.Random, n: int, samples: dict[str, str]) -> list[tuple[bytes, str, bool, bool]]:
    """(target, accept, is an API path, has an unknown or malformed parameter) x n."""
    paths = ["/api/search", "/", "/api/search/trend", "/trend", "/api/search/export",
             f"/api/papers/{samples['paper']}", f"/api/papers/{samples['paper']}/similar",
             f"/api/authors/{samples['author']}", f"/api/institutions/{samples['inst']}",
             "/api/venues/iclr", f"/api/areas/{quote(samples['area'], safe='')}", f"/papers/{samples['paper']}",
             f"/authors/{samples['author']}", f"/areas/{quote(samples['area'], safe='')}", "/api/stats",
             "/venues/corl", "/nope", "//evil.example/x", "/%09/evil.example/x"]
    cases = []
    for _ in range(n):
        path = rng.choice(paths)
        pairs, odd = [], False
        for _ in range(rng.randint(0, 4)):
            name = rng.choice(KNOWN + UNKNOWN if rng.random() < 0.3 else KNOWN)
            value = rng.choice(HOSTILE)
            malformed = value.startswith("%") and value != "%00"  # sent as written; %00 is UTF-8
            odd |= name in UNKNOWN or malformed
            pairs.append(quote(name, safe="") + "=" + (value if malformed else quote(value, safe="")))
        target = (path + ("?" + "&".join(pairs) if pairs else "")).encode("latin-1", "replace")
        accept = rng.choice(["application/json", "text/html"])
        cases.append((target, accept, path.startswith("/api/"), odd))
    return cases


def parameters_run(port: int, cases) -> tuple[int, list[str]]:
    failures = []
    for target, accept, api, odd in cases:
        status, headers, body, _ = get(port, target, accept)
        problems = page_problems(status, headers, body)
        if api and odd and status == 200:
            problems.append("an unknown parameter or malformed escape answered 200")
        if problems:
            failures.append(f"{target[:90]!r}: {', '.join(problems)}")
    return len(cases), failures


RAW_CASES = [  # (name, request bytes, statuses that are right)
    ("query string of 64 KiB", b"GET /api/search?q=" + b"a" * 65_530 + b" HTTP/1.1\r\nHost: x\r\n\r\n", {414}),
    ("query string of 1 MiB", b"GET /api/search?q=" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n", {414}),
    ("path of 64 KiB", b"GET /papers/" + b"a" * 65_540 + b" HTTP/1.1\r\nHost: x\r\n\r\n", {414}),
    ("header of 8 MiB", b"GET /api/stats HTTP/1.1\r\nHost: x\r\nX-F: " + b"a" * (8 << 20) + b"\r\n\r\n", {431}),
    ("headers of 40 KiB", b"GET /api/stats HTTP/1.1\r\nHost: x\r\nX-F: " + b"a" * 40_000 + b"\r\n\r\n", {431}),
    ("invalid UTF-8 path", b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", {400, 404}),
    ("invalid UTF-8 query", b"GET /api/search?q=\xe4\xb8 HTTP/1.1\r\nHost: x\r\n\r\n", {400, 422}),
    ("malformed escape", b"GET /api/search?q=%E4%B8 HTTP/1.1\r\nHost: x\r\n\r\n", {422}),
    ("HTTP/9.9", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", {400, 505}),
    ("not HTTP", b"NOT A REQUEST\r\n\r\n", {400}),
    ("//host 404 page", b"GET //evil.example/x HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", {404}),
    ("/%09/host 404 page", b"GET /%09/evil.example/x HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", {404}),
    ("/%0a/host 404 page", b"GET /%0a/evil.example/x HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", {404}),
    ("a body", b"GET /api/search HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", {413}),
    ("POST", b"POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", {405}),
    ("limit=5", b"GET /api/search?q=x&limit=5 HTTP/1.1\r\nHost: x\r\n\r\n", {422}),
    ("year with control characters", b"GET /api/search?q=x&year=%0A5831%0B HTTP/1.1\r\nHost: x\r\n\r\n", {422}),
    ("export with a Host of its own", b"GET /api/search/export?q=learning&format=csv HTTP/1.1\r\nHost: evil.test\r\n\r\n", {200}),
]


def raw_run(port: int) -> tuple[int, list[str]]:
    failures = []
    for name, request, right in RAW_CASES:
        status, headers, body, _ = raw(port, request)
        problems = [] if status in right else [f"status {status}, not {sorted(right)}"]
        problems += page_problems(status, headers, body) if status != 400 or headers else []
        if name.startswith("export") and (b"evil.test" in body or re.search(rb"(?m)^(\s*)[=+@]", body)):
            problems.append("the Host header or a formula in the CSV")
        if problems:
            failures.append(f"{name}: {', '.join(problems)}")
    return len(RAW_CASES), failures


# records: (what, a JSON Lines text, what a correct ingest says or stores)
RECORDS = [  # the file starts with a BOM: its first line is the one a BOM once cost
    {"venue": "colm", "year": 2024, "source_id": "bom1", "title": "Bom first line"},
    {"venue": "colm", "year": 2024, "source_id": "bidi1", "title": "Bidi \u202etitle\u202c here",
     "authors": [{"name": "Alice \u202eEvil"}, {"name": "Bob\u200b Zero"}, {"name": "Carol \u2066Iso\u2069"}],
     "abstract": "An abstract with a NUL \u0000 inside."},
    {"venue": "colm", "year": 2024, "source_id": "dup1", "title": "First of a key"},
    {"venue": "colm", "year": 2024, "source_id": "dup1", "title": "Second of the same key"},
    {"venue": "colm", "year": 2024, "title": "No source id"},
]
CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff\u0000]")


def records_run(root: Path) -> tuple[int, list[str]]:
    data = root / "hostile"
    data.mkdir()
    text = "\n".join(json.dumps(r) for r in RECORDS) + "\n"
    (data / "hostile.jsonl").write_text("\ufeff" + text, encoding="utf-8")
    db = root / "hostile.db"
    run = subprocess.run([sys.executable, "-m", "paperfind.cli", "ingest", "--db", str(db), str(data)],
                         capture_output=True, text=True, cwd=REPO)
    failures, said = [], run.stderr + run.stdout
    cases = 0
    for expect, why in ((r"hostile\.jsonl.*(line|record) 5.*field 'source_id' is missing", "the record without source_id named by file, line, field"),
                        (r"hostile\.jsonl.*(line|record) 4.*line 3", "the two lines with one key named"),
                        (r"at at", None)):
        cases += 1
        found = re.search(expect, said, re.I | re.S)
        if (why is None and found) or (why is not None and not found):
            failures.append(why or "'at at' in a message")
    cases += 1
    if "Traceback" in said:
        failures.append("a traceback")
    cases += 3
    if db.exists():
        from paperfind.store import Store

        with Store(db, readonly=True) as store:
            keys = [r[0] for r in store.conn.execute("SELECT key FROM papers")]
            papers = store.paper_records(keys)
        texts = [p["title"] for p in papers] + [p["abstract"] or "" for p in papers]
        texts += [a["name"] for p in papers for a in p["authors"]]
        if any(CONTROLS.search(t) for t in texts):
            failures.append("bidi, zero-width or NUL characters stored")
        if not any(p["title"].startswith("Bom") for p in papers):
            failures.append("the BOM file's first record was lost")
        added = re.search(r"(\d+) added", said)
        if added and int(added.group(1)) != len(papers):
            failures.append(f"counted {added.group(1)} added for {len(papers)} papers")
    else:
        failures.append("no database")
    return cases, failures


MIXED = [("venue:iclr", "lexical"), ("neural network", "lexical"), ("year:2022", "lexical"),
         ("robot", "lexical"), ("status:oral", "lexical"), ("attention", "lexical"), ("bandit", "lexical"),
         ("强化学习", "hybrid"), ("learning", "lexical"), ("inst:google", "lexical"),
         ("reinforcement", "lexical"), ("kernel", "lexical"), ("tail bounds", "lexical"),
         ("online learning with experts", "hybrid"), ("causal inference", "lexical")]


def answers(port: int) -> list[tuple]:
    out = []
    for q, mode in MIXED:
        status, _, body, _ = get(port, f"/api/search?q={quote(q)}&size=100&mode={mode}".encode())
        data = json.loads(body) if status == 200 else {}
        out.append((q, status, data.get("total"), [r["key"] for r in data.get("results", [])]))
    return out


def outage_run(port: int, milvus: MilvusServer) -> tuple[int, list[str]]:
    failures, cases = [], 0

    asked = iter(range(1_000_000))

    def plain_503(what: str) -> None:
        nonlocal cases
        cases += 1
        # a query not asked before: an answer in the result cache needs no engine
        status, headers, body, _ = get(port, f"/api/search?q=bandit+regret+{next(asked)}".encode())
        text = body.decode("utf-8", "replace").lower()
        if status != 503 or str(milvus.port) in text or "grpc" in text or "deadline" in text:
            failures.append(f"{what}: {status} {text[:120]!r}")

    def served(what: str, wait: float = 60) -> None:
        nonlocal cases
        cases += 1
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if get(port, b"/api/search?q=bandit+regret")[0] == 200:
                return
            time.sleep(0.5)
        failures.append(f"{what}: not served again within {wait:.0f} s")

    milvus.kill()
    plain_503("killed")
    milvus.start()
    served("restarted")
    milvus.hang()
    plain_503("hung, first request")
    for path in (b"/api/search?q=online+mirror+descent", b"/api/stats", b"/?q=kernel+ridge"):
        cases += 1
        status, _, _, seconds = get(port, path, "text/html" if path.startswith(b"/?") else "application/json")
        if seconds > 1.0 or status >= 500 and status != 503:
            failures.append(f"hung, {path.decode()}: {status} in {seconds:.1f} s")
    milvus.resume()
    served("resumed")
    return cases, failures


def run_probe(cases_n: int, seed: int) -> list[tuple[str, str, int, list[str]]]:
    """Every group of the probe on this source tree: (probe, backend, cases, failures) rows."""
    root = Path(tempfile.mkdtemp(prefix="paperfind-probe-"))
    db = root / "probe.db"
    subprocess.run([sys.executable, "-m", "paperfind.cli", "ingest", "--db", str(db),
                    *[str(SLICES / v / f"{v}{y}.json.gz") for v, y in SLICE]],
                   check=True, capture_output=True, cwd=REPO)
    # the vectors, as `serve` would make them (about a minute): a vector search caches rows the
    # word search after it must not take for complete (issue 34.1), so the sequence needs them
    subprocess.run([sys.executable, "-m", "paperfind.embed.build", "--db", str(db), "--threads", "2"],
                   check=True, capture_output=True, cwd=REPO)
    import sqlite3

    conn = sqlite3.connect(db)
    samples = {"paper": conn.execute("SELECT key FROM papers ORDER BY key LIMIT 1").fetchone()[0],
               "author": conn.execute("SELECT slug FROM authors ORDER BY id LIMIT 1").fetchone()[0],
               "inst": "google", "area": (conn.execute(  # the slices have no areas: a 404 then
                   "SELECT area FROM papers WHERE area != '' ORDER BY key LIMIT 1").fetchone() or ["Vision / Robotics"])[0]}
    conn.close()
    rows: list[tuple[str, str, int, list[str]]] = []
    cases = generated_cases(random.Random(seed), cases_n, samples)
    milvus = MilvusServer(root / "milvus.db", free_port())
    milvus.start()
    servers = {}
    try:
        local_port = free_port()
        servers["local"] = (local_port, start_server(db, local_port, semantic=True))
        subprocess.run([sys.executable, "-m", "paperfind.cli", "sync", "--db", str(db), "--milvus", milvus.uri],
                       check=True, capture_output=True, cwd=REPO)
        milvus_port = free_port()
        servers["milvus"] = (milvus_port, start_server(db, milvus_port, semantic=True, env={
            "PAPERFIND_BACKEND": "milvus", "PAPERFIND_MILVUS_URI": milvus.uri}))
        for backend, (port, _) in servers.items():
            rows.append(("hostile parameters (generated)", backend, *parameters_run(port, cases)))
            rows.append(("hostile request lines", backend, *raw_run(port)))
        ours, theirs = answers(milvus_port), answers(local_port)
        wrong = [f"{a[0]!r}: {a[2]} vs {b[2]}" for a, b in zip(ours, theirs) if a != b]
        rows.append(("mixed sequence, totals + first 100 keys vs local", "milvus", len(MIXED), wrong))
        rows.append(("outages: killed, hung, back", "milvus", *outage_run(milvus_port, milvus)))
    finally:
        for _, proc in servers.values():
            stop_server(proc)
        milvus.kill()
    rows.append(("hostile records (ingest)", "-", *records_run(root)))
    return rows


def base_rows(ref: str, cases_n: int, seed: int) -> list[tuple[str, str, int, list[str]]]:
    """The same probe on `ref`'s source tree (a git worktree with this probe copied in), for
    the baseline of the same run."""
    tree = Path(tempfile.mkdtemp(prefix="paperfind-probe-base-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), ref], cwd=REPO, check=True)
    try:
        for name in ("probe.py", "server.py"):
            (tree / "bench" / name).write_text((REPO / "bench" / name).read_text("utf-8"), "utf-8")
        out = tree / "rows.json"
        subprocess.run([sys.executable, "-m", "bench.probe", "--cases", str(cases_n), "--seed", str(seed),
                        "--json", str(out)], cwd=tree, env={**__import__("os").environ, "PYTHONPATH": str(tree)})
        return [tuple(r) for r in json.loads(out.read_text("utf-8"))]
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1500, help="generated requests per backend")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--base", help="also probe this git ref (the baseline of the same run)")
    parser.add_argument("--json", type=Path, help="write the rows here (what --base reads)")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = run_probe(args.cases, args.seed)
    if args.json:
        args.json.write_text(json.dumps(rows), "utf-8")
        return
    base = {(r[0], r[1]): r for r in base_rows(args.base, args.cases, args.seed)} if args.base else {}
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = "| probe | backend | cases | failures |" + (f" failures at `{args.base}` | first of them |" if base else " first failures |")
    lines = [head, "|---|---|---:|---:|" + ("---:|---|" if base else "---|")]
    for name, backend, n, failed in rows:
        line = f"| {name} | {backend} | {n:,} | {len(failed)} |"
        if base:
            then = base.get((name, backend))
            line += (f" {len(then[3])} | {'; '.join(then[3][:2])[:260]} |" if then else " - | |")
        else:
            line += f" {'; '.join(failed[:3])[:300]} |"
        lines.append(line)
    total_cases, total_failures = sum(r[2] for r in rows), sum(len(r[3]) for r in rows)
    lines += ["", f"Measured {when}, seed {args.seed}, in {time.perf_counter() - started:.0f} s: "
              f"{total_cases:,} cases, {total_failures} failures"
              + (f" (at `{args.base}`, the same cases: {sum(len(r[3]) for r in base.values())} failures)" if base else "")
              + ". The slices of COLT 2019, CoRL 2022 and ICLR 2017 from tests/data, served by "
              "`paperfind serve` from its index and from a synced `milvus-lite server`; every "
              "request over a raw socket."]
    if total_failures:
        lines.append("Failures: " + "; ".join(f for r in rows for f in r[3])[:1500])
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.results import append_results
        append_results("Robustness: the hostile-edge probe (bench/probe.py, issue 34)", text)
    if total_failures:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
