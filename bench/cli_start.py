"""A lexical `paperfind search` from the shell: wall and CPU time of the whole command (issue 29).

    .venv/bin/python -m bench.cli_start [--db bench/out/bundled.db] [--runs 5] [--base /work/main]

Each CLI search is a new process, so start-up is most of it: the imports, opening the index,
and (before this bench) the vectors and the query model a lexical search never uses. The base
tree (`--base`, main's checkout) and the working tree run the same commands, interleaved, in
the same run; the figure is the median of `--runs` runs each, as hyperfine reports it. Byte
code is cached under a prefix of its own (`PYTHONPYCACHEPREFIX`), as an installed paperfind
has it, so neither tree pays compilation.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results import append_results

HERE = Path(__file__).resolve().parent
QUERIES = ("LoRA", "attention is all you need", "author:bengio")


def _run(tree: Path, db: Path, query: str, cache: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one `paperfind search --mode lexical` with `tree` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONPYCACHEPREFIX": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "paperfind.cli", "search", query, "--mode",
                           "lexical", "--db", str(db.resolve())], capture_output=True, text=True,
                          env=env, timeout=300, cwd=cache.parent)  # not a tree: `-m` puts the cwd first
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: search {query!r} failed:\n{proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=HERE / "out" / "bundled.db")
    parser.add_argument("--base", type=Path, default=Path("/work/main"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this tree": HERE.parent}
    with tempfile.TemporaryDirectory(prefix="pf-pyc-") as tmp:
        caches = {name: Path(tmp) / name.replace(" ", "-") for name in trees}
        for name, tree in trees.items():  # compile once, not timed
            _run(tree, args.db, QUERIES[0], caches[name])
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for query in QUERIES:
                for name, tree in trees.items():
                    times.setdefault((name, query), []).append(_run(tree, args.db, query, caches[name]))
    load = os.getloadavg()[0]
    rows = ["| query | base wall s | this tree wall s | base CPU s | this tree CPU s |",
            "|---|---:|---:|---:|---:|"]
    for query in QUERIES:
        med = {name: (statistics.median(w for w, _ in times[name, query]),
                      statistics.median(c for _, c in times[name, query])) for name in trees}
        rows.append(f"| `{query}` | {med['base'][0]:.2f} | {med['this tree'][0]:.2f} | "
                    f"{med['base'][1]:.2f} | {med['this tree'][1]:.2f} |")
    table = "\n".join(rows) + (
        f"\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `python -m bench.cli_start`: "
        f"`paperfind search QUERY --mode lexical --db {args.db}`, median of {args.runs} runs a "
        f"tree, interleaved; base = {trees['base']}; CPU = user + system of the process; load "
        f"average at the end {load:.1f} (2 cores shared: the wall times move with it, the CPU "
        "times much less).\n")
    print(table)
    if not args.no_write:
        append_results("A lexical CLI search: start-up, before and after (issue 29)", table)


if __name__ == "__main__":
    main()
