"""The first query of each kind after `paperfind serve` starts: is "serving" really ready?

Restarts the server `--restarts` times on one database built from the bundled corpus (vectors
and HNSW graph in place, as after a first start) and, as soon as the port accepts, asks one
query of each kind (a title, an author name, Chinese, a natural-language question, a
filter-only query) through the search page, timing each. The order of the kinds rotates from
restart to restart, so each kind is the very first request once in five. The queries differ
from the server's own warm-up queries, so no answer comes from its result cache.

The baseline is main's code on the same database in the same run (a detached git worktree of
`--baseline-ref`, run with this venv's interpreter), restarted alternately with this tree's.
Also timed: process start → the serving line, and that line → the port accepting.

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.first_query [--restarts 5]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from bench.corpus import CACHE as OUT, REPO
from bench.results import append_results
from bench.server import free_port, wait_for_port

KINDS = (
    ("title", "Denoising Diffusion Probabilistic Models"),
    ("author", "Yoshua Bengio"),
    ("chinese", "图神经网络的过平滑问题"),
    ("question", "how do transformers generalize to longer sequences than seen in training?"),
    ("filter-only", "venue:iclr year:2024"),
)


def prepare_database(db: Path) -> None:
    """Build `db` from the bundled corpus with its vectors and their HNSW graph, as a first
    start leaves it once its background work is done."""
    from paperfind.core import Paperfind
    from paperfind.index.vectors import ensure_ann
    from paperfind.settings import Settings

    app = Paperfind(Settings(db_path=db))
    app.ensure_database(progress=False)
    ensure_ann(app.settings.vector_dir)
    app.update_vectors(progress=False)  # nothing to embed: leaves the state a restart finds


def one_start(src: Path, db: Path, order: list[tuple[str, str]]) -> dict[str, float]:
    """Start the server of source tree `src`, time its start and the first query of each kind (ms)."""
    port = free_port()
    env = dict(os.environ, PAPERFIND_DB=str(db), PAPERFIND_PORT=str(port), PYTHONPATH=str(src),
               PYTHONUNBUFFERED="1")
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "paperfind.cli", "serve"], cwd=src, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    times: dict[str, float] = {}
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            if "serving" in line:
                break
        line_at = time.perf_counter()
        times["start→line"] = (line_at - started) * 1000
        wait_for_port(port, proc)
        times["line→port"] = (time.perf_counter() - line_at) * 1000
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for kind, query in order:
            t = time.perf_counter()
            conn.request("GET", "/?" + urllib.parse.urlencode({"q": query}))
            response = conn.getresponse()
            body = response.read()
            times[kind] = (time.perf_counter() - t) * 1000
            if response.status != 200 or b"result" not in body:
                raise RuntimeError(f"{kind} query {query!r}: HTTP {response.status}")
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return times


def baseline_tree(ref: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(where), ref],
                   check=True, capture_output=True)
    return where


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, default=OUT / "first_query" / "paperfind.db")
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--baseline-ref", default="main", help="git ref of the baseline (default main)")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="a source tree to use as the baseline instead of a worktree of the ref")
    args = ap.parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    prepare_database(args.db)
    tmp = None
    if args.baseline_src is None:
        tmp = tempfile.mkdtemp(prefix="paperfind-baseline-")
        baseline = baseline_tree(args.baseline_ref, Path(tmp) / "src")
    else:
        baseline = args.baseline_src
    variants = {f"{args.baseline_ref} (baseline)": baseline, "this tree": REPO}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    try:
        for n in range(args.restarts):
            order = list(KINDS[n % len(KINDS):] + KINDS[:n % len(KINDS)])
            for name, src in variants.items():
                times = one_start(src, args.db, order)
                runs[name].append(times)
                print(f"restart {n + 1} {name}: " +
                      "  ".join(f"{k} {v:.0f}" for k, v in times.items()), flush=True)
    finally:
        if tmp is not None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(Path(tmp) / "src")], capture_output=True)
    columns = ["start→line", "line→port"] + [kind for kind, _ in KINDS]
    lines = [f"{args.restarts} restarts of `paperfind serve` on the bundled corpus "
             f"({time.strftime('%Y-%m-%d %H:%M')}, `python -m bench.first_query`); ms, "
             "median / max over the restarts. Each kind is the very first request once "
             "(the order rotates); the queries go to the search page (`/?q=`).", "",
             "| code | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for name, rows in runs.items():
        cells = []
        for column in columns:
            values = [r[column] for r in rows]
            cells.append(f"{statistics.median(values):.0f} / {max(values):.0f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Queries: " + "; ".join(f"{k}: `{q}`" for k, q in KINDS) + "."]
    table = "\n".join(lines)
    print(table)
    append_results("Start-up: the first query of each kind after a restart (bench/first_query.py, issue 13)",
                   table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
