"""Ingest benchmark: wall time and peak memory of `paperfind ingest` on the real data.

Each row runs the real CLI in a fresh process (so peak RSS is that process's own, a reader
worker's included), against a fresh database unless it says re-ingest. Two baselines are
measured in the same run: the bare reading of the same files by the readers, with no database
(the ratio says what storing, merging and resolving people cost on top of parsing), and the
ingest with `--jobs 1`, reading and writing in one process (the speed-up of reading ahead).

    python -m bench.ingest                 # paperlists (87,885 records) and default corpus
    python -m bench.ingest --with-extra    # also paperlists + extra, and scripts/build-corpus's files
    python -m bench.ingest --with-extra --only build-corpus,extra --no-one-job   # just those two
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpus
from bench.corpus import DATA, REPO


def default_corpus_files() -> list[str]:
    return [str(path) for path in corpus.files("default")]


def run_measured(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) of this child alone (wait4), and its output."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, text=True, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read()
    if proc.returncode not in (0, 1):
        sys.exit(f"failed: {' '.join(args)}\n{text[-2000:]}")
    return wall, usage.ru_maxrss / 1024, text


READ_ONLY = """
import sys, time
from pathlib import Path
from paperfind.ingest.readers import choose_reader
from paperfind.ingest.run import discover
n = 0
for path in discover([Path(p) for p in sys.argv[1:]]):
    n += sum(1 for _ in choose_reader(path).read(path))
print(n)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-extra", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave RESULTS.md.")
    parser.add_argument("--only", default="", help="comma-separated parts of the data names to run")
    parser.add_argument("--no-one-job", action="store_true",
                        help="skip the --jobs 1 baseline (the read-only baseline stays)")
    args = parser.parse_args()
    python = sys.executable
    cli = [python, "-m", "paperfind.cli"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sets = [("default corpus (55 files)", default_corpus_files()),
                ("paperlists (213 files)", [str(DATA / "paperlists")])]
        if args.with_extra:
            sets.append(("paperlists + extra (all of ../shared/data)",
                         [str(DATA / "paperlists"), str(DATA / "extra")]))
            sets.append(("scripts/build-corpus's files (paperlists 2013+ of 8 venues, extra)",
                         default_corpus_files() + [str(DATA / "extra")]))
        bundled = REPO / "paperfind" / "data" / "corpus"
        if bundled.exists():  # what `paperfind serve` does on a fresh clone
            sets.append(("bundled corpus (first start of serve)", [str(bundled)]))
        wanted = [w for w in args.only.split(",") if w]
        sets = [(n, p) for n, p in sets if not wanted or any(w in n for w in wanted)]
        for name, paths in sets:
            db = Path(tmp) / f"{len(rows)}.db"
            read_s, read_mb, out = run_measured([python, "-c", READ_ONLY, *paths])
            one = Path(tmp) / f"{len(rows)}-one.db"
            if args.no_one_job:
                one_s, one_mb, out_one = float("nan"), float("nan"), ""
            else:
                one_s, one_mb, out_one = run_measured(cli + ["ingest", "--db", str(one), "--no-index",
                                                             "--jobs", "1", *paths])
            for stale in Path(tmp).glob(one.name + "*"):
                stale.unlink()
            fresh_s, fresh_mb, out = run_measured(cli + ["ingest", "--db", str(db), "--no-index",
                                                         *paths])
            summary = next((line for line in out.splitlines() if line.startswith("database:")), "")
            again_s, again_mb, _ = run_measured(cli + ["ingest", "--db", str(db), "--no-index",
                                                       *paths])
            index_s, index_mb, _ = run_measured(cli + ["index", "--db", str(db)])
            size_mb = db.stat().st_size / 2**20
            same = args.no_one_job or summary == next((line for line in out_one.splitlines()
                                                       if line.startswith("database:")), None)
            rows.append((name, read_s, one_s, fresh_s, one_s / fresh_s, again_s, index_s,
                         one_mb, fresh_mb, size_mb,
                         summary.replace("database: ", "") + ("" if same else " (1 job: differs)")))
    header = ("| data | read only s (baseline) | ingest --jobs 1 s (baseline) | ingest s | "
              "speed-up | re-ingest unchanged s | index build s | peak RSS MiB 1 job / default | "
              "db MiB | result |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    lines = [f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.2f}x | {r[5]:.1f} | "
             f"{r[6]:.1f} | {r[7]:.0f} / {r[8]:.0f} | {r[9]:.0f} | {r[10]} |" for r in rows]
    load = os.getloadavg()
    table = "\n".join([header, *lines])
    print(table)
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    if args.no_write:
        return
    stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    with open(REPO / "bench" / "RESULTS.md", "a", encoding="utf-8") as fh:
        fh.write(f"\n## Ingest ({stamp}, `python -m bench.ingest{' --with-extra' if args.with_extra else ''}`)\n\n"
                 f"2 cores, load average at the end {load[0]:.1f}. Each step is a fresh process.\n\n"
                 f"{table}\n")


if __name__ == "__main__":
    main()
