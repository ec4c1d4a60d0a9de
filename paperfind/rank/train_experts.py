"""Train the learned ranking of people (who works on this) on leave-one-out queries.

    python -m paperfind.rank.train_experts --db DB [--per-venue-year 200] [--out FILE]

DB is a database of the bundled corpus with its vectors (the model reads the cosines). A query
is a paper's abstract, `before` its year, exactly as the expert finder is judged (issue 30);
its relevant people are the paper's own resolved authors with at least 3 works before that year
(a work's versions counted once). The candidates are what the finder serves: the voting's
first `learned_depth` people (`ExpertSettings`), with the features `paperfind.search.experts`
computes for them when serving.

Queries come only from venue-years that no set measures (`HELD_OUT`: the judging years of
issue 30, NeurIPS 2023, ICML 2024 and ICLR 2024, and the three dev sets' venue-years of
bench/experts_dev.md), and never from a work with a version in one of them. Everything is
seeded and single-threaded: the same database and arguments give the same model. Writes the
model (LightGBM text dump) and, beside it, a JSON record of the queries, the parameters and the
cross-validation figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from paperfind.search.expert_learned import DEFAULT_EXPERTS_MODEL, FEATURES

# never queries, never their works: the judge (issue 30), dev sets 1, 2 and 3 (bench/experts_dev.md;
# models trained before dev set 3 existed drew 30 queries from each of its venue-years)
HELD_OUT = frozenset({("nips", 2023), ("icml", 2024), ("iclr", 2024),
                      ("nips", 2022), ("iclr", 2023), ("icml", 2023),
                      ("nips", 2024), ("iclr", 2025), ("icml", 2025),
                      ("cvpr", 2023), ("acl", 2023), ("cvpr", 2024), ("acl", 2024)})
FIRST_YEAR = 2019  # earlier venue-years leave too few earlier works to learn from
# the judge's venues: each of their venue-years gives this many times the queries of another's
MAIN_VENUES, MAIN_WEIGHT = frozenset({"nips", "icml", "iclr"}), 3
MIN_EARLIER_WORKS = 3
MIN_ABSTRACT_WORDS = 50
SEED = 30
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [10],
    "lambdarank_truncation_level": 20,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "learning_rate": 0.05,
    "feature_fraction": 0.9,
    "feature_fraction_seed": 0,
    "bagging_fraction": 1.0,
    "lambda_l2": 1.0,
    "seed": 0,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "verbose": -1,
}
ROUNDS = 300


@dataclass
class Query:
    key: str
    venue_year: str
    text: str
    before: int
    relevant: frozenset[int]  # author ids


def training_queries(db: Path, per_venue_year: int, seed: int = SEED,
                     min_earlier_works: int = MIN_EARLIER_WORKS) -> list[Query]:
    """Up to `per_venue_year` papers of every venue-year from `FIRST_YEAR` outside `HELD_OUT`
    (`MAIN_WEIGHT` times as many of NeurIPS, ICML and ICLR, the judge's venues; abstract >= 50
    words, one author with >= 3 earlier works; no work with a version in a held-out venue-year),
    drawn with `random.Random(seed)` in key order."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    works_by_year: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for author, year, work in conn.execute(
            "SELECT pa.author_id, p.year, COALESCE(p.work_id, p.id) FROM paper_authors pa "
            "JOIN papers p ON p.id = pa.paper_id WHERE pa.author_id IS NOT NULL"):
        works_by_year[author][year].add(work)
    held_works = {w for v, y, w in conn.execute("SELECT venue, year, COALESCE(work_id, id) FROM papers")
                  if (v, y) in HELD_OUT}
    venue_years = [(v, y) for v, y in conn.execute(
        "SELECT DISTINCT venue, year FROM papers WHERE year >= ? ORDER BY venue, year", (FIRST_YEAR,))
        if (v, y) not in HELD_OUT]
    rng = random.Random(seed)
    out = []
    for venue, year in venue_years:
        pool = []
        for pid, key, abstract, work in conn.execute(
                "SELECT id, key, abstract, COALESCE(work_id, id) FROM papers WHERE venue = ? AND year = ? "
                "ORDER BY key", (venue, year)):
            if work in held_works or len((abstract or "").split()) < MIN_ABSTRACT_WORDS:
                continue
            people = [a for (a,) in conn.execute("SELECT author_id FROM paper_authors WHERE paper_id = ? "
                                                 "AND author_id IS NOT NULL ORDER BY position", (pid,))]
            relevant = frozenset(a for a in people if len(set().union(
                *(w for y, w in works_by_year[a].items() if y < year))) >= min_earlier_works)
            if relevant:
                pool.append(Query(key, f"{venue}{year}", abstract, year, relevant))
        wanted = per_venue_year * (MAIN_WEIGHT if venue in MAIN_VENUES else 1)
        out += rng.sample(pool, min(wanted, len(pool)))
    return out


def collect(backend, queries: list[Query], settings, progress: bool = True) -> dict:
    """Features and labels of every query's candidates (the voting's first `learned_depth`)."""
    from paperfind.search.experts import ExpertQuery, candidate_features, find_experts

    local = getattr(backend, "local", backend)
    profiles = local.profiles()
    plain = replace(settings, learned=False)
    feats, labels, owner, found = [], [], [], []
    started = time.perf_counter()
    for i, q in enumerate(queries):
        got = find_experts(backend, ExpertQuery(text=q.text, before=q.before), plain,
                           needed=settings.learned_depth)
        x = candidate_features(local, profiles, got.papers, got.experts, got.eligible,
                               got.reference_year, q.text, settings)
        y = np.asarray([e.author_id in q.relevant for e in got.experts[:settings.learned_depth]],
                       dtype=np.int32)
        feats.append(x)
        labels.append(y)
        owner.append(np.full(len(y), i, dtype=np.int32))
        found.append(bool(y.any()))
        if progress and (i + 1) % 200 == 0:
            print(f"  {i + 1}/{len(queries)} queries, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return {"features": np.concatenate(feats), "labels": np.concatenate(labels),
            "query": np.concatenate(owner), "found": np.asarray(found)}


def fit(data: dict, queries: np.ndarray, params: dict = PARAMS, rounds: int = ROUNDS):
    """A booster trained on the candidates of `queries` that hold a relevant person."""
    import lightgbm

    queries = np.asarray([q for q in queries if data["found"][q]])
    sel = np.isin(data["query"], queries)
    sizes = np.bincount(data["query"][sel], minlength=int(data["query"].max()) + 1)[queries]
    ds = lightgbm.Dataset(data["features"][sel], data["labels"][sel], group=sizes.tolist(),
                          feature_name=list(FEATURES), free_raw_data=True, params={"verbose": -1})
    return lightgbm.train(params, ds, num_boost_round=rounds)


def recall_mrr(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(a relevant person in the top 10, reciprocal rank of the first) in score order."""
    order = np.lexsort((np.arange(len(scores)), -scores))[:10]
    hits = np.flatnonzero(labels[order])
    return (1.0, 1.0 / (hits[0] + 1)) if len(hits) else (0.0, 0.0)


def cross_validate(data: dict, k: int = 3, seed: int = SEED, params: dict = PARAMS,
                   rounds: int = ROUNDS) -> list[dict]:
    """R@10 and MRR@10 per held-out fold, the voting's order against the model's (every query
    counts, those without a relevant candidate as 0 for both)."""
    n = len(data["found"])
    order = list(range(n))
    random.Random(seed).shuffle(order)
    out = []
    for f in range(k):
        test = np.asarray(sorted(order[f::k]))
        train = np.setdiff1d(np.arange(n), test)
        booster = fit(data, train, params, rounds)
        voting, model = np.zeros(2), np.zeros(2)
        for q in test:
            sel = data["query"] == q
            y = data["labels"][sel]
            voting += recall_mrr(-np.arange(len(y), dtype=np.float64), y)
            model += recall_mrr(booster.predict(data["features"][sel], num_threads=1), y)
        out.append({"fold": f, "queries": len(test),
                    "voting": {"R@10": round(float(voting[0]) / len(test), 4), "MRR@10": round(float(voting[1]) / len(test), 4)},
                    "model": {"R@10": round(float(model[0]) / len(test), 4), "MRR@10": round(float(model[1]) / len(test), 4)}})
        print(f"  fold {f}: {out[-1]}", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a database of the bundled corpus, with vectors")
    parser.add_argument("--per-venue-year", type=int, default=30)
    parser.add_argument("--out", type=Path, default=DEFAULT_EXPERTS_MODEL)
    parser.add_argument("--features", type=Path, help="keep the collected features here (.npz), "
                        "and read them from there when it exists")
    parser.add_argument("--folds", type=int, default=0, help="cross-validate first (0: no)")
    args = parser.parse_args(argv)
    from paperfind.rank.train import open_searcher
    from paperfind.search.settings import ExpertSettings
    from paperfind.settings import Settings

    started = time.perf_counter()
    queries = training_queries(args.db, args.per_venue_year)
    settings = ExpertSettings()
    if args.features and args.features.exists():
        data = dict(np.load(args.features))
    else:
        backend = open_searcher(args.db, Settings(db_path=args.db).vector_dir).backend()
        if not backend.vectors_ready():
            raise SystemExit(f"{args.db}: no vectors; the model reads the cosines")
        data = collect(backend, queries, settings)
        if args.features:
            np.savez_compressed(args.features, **data)
    collect_s = time.perf_counter() - started
    cv = cross_validate(data, args.folds) if args.folds > 1 else []
    booster = fit(data, np.arange(len(data["found"])))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(args.out))
    counts: dict[str, int] = defaultdict(int)
    for q in queries:
        counts[q.venue_year] += 1
    record = {"command": "python -m paperfind.rank.train_experts --db DB" + (
                  f" --per-venue-year {args.per_venue_year}" if args.per_venue_year != 30 else ""),
              "held_out_venue_years": sorted(f"{v}{y}" for v, y in HELD_OUT),
              "queries": len(queries), "queries_with_a_relevant_candidate": int(data["found"].sum()),
              "candidates": int(len(data["labels"])), "queries_by_venue_year": dict(sorted(counts.items())),
              "features": list(FEATURES), "params": PARAMS, "rounds": ROUNDS,
              "cross_validation": cv, "collect_seconds": round(collect_s, 1),
              "seconds": round(time.perf_counter() - started, 1)}
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: record[k] for k in ("queries", "queries_with_a_relevant_candidate",
                                              "candidates", "seconds")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
