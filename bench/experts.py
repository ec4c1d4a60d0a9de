"""Who works on this (issue 30): people for an abstract, through the HTTP API, against search voting.

    flock /tmp/paperfind-heavy.lock nice .venv/bin/python -m bench.experts --db DB [--build [SET ...]]
        [--no-write] [--base-tree DIR]

`--build` (re)writes the dev sets `bench/experts_dev.jsonl`, `bench/experts_dev2.jsonl` and
`bench/experts_dev3.jsonl` (or those named: `--build dev3`) from the store of DB by the rules in `bench/experts_dev.md` (read from the store alone: no index, no
search). Then, on DB (a database of the bundled corpus with its vectors), in one run:

- every dev set through the HTTP API of one `paperfind serve` (and, with `--base-tree DIR`, of a
  second serving DIR's code beside it, the two asked in turns): /api/experts?q=ABSTRACT&before=YEAR
  against the baseline, search voting (the authors of /api/search's top 50 for the abstract,
  year 1900..YEAR-1, each result voting 1/rank for each of its people): R@10 (one of the paper's
  own authors with >= 3 earlier works in the top 10), MRR@10, nDCG@10 (every such author relevant);
- latency (client wall time) p50 / p95 of /api/experts for a topic of a few words (the 35 field
  topics of bench/inst_topic.py) and for a whole abstract (the dev sets');
- in process, the ablation on every set: text only, vectors only; recency and author-position
  weights and the group spread each off; a few other settings; and, with `--model FILE` (made by
  `python -m paperfind.rank.train_experts --out FILE`), the learned ranking of people with that
  model, with its training cost from the record beside it;
- the profiles' build time and size (memory: they are derived from the index when first used,
  no file on disk).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import httpx

from bench.metrics import p50_p95, reciprocal_rank
from bench.results import append_results
from bench.server import REPO, free_port, start_server, stop_server

HERE = Path(__file__).parent
DEV = HERE / "experts_dev.jsonl"
VENUE_YEARS = (("nips", 2022), ("iclr", 2023), ("icml", 2023))  # never NeurIPS 2023, ICML 2024, ICLR 2024
# the second dev set: the venue-years after the judge's, where search voting is as weak as on it
DEV2 = HERE / "experts_dev2.jsonl"
VENUE_YEARS2 = (("nips", 2024), ("iclr", 2025), ("icml", 2025))
# the third: the judge's years in two other venues (vision, language), to tell a set's years from
# its chance draw; never a paper whose work has a version in the judge's or another set's venue-years
DEV3 = HERE / "experts_dev3.jsonl"
VENUE_YEARS3 = (("cvpr", 2023), ("acl", 2023), ("cvpr", 2024), ("acl", 2024))
DEV_SETS = (("dev", DEV, VENUE_YEARS), ("dev2", DEV2, VENUE_YEARS2), ("dev3", DEV3, VENUE_YEARS3))
JUDGE = (("nips", 2023), ("icml", 2024), ("iclr", 2024))
SEED = 30  # issue 30
SIZE = 200
MIN_EARLIER_WORKS = 3
MIN_ABSTRACT_WORDS = 50


def build_dev(db: Path, venue_years: tuple[tuple[str, int], ...] = VENUE_YEARS,
              barred: tuple[tuple[str, int], ...] = (), size: int = SIZE,
              min_earlier_works: int = MIN_EARLIER_WORKS) -> list[dict]:
    """The 200 papers of `venue_years` and, for each, its people with at least 3 works before its
    year; no paper whose work has a version in one of the `barred` venue-years."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    barred_years = set(barred)
    barred_works = {w for v, y, w in conn.execute("SELECT venue, year, COALESCE(work_id, id) FROM papers")
                    if (v, y) in barred_years} if barred_years else set()
    slugs = dict(conn.execute("SELECT id, slug FROM authors"))
    # works (a work counted once, whatever its versions) per person and year
    works_by_year: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for author, year, work in conn.execute(
            "SELECT pa.author_id, p.year, COALESCE(p.work_id, p.id) FROM paper_authors pa "
            "JOIN papers p ON p.id = pa.paper_id WHERE pa.author_id IS NOT NULL"):
        works_by_year[author][year].add(work)

    def earlier(author: int, year: int) -> int:
        return len(set().union(*(w for y, w in works_by_year[author].items() if y < year)))

    pool = []
    for venue, year in venue_years:
        rows = conn.execute("SELECT id, key, title, abstract, COALESCE(work_id, id) FROM papers "
                            "WHERE venue = ? AND year = ? ORDER BY key", (venue, year)).fetchall()
        for pid, key, title, abstract, work in rows:
            if work in barred_works or len(abstract.split()) < MIN_ABSTRACT_WORDS:
                continue
            people = [a for (a,) in conn.execute("SELECT author_id FROM paper_authors WHERE paper_id = ? "
                                                 "AND author_id IS NOT NULL ORDER BY position", (pid,))]
            relevant = [slugs[a] for a in dict.fromkeys(people) if earlier(a, year) >= min_earlier_works]
            if relevant:
                pool.append({"key": key, "venue": venue, "year": year, "title": title,
                             "query": abstract, "before": year, "relevant": relevant})
    chosen = random.Random(SEED).sample(pool, min(size, len(pool)))
    return sorted(chosen, key=lambda item: item["key"])



def barred_for(name: str) -> tuple[tuple[str, int], ...]:
    """The venue-years a set's papers may not share a work with: the judge's, and (for the third
    set, added after the first two were drawn without this bar) the other sets'."""
    if name != "dev3":
        return ()
    return JUDGE + tuple(vy for other, _, years in DEV_SETS if other != name for vy in years)


def set_label(name: str, path: Path, venue_years: tuple[tuple[str, int], ...]) -> str:
    """"dev = bench/experts_dev.jsonl, NeurIPS 2022 / ICLR 2023 / ICML 2023" for a section's text."""
    shown = {"nips": "NeurIPS", "iclr": "ICLR", "icml": "ICML", "cvpr": "CVPR", "acl": "ACL"}
    return f"{name} = bench/{path.name}, " + " / ".join(f"{shown.get(v, v)} {y}" for v, y in venue_years)


def sets_text() -> str:
    """Every dev set named with its venue-years (the sections' opening sentence)."""
    return "; ".join(set_label(*s) for s in DEV_SETS)


def table_head(first: str, extra: tuple[str, ...] = ()) -> list[str]:
    """A markdown head with R@10 / MRR@10 / nDCG@10 per dev set."""
    cells = [first] + [f"{name} {m}" for name, _, _ in DEV_SETS for m in ("R@10", "MRR@10", "nDCG@10")] + list(extra)
    return ["| " + " | ".join(cells) + " |", "|" + "---|" * len(cells)]


def ndcg(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    gain = sum(1 / math.log2(i + 2) for i, x in enumerate(ranked[:k]) if x in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return gain / ideal if ideal else 0.0


THIS, BASE = "this tree", "base tree"


def scores_of(runs: list[list[str]], items: list[dict]) -> dict[str, float]:
    """R@10, MRR@10 and nDCG@10 of `runs` (ids, best first), one per item."""
    rel = [set(i["relevant"]) for i in items]
    n = max(len(items), 1)
    return {"R@10": sum(bool(set(r[:10]) & s) for r, s in zip(runs, rel)) / n,
            "MRR@10": sum(reciprocal_rank(r, s) for r, s in zip(runs, rel)) / n,
            "nDCG@10": sum(ndcg(r, s) for r, s in zip(runs, rel)) / n}


def experts_run(clients: dict[str, httpx.Client], items: list[dict]
                ) -> dict[str, tuple[list[list[str]], list[float]]]:
    """Each item through /api/experts of every server, the servers taking turns first (so the
    machine's load falls on them alike): per server, its runs and client times."""
    out: dict[str, tuple[list[list[str]], list[float]]] = {label: ([], []) for label in clients}
    labels = list(clients)
    for i, item in enumerate(items):
        for label in (labels if i % 2 == 0 else labels[::-1]):
            started = time.perf_counter()
            response = clients[label].get("/api/experts", params={"q": item["query"], "before": item["before"],
                                                                  "size": 10})
            out[label][1].append(1000 * (time.perf_counter() - started))
            response.raise_for_status()
            out[label][0].append([p["id"] for p in response.json()["results"]])
    return out


def voting_run(client: httpx.Client, items: list[dict]) -> tuple[list[list[str]], list[float]]:
    """The baseline: the authors of search's top 50, each result voting 1/rank for its people."""
    runs, took = [], []
    for item in items:
        started = time.perf_counter()
        response = client.get("/api/search", params={"q": item["query"], "size": 50,
                                                     "year": f"1900..{item['before'] - 1}"})
        took.append(1000 * (time.perf_counter() - started))
        response.raise_for_status()
        votes: dict[str, float] = defaultdict(float)
        for rank, result in enumerate(response.json()["results"]):
            for person in result["authors"]:
                if person["id"]:
                    votes[person["id"]] += 1.0 / (rank + 1)
        runs.append(sorted(votes, key=lambda p: (-votes[p], p))[:10])
    return runs, took


def topic_latency(clients: dict[str, httpx.Client], topics: list[str]) -> dict[str, list[float]]:
    """Client time of /api/experts per topic and server, the servers taking turns first."""
    took: dict[str, list[float]] = {label: [] for label in clients}
    labels = list(clients)
    for i, topic in enumerate(topics):
        for label in (labels if i % 2 == 0 else labels[::-1]):
            started = time.perf_counter()
            clients[label].get("/api/experts", params={"q": topic}).raise_for_status()
            took[label].append(1000 * (time.perf_counter() - started))
    return took


ABLATION = (("both (the product)", {}), ("text only", {"vector_weight": 0.0}),
            ("vectors only", {"text_weight": 0.0}), ("no recency weight", {"recency_half_life_years": 0.0}),
            ("no author-position weight", {"middle_author_weight": 1.0}),
            ("no group spread", {"group_discount": 0.0}),
            ("no signature phrases", {"phrase_weight": 0.0}),
            ("the query's first 32 words embedded (not 64)", {"query_vector_words": 32}),
            ("query terms at their counts, text weight 2 (main c992223's ranking)",
             {"term_counts": True, "text_weight": 2.0}),
            ("query terms at their counts (text weight 3)", {"term_counts": True}),
            ("text weight 2 (not 3)", {"text_weight": 2.0}),
            ("vectors at the text's weight (3 and 3)", {"vector_weight": 3.0}),
            ("recency half-life 2 years (not 4)", {"recency_half_life_years": 2.0}),
            ("a person's best 3 works count (not 5)", {"top_papers": 3}))


def ablation(db: Path, sets: list[tuple[str, list[dict]]], model: Path | None
             ) -> tuple[list[tuple[str, list[dict[str, float]]]], float, int]:
    """The ablation in process (the same code the server runs), with the learned ranking of
    people re-ordering the product's voting when a `model` is given, and the profiles' build."""
    from paperfind.core import Paperfind
    from paperfind.index.profiles import PersonProfiles
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.settings import Settings

    pf = Paperfind(Settings(db_path=db))
    backend = pf.searcher().backend()
    docs = backend.index.docs
    started = time.perf_counter()
    profiles = PersonProfiles.build(docs.author_indptr, docs.author, docs.work)
    build_ms = 1000 * (time.perf_counter() - started)
    names = backend.index.names
    import numpy as np

    def slug(author_id: int) -> str:
        return names.card(int(np.searchsorted(names.ids, author_id)))["slug"]

    base = pf.settings.search.experts
    variants = list(ABLATION)
    if model is not None:
        variants.insert(1, (f"learned ranking of people ({model.name}, the voting's first "
                            f"{base.learned_depth:,} re-ordered)", {"learned": True, "learned_model": model}))
    rows = []
    for label, change in variants:
        settings = replace(base, **change)
        figures = []
        for _, items in sets:
            runs = [[slug(e.author_id) for e in find_experts(
                backend, ExpertQuery(text=i["query"], before=i["before"]), settings).experts[:10]] for i in items]
            figures.append(scores_of(runs, items))
        rows.append((label, figures))
        print(f"  {label}: {figures}", flush=True)
    return rows, build_ms, profiles.nbytes


def served(db: Path, sets: list[tuple[str, list[dict]]], topics: list[str],
           base_tree: Path | None = None) -> dict:
    """One `paperfind serve` of this tree (and one of `base_tree`'s code beside it): each dev set
    through /api/experts of each, search voting on this tree's, and the topics' latency."""
    trees = {THIS: REPO, **({BASE: base_tree} if base_tree else {})}
    servers: dict[str, object] = {}
    out: dict = {"experts": {}, "voting": {}}
    try:
        for label, tree in trees.items():
            port = free_port()
            servers[label] = (start_server(db, port, cwd=tree), port)
        clients = {label: httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
                   for label, (_, port) in servers.items()}
        for client in clients.values():
            client.get("/api/experts", params={"q": "warm up the query model"}).raise_for_status()
        for name, items in sets:
            out["voting"][name] = voting_run(clients[THIS], items)
            for label, run in experts_run(clients, items).items():
                out["experts"].setdefault(label, {})[name] = run
        out["topics"] = topic_latency(clients, topics)
        for client in clients.values():
            client.close()
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a database of the bundled corpus, with vectors")
    parser.add_argument("--build", nargs="*", choices=[name for name, _, _ in DEV_SETS],
                        help="rewrite these dev sets first (all without a name)")
    parser.add_argument("--no-ablation", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print, do not record in RESULTS.md")
    parser.add_argument("--model", type=Path, help="a model of python -m paperfind.rank.train_experts, "
                        "measured in process beside the product")
    parser.add_argument("--limit", type=int, help="only each set's first N papers (a smoke run; never recorded)")
    parser.add_argument("--base-tree", type=Path, help="another checkout (a base ref's) whose server "
                        "answers beside this tree's, the two taking turns")
    parser.add_argument("--heading", default="experts (issue 30): a second dev set, the learned ranking of people measured",
                        help="the section of RESULTS.md the run is recorded in")
    args = parser.parse_args(argv)
    if args.limit:
        args.no_write = True
    if args.build is not None:
        for name, path, venue_years in DEV_SETS:
            if args.build and name not in args.build:
                continue
            built = build_dev(args.db, venue_years, barred_for(name))
            path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in built), encoding="utf-8")
            print(f"{len(built)} papers -> {path}")
    sets = [(name, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][:args.limit])
            for name, path, _ in DEV_SETS]
    from bench.inst_topic import TOPICS

    topics = [english for english, _ in TOPICS]
    run = served(args.db, sets, topics, args.base_tree)
    lines = [f"Dev sets (rules in bench/experts_dev.md), 200 papers each: {sets_text()}; "
             "the abstract is the query, before = its year. Database "
             f"{args.db.name}, through the HTTP API, one server"
             + (f" per tree (this tree and {args.base_tree}, asked in turns)" if args.base_tree else "")
             + ", the baseline in the same run.", "",
             "| method | set | R@10 | MRR@10 | nDCG@10 | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|"]
    methods = (("search voting (top 50 of /api/search, 1/rank votes)", run["voting"]),
               *((f"/api/experts ({label})", runs) for label, runs in run["experts"].items()))
    for label, runs in methods:
        for name, items in sets:
            found, took = runs[name]
            figures = scores_of(found, items)
            p50, p95 = p50_p95(took)
            lines.append(f"| {label} | {name} | {figures['R@10']:.3f} | {figures['MRR@10']:.3f} | "
                         f"{figures['nDCG@10']:.3f} | {p50:.0f} | {p95:.0f} |")
    lines += ["", "/api/experts latency, client wall time, a topic of a few words "
              f"({len(topics)} field topics) and a whole abstract (the {sum(len(i) for _, i in sets)} of the dev sets):", "",
              "| server | topic p50 ms | topic p95 ms | abstract p50 ms | abstract p95 ms |", "|---|---|---|---|---|"]
    for label, runs in run["experts"].items():
        abstracts = [t for name, _ in sets for t in runs[name][1]]
        topic = p50_p95(run["topics"][label])
        lines.append(f"| /api/experts ({label}) | {topic[0]:.0f} | {topic[1]:.0f} | "
                     f"{p50_p95(abstracts)[0]:.0f} | {p50_p95(abstracts)[1]:.0f} |")
    record_file = args.model.with_suffix(".json") if args.model else None
    record = json.loads(record_file.read_text(encoding="utf-8")) if record_file and record_file.exists() else None
    if record:
        lines += ["", f"The learned model ({args.model.name}, {args.model.stat().st_size / 1e3:.0f} KB, "
                  f"`{record['command']}`): {record['queries']:,} leave-one-out queries of "
                  f"{len(record['queries_by_venue_year'])} venue-years outside the judge's and both dev sets' "
                  f"({record['queries_with_a_relevant_candidate']:,} with a relevant person among the voting's first "
                  f"candidates), {record['candidates']:,} candidates; collecting their features took "
                  f"{record['collect_seconds']:.0f} s, the whole training {record['seconds']:.0f} s."]
    print("\n".join(lines), flush=True)  # the HTTP figures, before the long ablation
    if not args.no_ablation:
        rows, build_ms, nbytes = ablation(args.db, sets, args.model)
        lines += ["", "Ablation, in process (the same scoring code, every dev set):", "", *table_head("variant")]
        lines += [f"| {label} | " + " | ".join(f"{f['R@10']:.3f} | {f['MRR@10']:.3f} | {f['nDCG@10']:.3f}"
                                                for f in figures) + " |" for label, figures in rows]
        lines += ["", f"Profiles (paperfind/index/profiles.py): built from the index's author column in "
                  f"{build_ms:.0f} ms on first use, {nbytes / 1e6:.1f} MB in memory, nothing on disk."]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write:
        append_results(args.heading, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
