"""The index build of one database by two trees: seconds, peak memory, and whether the files agree.

    .venv/bin/python -m bench.index_build --db DB --base-tree BASE [--tree .] [--rounds 1] [--jobs 1,default]
    .venv/bin/python -m bench.index_build --ann VECTOR_DIR [--ann-rows 40000] [--rounds 1]
    .venv/bin/python -m bench.index_build --people DB --base-tree BASE [--rounds 1]
    .venv/bin/python -m bench.index_build --bm25 INDEX_DIR --base-tree BASE [--rounds 1]

Issue 33 wants a million papers built on this 2-core, 24 GB machine; the build's peak memory
grows with the papers, so a change that cuts it must leave the index as it was. Each tree's
paperfind (its own PYTHONPATH, a process of its own) builds the index of the same database
(opened read-only) into a temporary directory as `paperfind index` does (`build_index`); the
rounds alternate base and tree so the machine's load falls on both alike. Reported per tree:
the build's seconds (median over rounds), its CPU seconds (the process's and its children's),
its peak memory (the PSS of its process tree summed, sampled every 0.5 s or more:
`scale_worker.MemorySampler`, `tree_pss_mb`, which counts the pages a forked child shares with its parent once),
the building process's own peak RSS (maxrss: interpreter, the papers read, the build) and, per
file of the index, whether the tree's bytes are the base's (both with one string hash seed: see
`build_with`).

`--jobs 1,default`: the tree builds once per value of PAPERFIND_INDEX_JOBS listed ("default":
unset), after base, each round in the order of the one before reversed (base, 1, default |
default, 1, base): what a user's choice of processes costs and saves, and that every choice
writes base's files.

`--ann`: the HNSW graph of the first `--ann-rows` stored vectors of a vector directory, built
by this tree's `build_ann` on one OpenMP thread (what base did) and on two
(`Settings.ann_threads`), alternating: seconds and recall@10 against exact search of 200 other
stored vectors as queries (a graph built on threads is not the same graph, so its recall is
the check).

`--people`: the people step of an ingest (`resolve_people`, which re-resolves every author slot
of the store) by each tree on its own copy of the database, alternating: seconds, the process's
peak memory and whether the tables it writes (authors, aliases, each slot's person, each
paper's work) are the base's, row for row.

`--bm25`: the BM25F text matrix alone (`build_bm25f_matrix`, the step that set main's peak at a
million papers), made by each tree from a built index's stored term sequences (title, abstract,
keywords): seconds, the memory the step adds to the process (peak RSS after it less peak RSS
before it) and whether the matrices are the base's, byte for byte.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results import append_results

# run in the child: the tree's own paperfind builds the index; one JSON line of what it cost
CHILD = """
import inspect, json, resource, sys, time
from pathlib import Path
from paperfind.index.manager import build_index
from paperfind.store import Store
given = {}
if "jobs" in inspect.signature(build_index).parameters:  # a tree with PAPERFIND_INDEX_JOBS
    from paperfind.settings import Settings
    given["jobs"] = Settings.from_env().index_jobs
started = time.perf_counter()
with Store(Path(sys.argv[1]), readonly=True) as store:
    target = build_index(store, Path(sys.argv[2]), **given)
seconds = time.perf_counter() - started
cpu = sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
          for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(json.dumps({"seconds": seconds, "target": str(target), "cpu_s": cpu, **given,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# run in the child: the tree's people step over its copy; what it cost and a digest of its tables
PEOPLE_CHILD = """
import hashlib, json, resource, sqlite3, sys, time
from paperfind.store.people import resolve_people
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size=-131072")  # the ingest's (Store.use_large_cache)
started = time.perf_counter()
people = resolve_people(conn)
seconds = time.perf_counter() - started
digest = hashlib.sha256()
for query in ("SELECT id, slug, name, name_fold, profile_id, paper_count FROM authors ORDER BY id",
              "SELECT author_id, alias FROM author_aliases ORDER BY 1, 2",
              "SELECT paper_id, position, author_id FROM paper_authors ORDER BY 1, 2",
              "SELECT id, work_id FROM papers ORDER BY id"):
    for row in conn.execute(query):
        digest.update(repr(row).encode())
print(json.dumps({"seconds": seconds, "people": people, "tables": digest.hexdigest(),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# run in the child: the tree's BM25F matrix of an index's stored sequences; its cost and a digest
BM25_CHILD = """
import hashlib, json, resource, sys, time
from pathlib import Path
import numpy as np
from paperfind.index.analysis import Ragged
from paperfind.index.lexical import TEXT_FIELD_PARAMS, TEXT_K1, build_bm25f_matrix
root = Path(sys.argv[1])

def rows(name):
    indptr, ids = np.load(root / f"seq.{name}.indptr.npy"), np.load(root / f"seq.{name}.indices.npy")
    keep = ids >= 0  # the keywords' breaks between keywords
    kept = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(keep, out=kept[1:])
    return Ragged(kept[indptr], ids[keep].astype(np.int32))

fields = {name: rows(name) for name in TEXT_FIELD_PARAMS}
n_terms = json.loads((root / "params.json").read_text("utf-8"))["n_terms"]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
started = time.perf_counter()
matrix = build_bm25f_matrix(fields, n_terms, TEXT_FIELD_PARAMS, TEXT_K1)
seconds = time.perf_counter() - started
digest = hashlib.sha256()
for array in (matrix.indptr, matrix.indices, matrix.data, matrix.doc_freq):
    digest.update(str(array.dtype).encode() + np.ascontiguousarray(array).tobytes())
print(json.dumps({"seconds": seconds, "before_mb": before, "entries": int(sum(len(r.ids) for r in fields.values())),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "digest": digest.hexdigest()}))
"""


def bm25_table(index_dir: Path, base: Path, tree: Path, rounds: int) -> str:
    """`--bm25`: base's BM25F text matrix against the tree's (see the module's docs)."""
    started, load = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0]
    runs: dict[str, list[dict]] = {"base": [], "tree": []}
    for r in range(rounds):
        for side, code in (("base", base), ("tree", tree)):
            env = {**os.environ, "PYTHONPATH": str(code.resolve())}
            done = subprocess.run([sys.executable, "-P", "-c", BM25_CHILD, str(index_dir)], env=env,
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"the BM25F matrix of {code} failed:\n{done.stderr[-3000:]}")
            runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1} {side}: {runs[side][-1]['seconds']:.1f} s, adds "
                  f"{runs[side][-1]['peak_mb'] - runs[side][-1]['before_mb']:.0f} MB", file=sys.stderr)
    base_s = statistics.median(r["seconds"] for r in runs["base"])
    same = len({r["digest"] for side in runs.values() for r in side}) == 1
    rows = [f"| {side} | {git_head(code)} | {statistics.median(r['seconds'] for r in runs[side]):.1f} "
            f"({statistics.median(r['seconds'] for r in runs[side]) / base_s:.2f}) | "
            f"{max(r['peak_mb'] - r['before_mb'] for r in runs[side]) / 1024:.2f} | "
            f"{'-' if side == 'base' else ('yes' if same else 'NO')} |"
            for side, code in (("base", base), ("tree", tree))]
    return "\n".join([
        f"BM25F text matrix of the stored term sequences of {index_dir} ({runs['base'][0]['entries']:,} "
        f"entries; {rounds} round(s), base and tree alternating), run started {started}, load average "
        f"(1 min) at the start {load:.1f}.", "",
        "| side | code | seconds, median (ratio to base) | memory the step adds, GB | matrix byte-identical to base |",
        "|---|---|---:|---:|---|", *rows])


def people_with(tree: Path, db: Path, tmp: Path) -> dict:
    """The people step of `tree` over a copy of `db` (the copy is removed after)."""
    import shutil

    copy = tmp / "people.db"
    shutil.copy2(db, copy)
    try:
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        done = subprocess.run([sys.executable, "-P", "-c", PEOPLE_CHILD, str(copy)], env=env,
                              capture_output=True, text=True, check=False)
    finally:
        for path in tmp.glob("people.db*"):
            path.unlink()
    if done.returncode != 0:
        raise SystemExit(f"the people step of {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def people_table(db: Path, base: Path, tree: Path, rounds: int) -> str:
    """`--people`: base's people step against the tree's (see the module's docs)."""
    started, load = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0]
    runs: dict[str, list[dict]] = {"base": [], "tree": []}
    with tempfile.TemporaryDirectory(prefix="people-", dir=db.parent) as tmp:
        for r in range(rounds):
            for side, code in (("base", base), ("tree", tree)):
                runs[side].append(people_with(code, db, Path(tmp)))
                print(f"round {r + 1} {side}: {runs[side][-1]['seconds']:.1f} s, "
                      f"peak {runs[side][-1]['peak_mb']:.0f} MB", file=sys.stderr)
    base_s = statistics.median(r["seconds"] for r in runs["base"])
    same = {r["tables"] for r in runs["base"]} == {r["tables"] for r in runs["tree"]} \
        and len({r["tables"] for r in runs["base"]}) == 1
    rows = [f"| {side} | {git_head(code)} | {runs[side][0]['people']:,} | "
            f"{statistics.median(r['seconds'] for r in runs[side]):.1f} "
            f"({statistics.median(r['seconds'] for r in runs[side]) / base_s:.2f}) | "
            f"{max(r['peak_mb'] for r in runs[side]) / 1024:.2f} | "
            f"{'-' if side == 'base' else ('yes' if same else 'NO')} |"
            for side, code in (("base", base), ("tree", tree))]
    return "\n".join([
        f"People step (`resolve_people`) of a copy of {db} ({rounds} round(s), base and tree "
        f"alternating), run started {started}, load average (1 min) at the start {load:.1f}.", "",
        "| side | code | people | seconds, median (ratio to base) | peak RSS GB | tables the same as base's |",
        "|---|---|---:|---:|---:|---|", *rows])


def build_with(tree: Path, db: Path, out: Path, jobs: str | None = None) -> dict:
    """One index build of `db` into `out` by the paperfind of `tree` (with `jobs`, its
    PAPERFIND_INDEX_JOBS; else unset), and the PSS peak of its process tree."""
    from bench.scale_worker import MemorySampler

    # one string hash seed for both: the papers' names table (paper_names.json) lists its keys
    # in an order that follows string hashes (a set per name), the same for the same seed
    env = {k: v for k, v in os.environ.items() if k != "PAPERFIND_INDEX_JOBS"}
    env.update({"PYTHONPATH": str(tree.resolve()), "PYTHONHASHSEED": "0"})
    if jobs is not None:
        env["PAPERFIND_INDEX_JOBS"] = jobs
    proc = subprocess.Popen([sys.executable, "-P", "-c", CHILD, str(db), str(out)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = MemorySampler(proc.pid)
    stdout, stderr = proc.communicate()
    peaks = sampler.stop()
    if proc.returncode != 0:
        raise SystemExit(f"the build by {tree} failed:\n{stderr[-3000:]}")
    return {**json.loads(stdout.strip().splitlines()[-1]), "pss_peak_mb": max(peaks.values(), default=0.0),
            "rss_sum_peak_mb": max(sampler.rss_peaks.values(), default=0.0)}


def differing_files(base: Path, head: Path) -> list[str]:
    """The index files (relative names) whose bytes differ, or that only one side has."""
    names = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}
    names |= {p.relative_to(head).as_posix() for p in head.rglob("*") if p.is_file()}
    return sorted(n for n in names if not ((base / n).is_file() and (head / n).is_file()
                                           and filecmp.cmp(base / n, head / n, shallow=False)))


def ann_threads_table(vectors_dir: Path, rows: int, rounds: int) -> str:
    """`--ann`: the graph on one thread against two (see the module's docs)."""
    import numpy as np

    from paperfind.index.ann import AnnIndex, build_ann
    from paperfind.index.vectors import VectorIndex

    started_at, load = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0]
    matrix = np.asarray(VectorIndex.open(vectors_dir, use_ann=False).matrix, dtype=np.float32)
    if len(matrix) < rows + 200:
        raise SystemExit(f"{vectors_dir} holds {len(matrix)} vectors, --ann-rows {rows} needs {rows + 200}")
    vectors, queries = matrix[:rows], matrix[rows:rows + 200]
    truth = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    seconds: dict[int, list[float]] = {1: [], 2: []}
    recall: dict[int, float] = {}
    for _ in range(rounds):
        for threads in (1, 2):
            with tempfile.TemporaryDirectory(prefix="ann-") as tmp:
                started = time.perf_counter()
                params = build_ann(Path(tmp), vectors, threads=threads)
                seconds[threads].append(time.perf_counter() - started)
                graph, why = AnnIndex.open(Path(tmp), *vectors.shape)
                if graph is None:
                    raise SystemExit(f"the graph did not open: {why}")
                found = [graph.search(q, 10)[0] for q in queries]
                recall[threads] = float(np.mean([len(set(f.tolist()) & set(t.tolist())) / 10
                                                 for f, t in zip(found, truth)]))
                print(f"{threads} thread(s): {seconds[threads][-1]:.1f} s, recall@10 {recall[threads]:.3f}"
                      f" (M={params.m}, efConstruction={params.ef_construction})", file=sys.stderr)
    one = statistics.median(seconds[1])
    return "\n".join([
        f"ANN graph of {rows:,} stored vectors of {vectors_dir} ({rounds} round(s), 1 and 2 threads "
        f"alternating), run started {started_at}, load average "
        f"(1 min) at the start {load:.1f}; recall@10 of 200 other stored vectors against exact.",
        "",
        "| OpenMP threads | build seconds, median (ratio to 1 thread) | recall@10 |",
        "|---|---:|---:|",
        *(f"| {t}{' (base)' if t == 1 else ''} | {statistics.median(seconds[t]):.1f} "
          f"({statistics.median(seconds[t]) / one:.2f}) | {recall[t]:.3f} |" for t in (1, 2))])


def git_head(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return done.stdout.strip() + ("+" if dirty else "") or str(tree)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, help="the database whose index both trees build")
    ap.add_argument("--base-tree", type=Path)
    ap.add_argument("--ann", type=Path, help="a vector directory: time its graph on 1 and 2 threads")
    ap.add_argument("--ann-rows", type=int, default=40_000)
    ap.add_argument("--people", type=Path, help="a database: its people step by base and tree")
    ap.add_argument("--bm25", type=Path, help="an index directory: its BM25F text matrix by base and tree")
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", help="with --db: the tree builds once per PAPERFIND_INDEX_JOBS listed "
                    "(1,default: unset) after base, every round")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    if args.ann is not None:
        if not args.ann.is_dir():
            raise SystemExit(f"no vector directory at {args.ann}")
        _report(args, "ANN graph build on one and two threads (issue 33)",
                ann_threads_table(args.ann, args.ann_rows, args.rounds))
        return
    if args.bm25 is not None:
        if not (args.bm25 / "seq.title.indptr.npy").is_file() or args.base_tree is None:
            raise SystemExit(f"--bm25 needs an index directory with term sequences (not {args.bm25}) and --base-tree")
        table = bm25_table(args.bm25, args.base_tree, args.tree, args.rounds)
        _report(args, f"BM25F text matrix: time, memory, same bytes ({args.bm25}, issue 33)", table,
                "the tree's BM25F matrix differs from the base's" if "| NO |" in table else "")
        return
    if args.people is not None:
        if not args.people.is_file() or args.base_tree is None:
            raise SystemExit(f"--people needs a database file (not {args.people}) and --base-tree")
        table = people_table(args.people, args.base_tree, args.tree, args.rounds)
        _report(args, f"People step: time, peak memory, same tables ({args.people.name}, issue 33)", table,
                "the tree's people tables differ from the base's" if "| NO |" in table else "")
        return
    if args.db is None or args.base_tree is None:
        raise SystemExit("--db and --base-tree (or --ann, --people)")
    if not args.db.is_file():
        raise SystemExit(f"no database at {args.db}")
    jobs = [j.strip() for j in args.jobs.split(",")] if args.jobs else [None]
    for j in jobs:
        if j is not None and j != "default" and not (j.isdigit() and int(j) >= 1):
            raise SystemExit(f"--jobs takes numbers of processes (1 or more) or default, not {j!r}")
    sides = [("base", args.base_tree, None)] + [
        ("tree" if j is None else f"tree, jobs {j}", args.tree, None if j in (None, "default") else j)
        for j in jobs]
    table, differ = build_table(args.db, sides, args.rounds)
    _report(args, f"Index build: time, peak memory, same files ({args.db.name}, issue 33)", table,
            f"the tree's index differs from the base's in {len(differ)} file(s)" if differ else "")


def build_table(db: Path, sides: list[tuple[str, Path, str | None]], rounds: int) -> tuple[str, list[str]]:
    """Each side (label, tree, PAPERFIND_INDEX_JOBS or None) builds `db`'s index `rounds` times,
    each round in the order of the one before reversed; the table, and the files of the index in
    which any side differs from the first."""
    from bench.results import load_average

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = load_average()
    runs: dict[str, list[dict]] = {label: [] for label, _, _ in sides}
    differ: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="index-build-") as tmp:
        targets: dict[str, Path] = {}
        for r in range(rounds):
            for label, tree, jobs in (sides if r % 2 == 0 else sides[::-1]):
                out = Path(tmp) / f"{label.replace(' ', '').replace(',', '-')}-{r}"
                result = build_with(tree, db, out, jobs)
                result["at"] = time.strftime("%H:%M:%S", time.gmtime())
                result["load"] = load_average()
                runs[label].append(result)
                print(f"round {r + 1} {label}: {result['seconds']:.1f} s, CPU {result['cpu_s']:.1f} s, "
                      f"PSS peak {result['pss_peak_mb']:.0f} MB (RSS added {result['rss_sum_peak_mb']:.0f}), "
                      f"RSS peak {result['peak_mb']:.0f} MB "
                      f"(ended {result['at']} UTC, load {result['load']})", file=sys.stderr, flush=True)
                if label not in targets:
                    targets[label] = Path(result["target"])
                else:  # a later round's files, kept only while compared
                    differ.update(differing_files(targets[label], Path(result["target"])))
                    shutil.rmtree(out)
        first = sides[0][0]
        same = {label: differing_files(targets[first], targets[label]) for label, _, _ in sides[1:]}
        differ.update(n for d in same.values() for n in d)
        files = sum(1 for p in targets[first].rglob("*") if p.is_file())
    first_s = statistics.median(r["seconds"] for r in runs[first])
    rows = []
    for label, tree, jobs in sides:
        seconds = statistics.median(r["seconds"] for r in runs[label])
        cpu = statistics.median(r["cpu_s"] for r in runs[label])
        pss = max(r["pss_peak_mb"] for r in runs[label])
        peak = max(r["peak_mb"] for r in runs[label])
        rss_sum = max(r["rss_sum_peak_mb"] for r in runs[label])
        d = same.get(label)
        shown = "-" if d is None else (f"all {files}" if not d else
                                       f"{files - len(d)} of {files}; differ: {', '.join(d[:8])}")
        given = runs[label][0].get("jobs")  # the Settings.index_jobs the build was given
        shown_jobs = (jobs or "unset") + (f" (index_jobs {given})" if jobs is None and given else "")
        rows.append(f"| {label} | {git_head(tree)} | {shown_jobs} | {seconds:.1f} ({seconds / first_s:.2f}) | "
                    f"{cpu:.1f} | {pss / 1024:.2f} | {rss_sum / 1024:.2f} | {peak / 1024:.2f} | {shown} |")
    runs_line = "; ".join(label + " " + ", ".join(f"{r['seconds']:.1f} s ended {r['at']} (load {r['load']})"
                                                  for r in runs[label]) for label, _, _ in sides)
    table = "\n".join([
        f"Database {db} ({rounds} round(s), the sides alternating), run started {started}, load "
        f"average (1 / 5 / 15 min) at the start {load}; each build: {runs_line} (UTC).",
        "",
        f"| side | code | PAPERFIND_INDEX_JOBS | build seconds, median (ratio to {first}) | CPU s, median "
        f"(with children) | peak memory GB (PSS of the process tree) | peak of the tree's RSS added, GB "
        f"(the old sampler's) | peak RSS GB (building process) | files byte-identical to {first} (every round) |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
        *rows])
    return table, sorted(differ)


def _report(args, heading: str, table: str, differs: str = "") -> None:
    """Print a mode's table, record it in RESULTS.md under `heading` (unless --no-write), and
    exit non-zero with `differs` when the tree's output is not the base's: recorded either way,
    so a difference is on file as well as on the screen."""
    print(table)
    if not args.no_write:
        append_results(heading, table)
    if differs:
        raise SystemExit(differs)


if __name__ == "__main__":
    main()
