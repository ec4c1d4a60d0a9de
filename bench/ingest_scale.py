"""The ingest of a fresh database at scale (issue 33), a base tree against this one, one after the other.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.ingest_scale \\
        --base-tree /work/wt/base-main [--sizes bundled,250k,500k] [--cache DIR]

Each size is bench.scale's corpus (bench/scale_corpus.py: the bundled corpus's real records plus
deterministic copies; `bundled` is the bundled shards themselves, written as a first start writes
them, without WAL under a temporary name). Per tree, a fresh process of that tree's code ingests
it into a new database (reading ahead with the default two jobs, then resolving people, as
`paperfind ingest --no-index` does): wall seconds, CPU seconds (the process and its readers),
peak RSS, the -wal file's peak size (sampled), the database's size, and the report's steps.
Then every table of the two databases is compared row for row, ordered by primary key (the
ingest's own clock, `sources.ingested_at` and `migrations.applied_at`, left out): the column
says whether the two trees wrote the same database. Each database is deleted once digested,
so one large database is on disk at a time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.corpus import BUNDLED, CACHE, REPO
from bench.results import append_results, load_average
from bench.scale_corpus import ensure_corpus, parse_size, size_label

RESULTS_HEADING = "Ingest at scale, base tree vs this one (issue 33, bench.ingest_scale)"

WORKER = """
import json, sys, time
from pathlib import Path
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
db, corpus, building = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
started = time.perf_counter()
store = Store(db, building=building)
report = ingest_paths(store, [corpus], progress=False, jobs=2)
papers = store.paper_count()
store.close()
print(json.dumps({"wall": time.perf_counter() - started, "papers": papers,
                  "failed": len(report.failed), "timings": report.timings}))
"""


def python_of(tree: Path) -> str:
    own = tree / ".venv" / "bin" / "python"
    return str(own) if own.exists() else sys.executable


def table_digests(db: Path) -> dict[str, str]:
    """Each table's rows in primary-key order, hashed; the ingest's clock left out."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        digests = {}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                    "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall():
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({name})")
                       if (name, row[1]) not in {("sources", "ingested_at"), ("migrations", "applied_at")}]
            keys = [row[1] for row in sorted(conn.execute(f"PRAGMA table_info({name})"),
                                             key=lambda r: r[5]) if row[5] > 0]
            order = ", ".join(keys) if keys else "rowid"
            digest = hashlib.sha256()
            rows = 0
            for row in conn.execute(f"SELECT {', '.join(columns)} FROM {name} ORDER BY {order}"):
                digest.update(repr(row).encode())
                rows += 1
            digests[name] = f"{rows}:{digest.hexdigest()[:16]}"
        return digests
    finally:
        conn.close()


def ingest_once(tree: Path, corpus: Path, db: Path, building: bool) -> dict:
    """One fresh ingest by `tree`'s code in a process of its own, measured from outside."""
    wal = Path(f"{db}-wal")
    peak = {"wal": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            try:
                peak["wal"] = max(peak["wal"], wal.stat().st_size)
            except OSError:
                pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([python_of(tree), "-c", WORKER, str(db), str(corpus),
                                 "1" if building else "0"], stdout=out, stderr=subprocess.STDOUT,
                                env=env, cwd=tree)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
        out.seek(0)
        text = out.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"ingest by {tree} failed:\n{text[-3000:]}")
    result = json.loads(text.strip().splitlines()[-1])
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    return {**result, "outer_wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "wal_mb": peak["wal"] / 2**20, "db_mb": size / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-tree", type=Path, help="without it, this tree alone (nothing compared)")
    parser.add_argument("--shards", type=Path, help="a generated corpus's shards folder made before "
                        "(read only), for the one size of --sizes")
    parser.add_argument("--sizes", default="bundled,250k,500k")
    parser.add_argument("--cache", type=Path, default=CACHE / "scale")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    args = parser.parse_args()
    trees = ([("base", args.base_tree.resolve())] if args.base_tree else []) + [("this tree", REPO)]
    rows = []
    for size in args.sizes.split(","):
        if size == "bundled":
            corpus, building, label = BUNDLED, True, "bundled (first start)"
        else:
            n = parse_size(size)
            if args.shards:
                corpus = args.shards.parent
            else:
                corpus, _ = ensure_corpus(BUNDLED, n, args.seed,
                                          args.cache / f"corpus-{size_label(n)}-seed{args.seed}")
            corpus, building, label = corpus / "shards", False, size_label(n)
        digests = {}
        for name, tree in trees:
            with tempfile.TemporaryDirectory(dir=args.cache) as tmp:
                db = Path(tmp) / "paperfind.db"
                measured = ingest_once(tree, corpus, db, building)
                digests[name] = table_digests(db)
            rows.append((label, name, measured))
            t = measured["timings"]
            print(f"{label} {name}: {measured['outer_wall']:.0f} s, store writes "
                  f"{t.get('store writes', 0):.0f} s, people {t.get('people', 0):.0f} s", flush=True)
        if "base" not in digests:
            rows[-1][2]["same"] = "(no base in this run)"
            continue
        same = digests["base"] == digests["this tree"]
        differing = sorted(k for k in digests["base"] if digests["base"][k] != digests["this tree"].get(k))
        rows[-1][2]["same"] = "yes, every table" if same else f"no: {', '.join(differing)}"
    header = ("| papers | tree | wall s | store writes s | corpus read (wait) s | people s | CPU s | "
              "peak RSS MiB | WAL peak MiB | db MiB | same rows as base |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    lines = []
    for label, name, m in rows:
        t = m["timings"]
        lines.append(f"| {label} ({m['papers']:,}) | {name} | {m['outer_wall']:.0f} | "
                     f"{t.get('store writes', 0):.0f} | {t.get('corpus read', 0):.0f} | "
                     f"{t.get('people', 0):.0f} | {m['cpu']:.0f} | {m['rss_mb']:.0f} | "
                     f"{m['wal_mb']:.0f} | {m['db_mb']:.0f} | {m.get('same', '')} |")
    load = load_average()
    table = "\n".join([header, *lines])
    print(table)
    print(f"load average at the end {load}")
    if args.no_write:
        return
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    append_results(RESULTS_HEADING,
                   f"{stamp}, `python -m bench.ingest_scale --base-tree {args.base_tree} --sizes "
                   f"{args.sizes}` under the heavy lock; 2 cores shared with three other engineers, "
                   f"load average at the end {load}. Each row a "
                   f"fresh process of that tree's code; base and this tree one after the other.\n\n"
                   f"{table}\n")


if __name__ == "__main__":
    main()
