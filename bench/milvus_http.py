"""The Milvus backend against the local index through the HTTP API, in the default and lexical modes.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.milvus_http \\
        [--corpus default|bundled] [--sets tldr_dev,...] [--modes default,lexical] \\
        [--base-tree PATH] [--no-write]

What a user of the portal gets from each backend (issue 33): one `paperfind serve` over the
corpus's database answering from its local index, one answering from a `milvus-lite server` the
database was synced into (`paperfind sync`), both started by this script on free ports, and with
`--base-tree` the same two servers with a base checkout's code over the same database and
collection, asked the default mode's queries (the baseline before a change). Every query of each dev set is asked of each server through
/api/search (100 results, `include=none`), in the default mode (no `mode=`: hybrid where vectors
exist) and in lexical mode; the runs are scored by ../shared/eval-dev/score.py (author_dev
--lenient as elsewhere). Per set and mode: the set's metrics on each side, the difference, and
the share of queries whose top 10 keys are the local server's. The queries whose top 10 differ
are listed in bench/out/milvus_http.<corpus>.differ.jsonl (never in the repository: they hold
the dev queries), each with what the local and the Milvus first stage found for it
(`diagnose`), so the table can say why they differ. The Milvus Lite directory is kept under the
bench cache (a later run syncs only what changed).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from bench.corpus import CACHE, REPO, database, ensure_index, load_set, vectors
from bench.metrics import percentile, score, write_run
from bench.results import append_results
from bench.server import MilvusServer, free_port, start_server, stop_server

SETS = ("title_typo_dev", "zh_dev", "author_dev", "tldr_dev")  # the longest last
# the figure the issue states per set, and the others scored beside it
HEADLINE = {"tldr_dev": "MRR@10", "title_typo_dev": "R@1", "author_dev": "nDCG@10", "zh_dev": "R@10"}
METRICS = ("nDCG@10", "MRR@10", "R@1", "R@10")
OPTIONS = {"author_dev": ("--lenient",)}
DEPTH = 100
TOP = 10
MODES = ("default", "lexical")
RETRIES_503 = 3
RETRIED: list[str] = []  # queries asked again after a 503, counted in the report


def ask(conn: http.client.HTTPConnection, query: str, mode: str) -> tuple[list[str], str, float]:
    """(keys of the first DEPTH results, the mode the server used, ms) of one /api/search."""
    params = {"q": query, "size": str(DEPTH), "include": "none"}
    if mode != "default":
        params["mode"] = mode
    for attempt in range(RETRIES_503 + 1):
        started = time.perf_counter()
        conn.request("GET", "/api/search?" + urllib.parse.urlencode(params))
        response = conn.getresponse()
        body = response.read()
        took = (time.perf_counter() - started) * 1000
        # 503 is the portal's "try again in a moment" for a Milvus call past its timeout: on this
        # shared machine Milvus Lite can stall for seconds; the answer, not that stall, is measured
        if response.status != 503 or attempt == RETRIES_503:
            break
        RETRIED.append(query)
        time.sleep(5)
    if response.status != 200:
        raise SystemExit(f"/api/search answered {response.status} for a query: {body[:300]!r}")
    data = json.loads(body)
    return [r["key"] for r in data["results"]], data.get("mode", ""), took


def run_set(port: int, items: list[dict], mode: str) -> tuple[dict[str, list[str]], dict[str, str], list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    ranked, used, times = {}, {}, []
    try:
        for it in items:
            keys, served, took = ask(conn, it["query"], mode)
            ranked[it["qid"]], used[it["qid"]] = keys, served
            times.append(took)
    finally:
        conn.close()
    return ranked, used, times


def sync(db: Path, uri: str, cwd: Path = REPO, attempts: int = 3) -> None:
    """`paperfind sync` of the database and its vectors into the Milvus at `uri` (what an
    operator runs; only new and changed papers are written), in batches of 250 rows and tried
    again when it fails: Milvus Lite on the shared cores once let a 1,000-row batch outlast the
    call timeout, and the next run carries on where it stopped."""
    for attempt in range(attempts):
        done = subprocess.run([sys.executable, "-m", "paperfind.cli", "sync", "--db", str(db), "--milvus", uri,
                               "--batch", "250"], cwd=cwd, stdout=subprocess.DEVNULL)
        if done.returncode == 0:
            return
        print(f"sync failed (attempt {attempt + 1})", file=sys.stderr)
    raise SystemExit("paperfind sync failed")


def up_to_date(db: Path) -> None:
    """The vectors brought up to date with the store once, here, as `serve` would in the
    background of each server (four servers doing it at once over one folder would race, and
    their embedding would share the cores with the measurement)."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    app = Paperfind(Settings(db_path=db))
    if not app.vectors_are_synced():
        stats = app.update_vectors(progress=False)
        print(f"vectors: {stats.embedded} embedded, {stats.reused} unchanged", file=sys.stderr)


def diagnose(db: Path, uri: str, rows: list[dict]) -> None:
    """Per differing query (`rows`, changed in place): which of the keys in one backend's top 10
    but not the other's the Milvus lexical first stage lacks, and whether the two vector routes
    returned the same papers. In process, over the same database and collection."""
    from paperfind.core import Paperfind
    from paperfind.search.filters import Filters
    from paperfind.search.query import parse_query
    from paperfind.search.settings import SearchSettings
    from paperfind.settings import Settings

    settings = SearchSettings(result_cache=0)
    local = Paperfind(Settings(db_path=db, search=settings)).searcher()
    milvus = Paperfind(Settings(db_path=db, backend="milvus", milvus_uri=uri, search=settings)).searcher()
    for row in rows:
        mode = "hybrid" if row["mode"] == "default" else row["mode"]
        found = {}
        for name, searcher in (("local", local), ("milvus", milvus)):
            backend = searcher.backend()
            q = parse_query(row["query"])
            q, _ = searcher._understand(backend, q, Filters())
            query = searcher._read(backend, q, Filters(), mode)
            ranking = searcher._rank(backend, query, DEPTH, mode, 2000)
            near = backend.nearest(q.text, query.restriction, settings.rerank_depth) \
                if mode != "lexical" and backend.vectors_ready() else None
            keys = row["local"][:TOP] + row["milvus"][:TOP]
            pool = set(ranking.pool.handles.tolist())
            key_of = backend.keys.__getitem__ if name == "milvus" else backend.key_of
            found[name] = {"in_pool": [k for k, h in zip(keys, backend.handles_of(keys)) if int(h) in pool],
                           "mode": ranking.mode,
                           "near": [key_of(int(h)) for h in (near.handles[:TOP] if near is not None else [])]}
        wanted = set(row["local"][:TOP]) ^ set(row["milvus"][:TOP])
        row["missing_from_milvus_pool"] = sorted(wanted & set(found["local"]["in_pool"])
                                                 - set(found["milvus"]["in_pool"]))
        row["missing_from_local_pool"] = sorted(wanted & set(found["milvus"]["in_pool"])
                                                - set(found["local"]["in_pool"]))
        row["modes_in_process"] = [found["local"]["mode"], found["milvus"]["mode"]]
        row["same_nearest_10"] = found["local"]["near"] == found["milvus"]["near"]
        row["cause"] = ("milvus first stage lacks a local top-10 paper" if row["missing_from_milvus_pool"]
                        else "local first stage lacks a milvus top-10 paper" if row["missing_from_local_pool"]
                        else "mode used differs" if row["served"][0] != row["served"][1]
                        else "vector route's nearest 10 differ" if not row["same_nearest_10"]
                        else "same candidates, another order")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="default", help="default (16.5k) or bundled (105k)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--base-tree", type=Path, default=None,
                    help="also serve both backends with this checkout's code, in the default mode (the "
                         "baseline of a change)")
    ap.add_argument("--no-diagnose", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="the section from the figures the last run saved (bench/out/milvus_http.CORPUS.json)")
    args = ap.parse_args()
    saved = CACHE / f"milvus_http.{args.corpus}.json"
    if args.report_only:
        figures = json.loads(saved.read_text(encoding="utf-8"))
        report(args.corpus, figures, figures["started"], write=not args.no_write, base=args.base_tree is not None)
        return
    sets = [s for s in args.sets.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    db = database(args.corpus)
    store, _ = ensure_index(args.corpus)
    store.close()
    vectors(args.corpus)
    up_to_date(db)
    lite_dir = CACHE / "milvus_http" / f"{args.corpus}.db"
    lite_dir.parent.mkdir(parents=True, exist_ok=True)
    milvus = MilvusServer(lite_dir, free_port())
    milvus.start(timeout=300)
    servers: dict[str, tuple[int, subprocess.Popen]] = {}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    figures: dict = {"sets": {}, "differ": [], "started": started}
    try:
        t0 = time.perf_counter()
        sync(db, milvus.uri)
        print(f"synced in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        sides = {"local": ({}, REPO), "milvus": ({"PAPERFIND_BACKEND": "milvus",
                                                 "PAPERFIND_MILVUS_URI": milvus.uri}, REPO)}
        if args.base_tree is not None:  # the same two servers with the base checkout's code
            base = {"PYTHONPATH": str(args.base_tree.resolve()), "PYTHONDONTWRITEBYTECODE": "1"}
            sides["local (base)"] = (base, args.base_tree.resolve())
            sides["milvus (base)"] = ({**sides["milvus"][0], **base}, args.base_tree.resolve())
        for name, (env, cwd) in sides.items():
            port = free_port()
            servers[name] = (port, start_server(db, port, env={"PAPERFIND_RESULT_CACHE": "0", **env},
                                                cwd=cwd))
        for name, (port, _) in servers.items():  # warm: the models, the collection, jieba
            for mode in modes:
                run_set(port, [{"qid": "w", "query": q} for q in ("attention", "大语言模型", "Yann LeCun")], mode)
        for mode in modes:  # the default mode of every set first: what a user gets
            for set_name in sets:
                items = load_set(set_name)
                queries = {it["qid"]: it["query"] for it in items}
                runs = {}
                for name, (port, _) in servers.items():
                    if "base" in name and mode != "default":
                        continue  # the base code in the default mode only: a run fits the heavy-job queue
                    ranked, used, times = run_set(port, items, mode)
                    label = name.replace(" (base)", "-base")
                    path = CACHE / f"milvus_http.{args.corpus}.{set_name}.{mode}.{label}.jsonl"
                    write_run(path, ranked)
                    metrics = score(set_name, path, *OPTIONS.get(set_name, ()))["metrics"]
                    runs[name] = (metrics, ranked, used, percentile(times, 50), percentile(times, 95))
                    print(f"{set_name} {mode} {name}: {metrics[HEADLINE[set_name]]:.3f} "
                          f"p50 {percentile(times, 50):.0f} ms", file=sys.stderr)
                local = runs["local"][1]
                row = {}
                for name, (metrics, ranked, used, p50, p95) in runs.items():
                    # each side against its own code's local server
                    own = runs["local (base)" if "base" in name else "local"][1]
                    same = sum(ranked[q][:TOP] == own[q][:TOP] for q in own)
                    row[name] = {"metrics": metrics, "same_top10": same, "queries": len(local),
                                 "p50": p50, "p95": p95,
                                 "modes": {m: list(used.values()).count(m) for m in set(used.values())}}
                figures["sets"][f"{set_name}|{mode}"] = row
                for qid in local:
                    if runs["milvus"][1][qid][:TOP] != local[qid][:TOP]:
                        figures["differ"].append({
                            "set": set_name, "mode": mode, "qid": qid, "query": queries[qid],
                            "local": local[qid][:TOP], "milvus": runs["milvus"][1][qid][:TOP],
                            "served": [runs["local"][2][qid], runs["milvus"][2][qid]]})
                saved.write_text(json.dumps(figures, ensure_ascii=False), encoding="utf-8")  # a stopped run keeps its sets
    finally:
        for _, proc in servers.values():
            stop_server(proc)
        try:
            if figures["differ"] and not args.no_diagnose and sys.exc_info()[0] is None:
                diagnose(db, milvus.uri, figures["differ"])
        finally:
            milvus.kill()  # whatever stopped the run: never left running on its directory
    saved.write_text(json.dumps(figures, ensure_ascii=False), encoding="utf-8")
    with open(CACHE / f"milvus_http.{args.corpus}.differ.jsonl", "w", encoding="utf-8") as fh:
        for row in figures["differ"]:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    report(args.corpus, figures, started, write=not args.no_write, base=args.base_tree is not None)


def report(corpus: str, figures: dict, started: str, write: bool, base: bool) -> None:
    trees = [("this tree", "local", "milvus")] + ([("base", "local (base)", "milvus (base)")] if base else [])
    head = ["set", "mode", "metric", "code", "local", "Milvus", "Milvus - local", "top 10 = local"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|---|---:|---:|---:|---:|"]
    for key, row in figures["sets"].items():
        set_name, mode = key.split("|")
        for metric in METRICS:
            for code, loc, mil in trees:
                if mil not in row:
                    continue
                a, b = row[loc]["metrics"][metric], row[mil]["metrics"][metric]
                star = " **" if metric == HEADLINE[set_name] else ""
                lines.append(f"| {set_name} | {mode} | {metric}{star} | {code} | {a:.3f} | {b:.3f} | {b - a:+.3f} | "
                             f"{row[mil]['same_top10']}/{row[mil]['queries']} |")
    quality = "\n".join(lines)
    sides = [s for _, loc, mil in trees for s in (loc, mil)]
    lines = ["| set | mode | " + " | ".join(f"{s} p50 / p95 ms" for s in sides) + " |",
             "|---|---|" + "---:|" * len(sides)]
    for key, row in figures["sets"].items():
        set_name, mode = key.split("|")
        lines.append(f"| {set_name} | {mode} | " + " | ".join(
            f"{row[s]['p50']:.0f} / {row[s]['p95']:.0f}" if s in row else "-" for s in sides) + " |")
    latency = "\n".join(lines)
    causes: dict[str, int] = {}
    for d in figures["differ"]:
        c = f"{d['set']}, {d['mode']}: {d.get('cause', 'not diagnosed')}"
        causes[c] = causes.get(c, 0) + 1
    lines = ["| set, mode: why this tree's Milvus top 10 differs from its local one | queries |", "|---|---:|"]
    lines += [f"| {c} | {n} |" for c, n in sorted(causes.items())] or ["| (none) | 0 |"]
    why = "\n".join(lines)
    text = (f"Corpus `{corpus}`, run started {started}; every query of each set through /api/search "
            f"(size=100, include=none), default mode (no `mode=`) and lexical; ** marks the figure issue 33 "
            f"states per set; \"top 10 = local\": queries whose first 10 keys are the same code's local server's."
            f"{' Base: the code before this change, served in the same run over the same database and collection.' if base else ''}"
            f"\n\n{quality}\n\nLatency through HTTP (each query once, in set order, result cache off):\n\n{latency}\n\n"
            f"Why Milvus's top 10 differs from the local one (bench/out/milvus_http.{corpus}.differ.jsonl "
            f"lists the queries):\n\n{why}\n"
            + (f"\n{len(RETRIED)} answers were a 503 (a Milvus call past its timeout) and were asked again "
               "after 5 s, up to 3 times.\n" if RETRIED else ""))
    print(text)
    if write:
        intro = ("Produced by `flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.milvus_http "
                 f"--corpus {corpus}{' --base-tree BASE' if base else ''}`. Milvus is Milvus Lite 3.2.2 (pymilvus "
                 "3.0.2), one local `milvus-lite server` process on the same 2 shared cores; each side a "
                 "`paperfind serve` over the same database, measured in the same run.\n\n")
        append_results(f"Milvus against the local index through HTTP, default and lexical modes, {corpus} "
                       "(issue 33)", intro + text)


if __name__ == "__main__":
    os.environ.setdefault("PAPERFIND_EMBED_THREADS", "1")
    main()
