"""Fast at every size (issue 33): build time, disk, memory and latency as the corpus grows.

    .venv/bin/python -m bench.scale [--sizes 250k,500k,1m] [--tree PATH] [--reuse] [--n 60]

At each size a scale corpus (bench/scale_corpus.py: every real record of the bundled corpus
plus copies with perturbed titles, keys, abstracts, authors and years, made deterministically
from `--seed`) is built by the paperfind of `--tree` (default: this checkout) in a process of
its own (bench/scale_worker.py): ingest, people, index, vectors (the originals' bundled vectors,
perturbed for the copies, since the CPU model embeds ~40 texts a second: the run measures that
rate and says what a million would take) and the ANN graph the product builds over them.
Then a fresh `paperfind serve` of that tree answers, per query kind (title with typos, author
name, TL;DR question, Chinese, short name: title_typo_dev, author_dev, tldr_dev, zh_dev,
bench/nickname_dev.jsonl), each query once in lexical and in the default (hybrid) mode: the
server's own time (`took_ms`) p50 / p95 and the HTTP p95 a client measures; and the serving
process's resident memory after the run.

The baseline of the same run is the bundled corpus itself (156,427 papers today: the generator's
smallest size, its real records alone), built and served the same way: every row's ratio is to it.

Generated corpora are kept under `--cache` (default $PAPERFIND_BENCH_CACHE or bench/out, in
`scale/`) and reused while their manifest matches (seed, size, generator); `--reuse` also keeps
a size's built database, index and vectors per tree and serves them again instead of building
(the build's figures then come from the stored result of the build that made them).
Builds run under `flock /tmp/paperfind-heavy.lock nice` (each its own wait, or the whole run's
with `--locked` under an outer flock), the timing under the timing lock.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.corpus import BUNDLED, BUNDLED_VECTORS, CACHE, REPO, load_set
from bench.metrics import p50_p95
from bench.results import append_results
from bench.scale_corpus import ensure_corpus, parse_size, read_records, size_label
from bench.scale_worker import OLD_SAMPLED_PEAKS, SAMPLED_PEAKS

KINDS = ("title with typos", "author name", "TL;DR question", "Chinese", "short name")
MODES = ("lexical", "hybrid")
WORKER = Path(__file__).resolve().with_name("scale_worker.py")
RESULTS_HEADING = "Cost growth with the corpus, the bundled corpus to 1M papers (issue 33)"
HEAVY, TIMING = "/tmp/paperfind-heavy.lock", "/tmp/paperfind-timing.lock"


def queries(n: int) -> dict[str, list[str]]:
    nick = [json.loads(line)["query"] for line in
            (REPO / "bench" / "nickname_dev.jsonl").read_text("utf-8").splitlines() if line.strip()]
    return {"title with typos": [it["query"] for it in load_set("title_typo_dev")][:n],
            "author name": [it["query"] for it in load_set("author_dev")][:n],
            "TL;DR question": [it["query"] for it in load_set("tldr_dev")][:n],
            "Chinese": [it["query"] for it in load_set("zh_dev")][:n],
            "short name": nick[:n]}


def python_of(tree: Path) -> str:
    own = tree / ".venv" / "bin" / "python"
    return str(own) if own.exists() else sys.executable


def tree_env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}


def tree_id(tree: Path) -> str:
    """The last commit of the tree's paperfind/ (and `-dirty` with uncommitted changes there):
    which code built a database (a commit of the benches alone builds the same)."""
    head = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h", "--", "paperfind"],
                          capture_output=True, text=True).stdout.strip() or "nogit"
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--", "paperfind"],
                           capture_output=True, text=True).stdout.strip()
    return head + ("-dirty" if dirty else "")


HOLDING_HEAVY = os.environ.get("PAPERFIND_SCALE_LOCKED") == "1"  # see --locked


def heavy_prefix() -> list[str]:
    """How a build is run: under the heavy lock, unless this run holds it already (--locked)."""
    return ["nice"] if HOLDING_HEAVY else ["flock", HEAVY, "nice"]


def run_build(tree: Path, corpus: Path, build_dir: Path, seed: int, vectors: bool = True,
              index_jobs: int | None = None) -> dict:
    """The worker's build of `corpus` into `build_dir`, under the heavy lock; its result
    (without `vectors`: the database and index alone; `index_jobs`: the build's
    `Settings.index_jobs`, else the tree's default)."""
    result_file = build_dir / "build.json"
    shutil.rmtree(build_dir, ignore_errors=True)
    build_dir.mkdir(parents=True)
    cmd = [*heavy_prefix(), python_of(tree), "-P", str(WORKER), "build",
           "--db", str(build_dir / "paperfind.db"), "--shards", str(corpus / "shards"),
           "--origins", str(corpus / "origins.tsv"), "--seed", str(seed)]
    if vectors:
        cmd += ["--bundled-vectors", str(BUNDLED_VECTORS)]
    if index_jobs:
        cmd += ["--index-jobs", str(index_jobs)]
    started = time.perf_counter()
    with open(build_dir / "build.log", "w") as log:
        done = subprocess.run(cmd, cwd=tree, env=tree_env(tree), stdout=subprocess.PIPE, stderr=log, text=True)
    if done.returncode != 0:
        raise SystemExit(f"build failed ({done.returncode}); see {build_dir / 'build.log'}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - started
    result_file.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    return result


def embed_rate(tree: Path, db: Path) -> dict:
    cmd = [*heavy_prefix(), python_of(tree), "-P", str(WORKER), "embed-rate", "--db", str(db)]
    done = subprocess.run(cmd, cwd=tree, env=tree_env(tree), capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def rss_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (peak) of a process and its children, MB."""
    def status(p: int) -> dict[str, float]:
        out = {}
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                out[name] = int(value.split()[0]) / 1024
        return out

    pids = [pid]
    try:
        pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    total = {"VmRSS": 0.0, "VmHWM": 0.0}
    for p in pids:
        for k, v in status(p).items():
            total[k] += v
    return {"rss": total["VmRSS"], "peak": total["VmHWM"]}


def serve_and_time(tree: Path, db: Path, qs: dict[str, list[str]]) -> dict:
    """A fresh `paperfind serve` of the tree on `db`: per (kind, mode) the times, and its memory."""
    from bench.search_latency import time_sides
    from bench.server import free_port, start_server, stop_server, wait_idle

    port = free_port()
    env = {"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    proc = start_server(db, port, env=env, cwd=tree, timeout=1800)
    start_s = time.perf_counter() - started
    try:
        memory_start = rss_mb(proc.pid)
        # a server answers before its start-up work is over: time the searches, not that work
        idle_s = wait_idle([proc], timeout=1800)
        times = time_sides({"this": port}, qs)["this"]
        memory = rss_mb(proc.pid)
    finally:
        stop_server(proc)
    return {"start_s": start_s, "idle_s": idle_s, "rss_start": memory_start, "rss": memory,
            "times": {f"{kind}|{mode}": t for (kind, mode), t in times.items()}}


def serve_built(tree: Path, db: Path, qs, cache: Path) -> dict:
    """The baseline row from a database built beforehand (`--baseline-db`: a copy of it, with its
    index and vectors, served; the source is never written): serving figures only."""
    from bench.corpus import copy_database

    into = cache / "baseline-served"
    shutil.rmtree(into, ignore_errors=True)
    copy = copy_database(db, into)
    try:
        with TimingLock():
            served = serve_and_time(tree, copy, qs)
    finally:
        shutil.rmtree(into, ignore_errors=True)
    print(f"bundled (served from {db}): RSS {served['rss']['rss']:.0f} MB", file=sys.stderr, flush=True)
    return {"label": "bundled", "size": None, "build": None, "served": served, "load": os.getloadavg(),
            "tree": str(tree), "tree_id": tree_id(tree), "served_from": str(db)}


class TimingLock:
    """The timing lock, held while a server is timed (others' latency runs wait, as ours do)."""

    def __enter__(self):
        self.fh = open(TIMING, "a")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def measure(tree: Path, size: int, label: str, seed: int, cache: Path, reuse: bool, qs,
            rate: bool = False, serve: bool = True, index_jobs: int | None = None) -> dict:
    """Build (or reuse) and serve one size (without `serve`: build only); with `rate`, the
    model's documents a second too; `index_jobs` as `run_build` takes it."""
    corpus, made = ensure_corpus(BUNDLED, size, seed, cache / f"corpus-{label}-seed{seed}")
    print(f"{label}: corpus {'generated' if made else 'reused'} at {corpus}", file=sys.stderr, flush=True)
    build_dir = cache / (f"build-{label}-seed{seed}-{tree_id(tree)}{'' if serve else '-index'}"
                         + (f"-jobs{index_jobs}" if index_jobs else ""))
    if reuse and (build_dir / "build.json").exists():
        build = json.loads((build_dir / "build.json").read_text("utf-8"))
        print(f"{label}: build reused from {build_dir}", file=sys.stderr, flush=True)
    else:
        build = run_build(tree, corpus, build_dir, seed, vectors=serve, index_jobs=index_jobs)
        print(f"{label}: built in {build['wall_s']:.0f} s", file=sys.stderr, flush=True)
    served = None
    if serve:
        with TimingLock():
            served = serve_and_time(tree, build_dir / "paperfind.db", qs)
        print(f"{label}: served, RSS {served['rss']['rss']:.0f} MB", file=sys.stderr, flush=True)
    result = {"label": label, "size": size, "build": build, "served": served, "load": os.getloadavg(),
              "tree": str(tree), "tree_id": tree_id(tree)}
    if rate:
        result["embed_rate"] = embed_rate(tree, build_dir / "paperfind.db")
    (build_dir / "measured.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    if not reuse:
        for path in build_dir.glob("paperfind.db*"):  # the disk is shared: keep only the figures
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return result


def stored_results(trees: list[Path], sizes: list[tuple[int, str]], seed: int, cache: Path) -> list[dict]:
    """What earlier runs measured (each build's measured.json), in the order a run makes them;
    a size a run did not finish is left out, and said."""
    out = []
    for _, label in sizes:
        for i, tree in enumerate(trees):
            name = f"build-{label}-seed{seed}-{tree_id(tree)}{'' if i == 0 else '-index'}"
            found = cache / name / "measured.json"
            if found.exists():
                out.append(json.loads(found.read_text("utf-8")))
            else:
                print(f"{label}: nothing measured in {found.parent}", file=sys.stderr)
    return out


def tables(results: list[dict], rate: dict | None, tree: Path) -> str:
    # ratios are to the bundled corpus's row of the same tree ("-" for a tree without one)
    first = {r.get("tree_id", ""): r for r in results if r["label"] == "bundled"}

    def ratio(value: float, of: float) -> str:
        return f"{value / of:.2f}" if of else "-"

    def papers(r: dict) -> str:
        return f"{r['build']['papers']:,}" if r["build"] else f"{r['label']} (served from a built copy)"

    lines = ["Build (seconds per step; peak memory of the building process tree: its PSS summed, shared "
             "pages once, `scale_worker.tree_pss_mb`; a figure marked * is from a build recorded before "
             "that sampler, the RSS of the process and its children added, which counts pages a child "
             "shares with its parent twice) and disk:", "",
             "| papers | tree | ingest: read + store writes | people | index | of which: docs / people files / text "
             "files / name mining | vectors + ANN graph | ingest + index (ratio) | peak build memory GB (step) | "
             "database GB | index GB | vectors GB |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if not r["build"]:  # served from a database built beforehand (--baseline-db)
            continue
        b, t, base = r["build"], r["build"]["timings"], first.get(r.get("tree_id", ""), r)
        names = t.get("index: build_paper_name_files", 0)
        steps = " / ".join(f"{v:.0f}" for v in (  # the text files' own time: without the names in them
            t.get("index: index_docs", 0), t.get("index: build_people_files", 0),
            t.get("index: build_text_files", 0) - names, names))
        old = SAMPLED_PEAKS not in b["peak_mb"]
        steps_peak = b["peak_mb"].get(SAMPLED_PEAKS, b["peak_mb"].get(OLD_SAMPLED_PEAKS, {}))
        peak = max([m["self"] for m in b["peak_mb"].values() if "self" in m] + list(steps_peak.values())) / 1024
        where = max(steps_peak, key=steps_peak.get).removeprefix("index: ") if steps_peak else "?"
        lines.append(
            f"| {b['papers']:,} | {r.get('tree_id', '')} | {t.get('corpus read', 0) + t.get('store writes', 0):.0f} | {t.get('people', 0):.0f} "
            f"| {t.get('index', 0):.0f} | {steps} | {t.get('vectors: update + ANN graph', 0):.0f} "
            f"| {b['ingest_and_index_s']:.0f} ({ratio(b['ingest_and_index_s'], base['build']['ingest_and_index_s']) if r['tree_id'] in first and base['build'] else '-'}) "
            f"| {peak:.1f}{'*' if old and steps_peak else ''} ({where}) | {b['disk']['database'] / 2**30:.2f} | {b['disk']['index'] / 2**30:.2f} "
            f"| {b['disk']['vectors'] / 2**30:.2f} |")
    lines += ["", "Serving: a fresh `paperfind serve` (1 worker), its resident memory after the timed "
              "queries, and per kind the server's time p50 / p95 and the HTTP p95 (ms), lexical | "
              "default (hybrid); the ratio is HTTP p95 to the baseline's (first row):", "",
              "| papers | tree | RSS GB (peak) | kind | lexical server p50 / p95 | HTTP p95 (ratio) | hybrid server "
              "p50 / p95 | HTTP p95 (ratio) |", "|---|---|---:|---|---|---:|---|---:|"]
    for r in results:
        if not r["served"]:
            continue
        s, base = r["served"], first.get(r.get("tree_id", ""), r)
        for kind in KINDS:
            cells = []
            for mode in MODES:
                t = s["times"][f"{kind}|{mode}"]
                s50, s95 = p50_p95(t["server"])
                h95 = p50_p95(t["http"])[1]
                b95 = p50_p95(base["served"]["times"][f"{kind}|{mode}"]["http"])[1]
                cells.append(f"{s50:.1f} / {s95:.1f} | {h95:.1f} ({ratio(h95, b95)})")
            lines.append(f"| {papers(r)} | {r.get('tree_id', '')} | {s['rss']['rss'] / 1024:.2f} ({s['rss']['peak'] / 1024:.2f}) "
                         f"| {kind} | {' | '.join(cells)} |")
    if rate:
        million = 1_000_000 / rate["docs_per_s"] / 3600
        lines += ["", f"The CPU model embeds {rate['docs_per_s']:.1f} documents a second here ({rate['texts']} "
                  f"texts, {rate['threads']} threads, title + 24 abstract words): a million would take "
                  f"{million:.1f} hours, so the copies take their original's vector, perturbed."]
    loads = ", ".join(f"{r['label']} {r['load'][0]:.1f}" for r in results if r.get("load"))
    lines += ["", f"Tree: {tree} ({tree_id(tree)}); load average (1 min) when each size was done: {loads}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="250k,500k,1m", help="sizes beyond the baseline (250k, 500k, 1m, 12000)")
    ap.add_argument("--tree", type=Path, default=REPO, help="the checkout whose paperfind builds and serves")
    ap.add_argument("--base-tree", type=Path, help="also build each size with this checkout (a base "
                    "ref's worktree), in the same run: the build's before and after (served: --tree only)")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--index-jobs", type=int, help="the --tree's builds with this PAPERFIND_INDEX_JOBS "
                    "(1: the name mining in one process; default: the tree's own, 2 on 2+ cores)")
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("PAPERFIND_BENCH_CACHE") or CACHE) / "scale")
    ap.add_argument("--reuse", action="store_true", help="keep and reuse built databases (per tree and size)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the bundled corpus's row")
    ap.add_argument("--baseline-db", type=Path, help="the bundled corpus's row served from this database "
                    "(built beforehand, with its index and vectors; a copy is served) instead of built here: "
                    "its serving figures only, for a run whose builds of the big sizes take the time")
    ap.add_argument("--n", type=int, default=60, help="queries per kind")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--locked", action="store_true", help="the caller holds the heavy lock for the whole "
                    "run (`flock /tmp/paperfind-heavy.lock nice ... --locked`): one wait in the shared "
                    "machine's queue instead of one a build")
    ap.add_argument("--report-only", action="store_true", help="with --reuse's kept builds: the tables "
                    "of what earlier runs measured at these sizes (their measured.json), nothing run")
    args = ap.parse_args()
    if args.locked:
        global HOLDING_HEAVY
        HOLDING_HEAVY = True
    tree = args.tree.resolve()
    originals = len(read_records(BUNDLED))
    sizes = ([] if args.no_baseline or args.baseline_db else [(originals, "bundled")]) + [
        (parse_size(s), size_label(parse_size(s))) for s in args.sizes.split(",") if s]
    qs = queries(args.n)
    trees = [tree] + ([args.base_tree.resolve()] if args.base_tree else [])
    if args.report_only:
        results = stored_results(trees, sizes, args.seed, args.cache)
    else:
        # the base tree builds every size but the baseline's: the build's before and after
        results = [serve_built(tree, args.baseline_db.resolve(), qs, args.cache)] if args.baseline_db else []
        results += [measure(t, size, label, args.seed, args.cache, args.reuse, qs, rate=i == 0 and t == tree,
                            serve=t == tree, index_jobs=args.index_jobs if t == tree else None)
                    for i, (size, label) in enumerate(sizes) for t in trees
                    if t == tree or label != "bundled"]
    table = tables(results, next((r["embed_rate"] for r in results if r.get("embed_rate")), None), tree)
    (args.cache / "last-run.json").write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    print(table)
    if not args.no_write:
        intro = ("Produced by `python -m bench.scale " + " ".join(sys.argv[1:]) + "` on the shared 2-core "
                 "machine (builds under the heavy lock, serving under the timing lock, `nice`d; others' "
                 "jobs ran meanwhile). Each size: the bundled corpus's real records plus deterministic "
                 "copies (bench/scale_corpus.py), built by paperfind's own ingest and index, served by "
                 f"a fresh `paperfind serve`, {args.n} queries a kind each asked once per mode.\n\n")
        append_results(RESULTS_HEADING, intro + table)


if __name__ == "__main__":
    main()
