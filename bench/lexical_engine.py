"""The lexical scorer's kernel against numpy's indexing, in one run: same answers, time per kind, growth.

    flock /tmp/paperfind-timing.lock nice .venv/bin/python -m bench.lexical_engine \
        [--db bench/out/bundled.db] [--small-db bench/out/default.db] [--n 0] [--no-write]

1. Parity: every query of every dev set (tldr_dev, title_typo_dev, author_dev, zh_dev,
   topical_dev and bench/nickname_dev.jsonl) searched on DB by two searchers of this tree, one
   scoring with numpy's indexing (the reference, `SearchSettings(compiled_kernel=False)`) and one
   with scipy's compiled kernel (paperfind.index.kernels), in lexical and in the default (hybrid)
   mode, first 100 results each: how many queries' key lists differ (must be 0).
2. The scorer alone: the candidate requests those lexical searches made, each scored over the
   whole corpus by `LexicalIndex.score` with numpy and with the kernel (taking turns request by
   request), and the per-field look-up of 100 candidates (`SearchBackend.scores`, what the
   learned ranker asks twice a query) by a full scoring and by paperfind.index.retrieval;
   p50 / p95 ms per kind.
3. Growth: part 2 on SMALL-DB too (the 16.5k default corpus): the same kinds' p50 at both sizes.
5. With --base-tree PATH: in-process search latency per kind, page of 20, lexical mode, facets and
   trend included: a fresh process per side (PATH's code, this tree's) and run, the sides taking
   turns run by run (`--runs`), each query once after a warm-up of five a kind; p50 / p95 ms pooled
   over the runs. Each side is warmed as a server is (`Searcher.load_parts`). With --reps N too:
   a process of each side up together, the sides taking turns query by query, each query N times
   a side; per kind the p50 / p95 over queries of each one's best of N and of every time, and the
   median per-query ratio of the bests (on a machine others load, a run-by-run comparison's
   p95 is mostly their preemption; a query's best of N is its own work).
6. With --parity-tree PATH: the same answers as PATH's code: every query of every set searched
   on DB by a process of each tree, lexical mode, first 100 results with facets and trend (as
   the portal asks); per set, how many queries' first 100 keys differ, and how many whole
   answers (every card with its highlights, the total, facets, trend, people; all but the time)
   differ. Both must be 0 for a change that is only faster.
4. With --phases: where a lexical search's time goes (the first 60 queries of each set, page of
   20, facets and trend included, as the portal asks), mean ms per query of each phase, measured
   by timing the searcher's own functions (a phase's time includes the phases it calls). With
   --tail too: per set, its slowest 5% of queries phase by phase, beside its median query.

Response cache off; warm (each request scored once before the timed rounds).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import CACHE, REPO, ensure_index, load_set, vector_dir
from bench.metrics import p50_p95
from bench.results import append_results, load_average

SETS = ("title_typo_dev", "author_dev", "tldr_dev", "zh_dev", "topical_dev", "nickname_dev")
MODES = ("lexical", "hybrid")
DEPTH = 100


def queries(n: int) -> dict[str, list[str]]:
    out = {}
    for name in SETS:
        if name == "nickname_dev":
            with open(REPO / "bench" / "nickname_dev.jsonl", encoding="utf-8") as fh:
                items = [json.loads(line) for line in fh if line.strip()]
        else:
            items = load_set(name)
        qs = [it["query"] for it in items]
        out[name] = qs[:n] if n else qs
    return out


def searcher(db: Path, kernel: bool):
    from paperfind.search.engine import open_searcher
    from paperfind.search.settings import SearchSettings
    store, root = ensure_index_of(db)
    s = open_searcher(root, store, SearchSettings(result_cache=0, compiled_kernel=kernel),
                      vector_dir=vector_dir(db))
    s.load_parts()
    s.warm_for_serving()  # as a server's start-up does, and its collector's freeze
    gc.collect()
    gc.freeze()
    return s


def keys(s, q: str, mode: str) -> list[str]:
    from paperfind.search.response import SearchRequest

    found = s.search(SearchRequest(q=q, limit=DEPTH, mode=mode, include=frozenset()))
    return [r["key"] for r in found.results]


def parity(db: Path, sets: dict[str, list[str]]) -> tuple[list[str], list]:
    """Per set and mode, the queries whose first 100 keys differ between numpy and the kernel;
    and the lexical candidate requests the kernel side made (for part 2)."""
    from paperfind.search import backend as backend_module

    reference, fast = searcher(db, False), searcher(db, True)
    requests: list = []
    original = backend_module.IndexBackend.candidates
    lines = ["| set | queries | lexical: lists differing | default mode: lists differing |",
             "|---|---:|---:|---:|"]
    for name, qs in sets.items():
        differ = {}
        for mode in MODES:
            n = 0
            for q in qs:
                a = keys(reference, q, mode)
                if mode == "lexical":
                    backend_module.IndexBackend.candidates = lambda self, r, k=name: (
                        requests.append((k, r)) or original(self, r))
                try:
                    b = keys(fast, q, mode)
                finally:
                    backend_module.IndexBackend.candidates = original
                n += a != b
            differ[mode] = n
        lines.append(f"| {name} | {len(qs)} | {differ['lexical']} | {differ['hybrid']} |")
        print(lines[-1], file=sys.stderr)
    assert fast.backend().index.lexical.adder.compiled and not reference.backend().index.lexical.adder.compiled
    return lines, requests


def time_scorer(db: Path, requests: list) -> dict[str, dict[str, list[float]]]:
    """Per kind: ms of the full scoring with numpy and with the kernel, and of 100 candidates'
    per-field scores by a full scoring and by look-ups."""
    from paperfind.index.manager import open_index
    from paperfind.index.retrieval import score_handles

    _, root = ensure_index_of(db)
    index = open_index(root)
    lex = index.lexical
    out: dict[str, dict[str, list[float]]] = {}
    for kind, request in requests:
        groups = [[(f, lex.term_id(t), b) for f, t, b in g] for g in request.groups]
        if not groups:
            continue
        title = [[("title", t, b) for f, t, b in g if f == "text"] for g in groups]
        scores, _ = lex.score(groups)
        top = np.argsort(-scores, kind="stable")[:100]
        times = out.setdefault(kind, {"numpy": [], "kernel": [], "full for 100": [], "look-up of 100": []})
        for turn in range(2):  # the first is the warm-up
            order = ("numpy", "kernel") if len(times["numpy"]) % 2 == 0 else ("kernel", "numpy")
            measured = {}
            for side in order:
                lex.adder._matvec = None
                if side == "kernel":
                    lex.load_kernel()
                started = time.perf_counter()
                lex.score(groups)
                measured[side] = (time.perf_counter() - started) * 1000
            lex.load_kernel()  # the full scoring at its fastest
            started = time.perf_counter()
            full = lex.score(title)
            full = full[0][top], full[1][top]
            measured["full for 100"] = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            looked = score_handles(lex, title, top)
            measured["look-up of 100"] = (time.perf_counter() - started) * 1000
            assert np.array_equal(full[0], looked[0]) and np.array_equal(full[1], looked[1])
            if turn:
                for side, ms in measured.items():
                    times[side].append(ms)
    return out


def scorer_table(sizes: dict[str, tuple[int, dict]]) -> str:
    lines = ["| corpus | papers (rows) | kind | requests | numpy p50 / p95 ms | kernel p50 / p95 ms | "
             "p50 ratio | 100 candidates' title scores: full scoring (kernel) → look-up, p50 ms |",
             "|---|---:|---|---:|---|---|---:|---|"]
    for corpus, (rows, times) in sizes.items():
        for kind, t in times.items():
            (n50, n95), (k50, k95) = p50_p95(t["numpy"]), p50_p95(t["kernel"])
            f50, l50 = p50_p95(t["full for 100"])[0], p50_p95(t["look-up of 100"])[0]
            lines.append(f"| {corpus} | {rows:,} | {kind} | {len(t['numpy'])} | {n50:.2f} / {n95:.2f} | "
                         f"{k50:.2f} / {k95:.2f} | {k50 / n50:.2f} | {f50:.2f} → {l50:.2f} |")
    return "\n".join(lines)


def small_requests(db: Path, sets: dict[str, list[str]]) -> list:
    """The lexical candidate requests of the queries on another corpus (its own plans)."""
    from paperfind.search import backend as backend_module

    s = searcher(db, True)
    requests: list = []
    original = backend_module.IndexBackend.candidates
    try:
        for name, qs in sets.items():
            backend_module.IndexBackend.candidates = lambda self, r, k=name: (
                requests.append((k, r)) or original(self, r))
            for q in qs:
                keys(s, q, "lexical")
    finally:
        backend_module.IndexBackend.candidates = original
    return requests


# a tree's searcher over `db`'s index in a process of its own (argv: db, index root, the sets as
# JSON), warmed as a server's is; each worker below goes on from it and prints one JSON line
OPEN_SEARCHER = """
import hashlib, json, sys, time
from pathlib import Path
from paperfind.search.engine import open_searcher
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings
from paperfind.store import Store
db, root, sets = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
s = open_searcher(root, Store(db, readonly=True), settings=SearchSettings(result_cache=0))
s.load_parts()
if hasattr(s, "warm_for_serving"):  # a server's warm-up, in the trees that have it
    s.warm_for_serving()
import gc  # and, as a server's start-up does in both trees, what is loaded kept out of the collector's passes
gc.collect()
gc.freeze()
"""


LATENCY_WORKER = OPEN_SEARCHER + """
out = {}
for kind, qs in sets.items():
    for q in qs[:5]:
        s.search(SearchRequest(q=q, limit=20, mode="lexical"))
    times = out[kind] = []
    for q in qs:
        started = time.perf_counter()
        s.search(SearchRequest(q=q, limit=20, mode="lexical"))
        times.append((time.perf_counter() - started) * 1000)
print(json.dumps(out))
"""


PAIRED_WORKER = OPEN_SEARCHER + """
print("ready", flush=True)
for line in sys.stdin:  # one query a line (JSON), answered by its time in ms
    q = json.loads(line)
    started = time.perf_counter()
    s.search(SearchRequest(q=q, limit=20, mode="lexical"))
    print((time.perf_counter() - started) * 1000, flush=True)
"""


PARITY_WORKER = OPEN_SEARCHER + """
out = {}
for kind, qs in sets.items():
    out[kind] = []
    for q in qs:
        answer = s.search(SearchRequest(q=q, limit=100, mode="lexical")).to_json()
        answer.pop("took_ms")
        whole = hashlib.sha256(json.dumps(answer, sort_keys=True, default=str).encode()).hexdigest()
        out[kind].append([[r["key"] for r in answer["results"]], whole])
print(json.dumps(out))
"""


def run_worker(script: str, tree: Path, db: Path, root: Path, sets: dict[str, list[str]]) -> dict:
    """`script` (a worker above) with `tree`'s code over `db`'s index at `root`: its JSON line."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", script, str(db), str(root), json.dumps(sets)],
                          env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def tree_parity(db: Path, base_tree: Path, sets: dict[str, list[str]]) -> str:
    """Per set, the queries whose first 100 keys, and whose whole answers, differ between
    `base_tree`'s code and this tree's (module doc, part 6)."""
    _, root = ensure_index_of(db)
    answers = {}
    for name, tree in (("base", base_tree), ("this", REPO)):
        answers[name] = run_worker(PARITY_WORKER, tree, db, root, sets)
    lines = ["| set | queries | first 100 keys differing | whole answers differing |", "|---|---:|---:|---:|"]
    for kind in sets:
        pairs = list(zip(answers["base"][kind], answers["this"][kind]))
        keys = sum(b[0] != t[0] for b, t in pairs)
        whole = sum(b[1] != t[1] for b, t in pairs)
        lines.append(f"| {kind} | {len(pairs)} | {keys} | {whole} |")
    return "\n".join(lines)


def latency(db: Path, base_tree: Path, sets: dict[str, list[str]], runs: int) -> str:
    """In-process lexical latency per kind, base tree against this one (module doc, part 5)."""
    _, root = ensure_index_of(db)
    pooled: dict[str, dict[str, list[float]]] = {"base": {}, "this": {}}
    for run in range(runs):
        sides = [("base", base_tree), ("this", REPO)]
        for name, tree in (sides if run % 2 == 0 else sides[::-1]):
            for kind, times in run_worker(LATENCY_WORKER, tree, db, root, sets).items():
                pooled[name].setdefault(kind, []).extend(times)
            print(f"run {run + 1} {name} done", file=sys.stderr)
    lines = ["| kind | queries x runs | base p50 / p95 ms | this p50 / p95 ms | p50 ratio | p95 ratio |",
             "|---|---:|---|---|---:|---:|"]
    for kind in sets:
        (b50, b95), (t50, t95) = p50_p95(pooled["base"][kind]), p50_p95(pooled["this"][kind])
        lines.append(f"| {kind} | {len(pooled['this'][kind])} | {b50:.1f} / {b95:.1f} | {t50:.1f} / {t95:.1f} | "
                     f"{t50 / b50:.2f} | {t95 / b95:.2f} |")
    return "\n".join(lines)


def paired_latency(db: Path, base_tree: Path, sets: dict[str, list[str]], reps: int) -> str:
    """In-process lexical latency per kind, a process of each tree up together, the sides taking
    turns query by query, each query `reps` times per side (module doc, part 5 with --reps)."""
    import statistics
    import subprocess

    _, root = ensure_index_of(db)
    sides = {}
    for name, tree in (("base", base_tree), ("this", REPO)):
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
        sides[name] = subprocess.Popen([sys.executable, "-c", PAIRED_WORKER, str(db), str(root), "{}"],
                                       env=env, cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if sides[name].stdout.readline().strip() != "ready":
            raise SystemExit(f"the {name} tree's worker did not start")

    def ask(name: str, q: str) -> float:
        sides[name].stdin.write(json.dumps(q) + "\n")
        sides[name].stdin.flush()
        return float(sides[name].stdout.readline())

    lines = ["| kind | queries x reps | base best-of p50 / p95 ms | this best-of p50 / p95 ms | "
             "base every p50 / p95 ms | this every p50 / p95 ms | median per-query ratio of bests |",
             "|---|---:|---|---|---|---|---:|"]
    try:
        for kind, qs in sets.items():
            for q in qs[:5]:  # warm-up, as part 5's
                ask("base", q), ask("this", q)
            best: dict[str, list[float]] = {"base": [], "this": []}
            every: dict[str, list[float]] = {"base": [], "this": []}
            for i, q in enumerate(qs):
                times: dict[str, list[float]] = {"base": [], "this": []}
                for r in range(reps):
                    for name in (("base", "this") if (i + r) % 2 == 0 else ("this", "base")):
                        times[name].append(ask(name, q))
                for name, ts in times.items():
                    best[name].append(min(ts))
                    every[name].extend(ts)
            ratio = statistics.median(t / b for t, b in zip(best["this"], best["base"]))
            cells = [" / ".join(f"{v:.2f}" for v in p50_p95(x))
                     for x in (best["base"], best["this"], every["base"], every["this"])]
            lines.append(f"| {kind} | {len(qs)} x {reps} | " + " | ".join(cells) + f" | {ratio:.3f} |")
            print(lines[-1], file=sys.stderr)
    finally:
        for proc in sides.values():
            proc.stdin.close()
            proc.wait()
    return "\n".join(lines)


PHASES = (  # (module, owner, function, label); nested phases are inside their callers' times
    ("paperfind.search.engine", "Searcher", "search", "whole search"),
    ("paperfind.search.engine", "Searcher", "_read", "plan (spelling, people, translation)"),
    ("paperfind.search.engine", "Searcher", "_understand", "institutions named"),
    ("paperfind.search.backend", "IndexBackend", "candidates", "candidates (matching, top k)"),
    ("paperfind.index.lexical", "LexicalIndex", "score_columns", "  of which: scoring every posting"),
    ("paperfind.search.backend", "IndexBackend", "_query_scored",
     "  of which: the query scored (over every row, or at its rows when few)"),
    ("paperfind.search.row_features", None, "features", "second stage features"),
    ("paperfind.search.backend", "IndexBackend", "facets", "total, facets, trend counts"),
    ("paperfind.search.backend", "IndexBackend", "work_versions", "versions of the page's works"),
    ("paperfind.search.drafts", None, "unscored_hit", "cards and highlights"),
    ("paperfind.search.engine", "Searcher", "_name_cards", "names of the page's papers"),
    ("paperfind.search.engine", None, "trend", "trend drawn"),
)


def phases(db: Path, sets: dict[str, list[str]]) -> str:
    """Mean ms per query of each phase of a lexical search, per set (see the module's doc)."""
    per = timed_phases(db, sets)
    lines = ["| phase | " + " | ".join(sets) + " |", "|---|" + "---:|" * len(sets)]
    for _, _, _, label in PHASES:
        mean = {n: sum(q.get(label, 0.0) for q in per[n]) / len(per[n]) for n in sets}
        lines.append(f"| {label} | " + " | ".join(f"{mean[n]:.2f}" for n in sets) + " |")
    return "\n".join(lines)


def tail(db: Path, sets: dict[str, list[str]], share: float = 0.05) -> str:
    """Per set, the slowest `share` of its queries (by whole search) with each phase's ms, beside
    the set's median query: which phases make the p95 (module doc, part 4, --tail). Queries are
    numbered, not quoted (the dev sets' queries stay out of the repository)."""
    per = timed_phases(db, sets)
    labels = [label for *_, label in PHASES]
    lines = ["| set | query | " + " | ".join(label.strip() for label in labels) + " |",
             "|---|---|" + "---:|" * len(labels)]
    for name in sets:
        ranked = sorted(range(len(per[name])), key=lambda i: -per[name][i].get(labels[0], 0.0))
        slow = ranked[:max(1, round(len(ranked) * share))]
        rows = [(f"#{i + 1}", per[name][i]) for i in slow]
        rows.append(("median", {label: float(np.median([q.get(label, 0.0) for q in per[name]]))
                                for label in labels}))
        for tag, row in rows:
            lines.append(f"| {name} | {tag} | " + " | ".join(f"{row.get(label, 0.0):.2f}" for label in labels) + " |")
    return "\n".join(lines)


def timed_phases(db: Path, sets: dict[str, list[str]]) -> dict[str, list[dict[str, float]]]:
    """Per set, per query (the first 60, once, after a warm-up of five): ms of each phase."""
    import importlib

    from paperfind.search.response import SearchRequest

    s = searcher(db, True)
    spent: dict[str, float] = {}

    def timed(label, fn):
        def run(*a, **k):
            started = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - started
        return run

    for module, owner, name, label in PHASES:
        holder = importlib.import_module(module)
        holder = getattr(holder, owner) if owner else holder
        fn = getattr(holder, name)
        wrapped = timed(label, fn)
        if owner and isinstance(holder.__dict__.get(name), staticmethod):
            wrapped = staticmethod(wrapped)
        setattr(holder, name, wrapped)
    per: dict[str, list[dict[str, float]]] = {}
    for name, qs in sets.items():
        qs = qs[:60]
        for q in qs[:5]:
            s.search(SearchRequest(q=q, limit=20, mode="lexical"))
        per[name] = []
        for q in qs:
            spent.clear()
            s.search(SearchRequest(q=q, limit=20, mode="lexical"))
            per[name].append({label: sec * 1000 for label, sec in spent.items()})
    return per


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=CACHE / "bundled.db")
    ap.add_argument("--small-db", type=Path, default=CACHE / "default.db")
    ap.add_argument("--n", type=int, default=0, help="queries per set (0: all)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--phases", action="store_true", help="only part 4: where a lexical search's time goes")
    ap.add_argument("--tail", action="store_true",
                    help="with --phases: each set's slowest 5%% of queries, phase by phase, beside its median")
    ap.add_argument("--base-tree", type=Path, help="only part 5: in-process latency, this tree against PATH's")
    ap.add_argument("--runs", type=int, default=4, help="with --base-tree: runs per side, alternating")
    ap.add_argument("--reps", type=int, default=0,
                    help="with --base-tree: both sides up together, taking turns query by query, "
                         "each query REPS times per side (best-of-REPS per query)")
    ap.add_argument("--parity-tree", type=Path, help="only part 6: the same answers as PATH's code")
    args = ap.parse_args()
    sets = queries(args.n)
    if args.parity_tree:
        table = tree_parity(args.db, args.parity_tree.resolve(), sets)
        table += f"\n\nBase tree: {args.parity_tree}; database: {args.db.name} ({_rows(args.db):,} papers).\n"
        _report(args, "Same answers as the base tree, lexical mode (issue 33)", (
            "Every query of every dev set searched by a process of each tree on the same "
            "database, lexical mode, first 100 results with facets and trend; whole answer = "
            "everything but took_ms (cards, highlights, total, facets, trend, people). Produced "
            "by `python -m bench.lexical_engine --parity-tree BASE`.\n\n"), table, with_load=False)
        return
    if args.base_tree and args.reps:
        table = paired_latency(args.db, args.base_tree.resolve(), {k: v[:60] for k, v in sets.items()},
                               args.reps)
        _report(args, "In-process lexical latency per kind, base tree against this one, query by query (issue 33)", (
            f"A process of each tree on {args.db.name}, both up together, the sides taking turns "
            f"query by query, each of the first 60 queries of a set {args.reps} times per side after "
            "a warm-up of five; page of 20 with facets and trend, lexical, each side warmed as a "
            "server is; `nice`d under the timing lock on the shared 2-core machine. A query's best "
            "of its times is its own work (another process's preemption lengthens some of them); "
            "the ratio is this tree's best over base's, per query. Produced by `python -m "
            f"bench.lexical_engine --base-tree BASE --reps {args.reps}`.\n\n"), table)
        return
    if args.base_tree:
        table = latency(args.db, args.base_tree.resolve(), {k: v[:60] for k, v in sets.items()}, args.runs)
        _report(args, "In-process lexical latency per kind, base tree against this one (issue 33)", (
            f"A fresh process per side and run on {args.db.name}, the sides taking turns run by run "
            f"({args.runs} runs), page of 20 with facets and trend, lexical, the first 60 queries of "
            "each set once after a warm-up, each side warmed as a server is; `nice`d under the timing "
            "lock on the shared 2-core machine. Produced by `python -m bench.lexical_engine "
            "--base-tree BASE`.\n\n"), table)
        return
    if args.phases and args.tail:
        _report(args, "The lexical path's slowest queries, phase by phase (issue 33)", (
            f"Per set, the slowest 5% of the first 60 queries (by whole search, numbered by their "
            f"place in the set) and the set's median, ms of each phase, on {args.db.name} (this tree, "
            "page of 20 with facets and trend, response cache off, warm); a phase includes those "
            "it calls. Produced by `python -m bench.lexical_engine --phases --tail`.\n\n"),
            tail(args.db, sets))
        return
    if args.phases:
        _report(args, "Where a lexical search's time goes (issue 33)", (
            f"Mean ms per query of each phase of a lexical search on {args.db.name} (this tree, "
            "compiled kernel loaded, page of 20 with facets and trend, response cache off), "
            "`nice`d on the shared 2-core machine; a phase includes those it calls. Produced by "
            "`python -m bench.lexical_engine --phases`.\n\n"), phases(args.db, sets))
        return
    lines, requests = parity(args.db, sets)
    sizes = {args.db.stem: (_rows(args.db), time_scorer(args.db, requests))}
    if args.small_db and args.small_db.exists():
        sizes[args.small_db.stem] = (_rows(args.small_db), time_scorer(args.small_db, small_requests(args.small_db, sets)))
    table = ("Parity, numpy's indexing (reference) vs the compiled kernel, first "
             f"{DEPTH} keys, on {args.db.name}:\n\n" + "\n".join(lines) + "\n\nThe scorer alone:\n\n"
             + scorer_table(sizes))
    _report(args, "Lexical engine: compiled kernel and candidate look-ups (issue 33)", (
        "Lexical scoring with scipy's compiled sparse kernel (paperfind.index.kernels) against "
        "numpy's indexing, and field scores of candidates looked up (paperfind.index.retrieval), "
        "in one run, `nice`d under the timing lock on the shared 2-core machine. Produced by "
        "`python -m bench.lexical_engine`.\n\n"), table)


def _report(args, heading: str, intro: str, table: str, with_load: bool = True) -> None:
    """Print a part's table, the load average at its end unless it is timeless, and record it
    in RESULTS.md under `heading` after `intro` (unless --no-write)."""
    if with_load:
        table += f"\n\nLoad average at the end: {load_average()}.\n"
    print(table)
    if not args.no_write:
        append_results(heading, intro + table)


def ensure_index_of(db: Path):
    """(store, index root) of the database at `db`, its index built when missing or stale."""
    return ensure_index(db.stem, cache=db.parent)


def _rows(db: Path) -> int:
    from paperfind.index.manager import open_index

    return open_index(ensure_index_of(db)[1]).docs.n


if __name__ == "__main__":
    main()
