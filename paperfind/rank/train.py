"""Train the lambdarank re-ranker on authors' TL;DRs of their own papers.

    python -m paperfind.rank.train --db DB [--corpus FILE] [--max-queries 2400] [--out FILE]

DB is a database built from the corpus, with its vectors in DB.vectors/ or beside the corpus
file (the bundled ones: the keys are the same). From a clone, two commands (1 min 52 s for the
second on the 80k corpus, 2 shared cores):

    paperfind ingest --db /tmp/train.db paperfind/data/corpus
    python -m paperfind.rank.train --db /tmp/train.db

A query is the TL;DR of a paper of a training venue-year; its relevant candidates are that
paper and its other versions. The candidates are exactly what the searcher ranks at query time:
today's top `--depth` works in hybrid mode, with the features `paperfind.search.learned`
computes. Papers of the development years (ICLR 2017, whose TL;DRs are the tldr dev set, and
ICLR 2018) are never queries, and neither is any work with a version in those years.
Everything is seeded and single-threaded: the same database and arguments give the same model,
byte for byte. Writes the model (LightGBM text dump) and, beside it, a JSON record of the
training set, the features, the parameters and the cross-validation figures per fold.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperfind.ingest.corpus import corpus_files, corpus_lines
from paperfind.ingest.run import file_sha256
from paperfind.search.learned import DEFAULT_MODEL, FEATURES

DEV_YEARS = frozenset({("iclr", 2017), ("iclr", 2018)})  # never queries, never their works
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [1, 10],
    "lambdarank_truncation_level": 10,
    "num_leaves": 7,
    "min_data_in_leaf": 40,
    "learning_rate": 0.05,
    "feature_fraction": 1.0,
    "bagging_fraction": 1.0,
    "lambda_l2": 1.0,
    "seed": 0,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "verbose": -1,
}
ROUNDS = 300
# Features whose direction is known never lower the score as they grow (a better title match,
# more of the query covered, a higher cosine): the model may not learn the opposite from a few
# odd training queries, which is what keeps title and keyword queries safe under a model
# trained on descriptions.
INCREASING = frozenset({"pipeline_rel", "bm25f_rel", "bm25_title_rel", "bm25_abstract_rel",
                        "matched_share", "title_match", "title_cover", "proximity", "coverage",
                        "keyword", "author", "phrase", "cosine"})
DECREASING = frozenset({"pipeline_rank", "cosine_gap"})


def monotone(columns: list[int] | None = None) -> list[int]:
    """LightGBM's monotone_constraints for the feature `columns` (default: all)."""
    names = FEATURES if columns is None else [FEATURES[c] for c in columns]
    return [1 if n in INCREASING else -1 if n in DECREASING else 0 for n in names]


@dataclass
class Query:
    key: str
    text: str
    work: int


@dataclass
class TrainingSet:
    """Candidates of every query, stacked: features, labels and the query each belongs to."""

    features: np.ndarray  # (candidates, len(FEATURES)) float32
    labels: np.ndarray  # 1 = the TL;DR's paper or another version of it
    query: np.ndarray  # query number per candidate
    works: list[int]  # the target's work per query (folds are grouped by it)
    found: list[bool]  # whether a query's paper is among its candidates

    def group_sizes(self, queries: np.ndarray) -> list[int]:
        return [int(np.count_nonzero(self.query == q)) for q in queries]


def corpus_sha256(corpus: Path) -> str:
    """The corpus's digest: its file's, or for a shard folder that of the shards' digests."""
    files = corpus_files(corpus)
    if len(files) == 1 and files[0] == corpus:
        return file_sha256(corpus)
    return hashlib.sha256("".join(f"{p.name} {file_sha256(p)}\n" for p in files).encode()).hexdigest()


def training_queries(corpus: Path, backend) -> tuple[list[Query], dict]:
    """The TL;DR queries of the corpus outside the development years, with their counts."""
    works = backend.works()
    dev_works = set()
    records = []
    for line in corpus_lines(corpus):
        rec = json.loads(line)
        venue, year = str(rec.get("venue", "")), int(rec.get("year") or 0)
        try:
            row = int(backend.handles_of([rec["key"]])[0])
        except (KeyError, ValueError):
            continue
        if row is None or row < 0:
            continue
        if (venue, year) in DEV_YEARS:
            dev_works.add(int(works[row]))
        tldr = " ".join(str(rec.get("tldr") or "").split())
        if tldr and (venue, year) not in DEV_YEARS:
            records.append((rec["key"], tldr, int(works[row]), f"{venue}{year}"))
    kept = [r for r in records if r[2] not in dev_works]
    counts: dict[str, int] = {}
    for r in kept:
        counts[r[3]] = counts.get(r[3], 0) + 1
    info = {"tldrs_outside_dev_years": len(records), "dropped_work_in_dev_year": len(records) - len(kept),
            "queries_by_venue_year": dict(sorted(counts.items()))}
    return [Query(k, t, w) for k, t, w, _ in sorted(kept)], info


def collect(searcher, queries: list[Query], depth: int, progress: bool = True) -> tuple[TrainingSet, dict]:
    """Run every query through the searcher's first stage and label its candidates."""
    backend = searcher.backend()
    works = backend.works()
    feats, labels, owner, qworks, found = [], [], [], [], []
    not_fused = titled = 0
    title_cover = FEATURES.index("title_cover")
    started = time.perf_counter()
    for i, q in enumerate(queries):
        got = searcher.first_stage(q.text, depth)
        if got is None:  # a kind that ranks by words alone: the model never sees it
            not_fused += 1
            continue
        rows, x = got
        if len(x) and x[:, title_cover].max() >= searcher.settings.learned_title_cover:
            titled += 1  # the searcher keeps today's order there (a title typed): not trained on
            continue
        y = (works[rows] == q.work).astype(np.int32)
        n = len(qworks)
        feats.append(x)
        labels.append(y)
        owner.append(np.full(len(rows), n, dtype=np.int32))
        qworks.append(q.work)
        found.append(bool(y.any()))
        if progress and (i + 1) % 200 == 0:
            print(f"  {i + 1}/{len(queries)} queries, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    ts = TrainingSet(np.concatenate(feats), np.concatenate(labels), np.concatenate(owner), qworks, found)
    return ts, {"queries_run": len(queries), "not_fused": not_fused, "title_covered": titled,
                "queries": len(qworks),
                "label_missing": int(len(found) - sum(found)), "candidates": int(len(ts.labels))}


def fit(ts: TrainingSet, queries: np.ndarray, params: dict, rounds: int,
        columns: list[int] | None = None):
    """A booster trained on the candidates of `queries` (numbers into the training set), on
    the feature `columns` (default: all)."""
    import lightgbm

    columns = list(range(len(FEATURES))) if columns is None else columns
    sel = np.isin(ts.query, queries)
    ds = lightgbm.Dataset(ts.features[sel][:, columns], ts.labels[sel], group=ts.group_sizes(queries),
                          feature_name=[FEATURES[c] for c in columns], free_raw_data=True,
                          params={"verbose": -1})
    return lightgbm.train(dict(params, monotone_constraints=monotone(columns)), ds,
                          num_boost_round=rounds)


def mrr_at_10(scores: np.ndarray, labels: np.ndarray) -> float:
    """Reciprocal rank of the first relevant candidate in score order (ties by position)."""
    order = np.lexsort((np.arange(len(scores)), -scores))[:10]
    hits = np.flatnonzero(labels[order])
    return 1.0 / (hits[0] + 1) if len(hits) else 0.0


def folds_by_work(works: list[int], k: int, seed: int) -> list[np.ndarray]:
    """Query numbers per fold; all queries of one work fall in the same fold."""
    unique = sorted(set(works))
    random.Random(seed).shuffle(unique)
    fold_of = {w: i % k for i, w in enumerate(unique)}
    return [np.asarray([q for q, w in enumerate(works) if fold_of[w] == f], dtype=np.int64) for f in range(k)]


def cross_validate(ts: TrainingSet, k: int, params: dict, rounds: int, seed: int,
                   columns: list[int] | None = None, quiet: bool = False) -> list[dict]:
    """MRR@10 per held-out fold, today's order against the model's (queries whose paper is not
    among the candidates count 0 for both)."""
    out = []
    columns = list(range(len(FEATURES))) if columns is None else columns
    folds = folds_by_work(ts.works, k, seed)
    for f, held in enumerate(folds):
        train = np.concatenate([folds[g] for g in range(k) if g != f])
        booster = fit(ts, train[[ts.found[q] for q in train]], params, rounds, columns)
        base, learned = [], []
        for q in held.tolist():
            sel = ts.query == q
            x, y = ts.features[sel], ts.labels[sel]
            base.append(mrr_at_10(-x[:, FEATURES.index("pipeline_rank")], y))
            learned.append(mrr_at_10(booster.predict(x[:, columns], num_threads=1), y))
        out.append({"fold": f, "queries": len(held), "mrr10_today": round(float(np.mean(base)), 4),
                    "mrr10_learned": round(float(np.mean(learned)), 4)})
        if not quiet:
            print(f"  fold {f}: {len(held)} queries, MRR@10 today {out[-1]['mrr10_today']:.4f} "
                  f"learned {out[-1]['mrr10_learned']:.4f}", file=sys.stderr)
    return out


def open_searcher(db: Path, vectors: Path):
    """A searcher over `db` (its index built if missing) with the vectors of `vectors`."""
    from paperfind.index.manager import build_index, index_is_current
    from paperfind.search.engine import open_searcher
    from paperfind.search.settings import SearchSettings
    from paperfind.settings import Settings
    from paperfind.store import Store

    store = Store(db, readonly=True)
    root = Settings(db_path=db).index_dir
    if not index_is_current(root, store.data_version()):
        build_index(store, root)
    return open_searcher(root, store, SearchSettings(result_cache=0, learned_ranking=False), vector_dir=vectors)


def main(argv: list[str] | None = None) -> int:
    from paperfind.settings import BUNDLED_CORPUS, Settings

    ap = argparse.ArgumentParser(prog="python -m paperfind.rank.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True, help="database built from --corpus")
    ap.add_argument("--vectors", type=Path, help="vector directory (default: DB.vectors, else the "
                    "vectors shipped beside --corpus)")
    ap.add_argument("--corpus", type=Path, default=BUNDLED_CORPUS, help="where the TL;DRs are read")
    ap.add_argument("--max-queries", type=int, default=2400, help="seeded sample of the TL;DRs (0 = all)")
    ap.add_argument("--depth", type=int, default=100, help="candidates per query (works)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args(argv)
    paths = Settings(db_path=args.db, corpus_path=args.corpus)
    vectors = args.vectors or paths.vector_dir
    if args.vectors is None and not (vectors / "CURRENT").exists():
        vectors = paths.bundled_vector_dir  # a generation folder (a shard folder is assembled by serve)
    for path, what in ((args.db, "database"), (args.corpus, "corpus"), (vectors / "CURRENT", "vectors")):
        if not path.exists():
            print(f"error: {path}: no such {what}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    searcher = open_searcher(args.db, vectors)
    backend = searcher.backend()
    queries, info = training_queries(args.corpus, backend)
    if args.max_queries and len(queries) > args.max_queries:
        queries = sorted(random.Random(args.seed).sample(queries, args.max_queries), key=lambda q: q.key)
    print(f"{len(queries)} queries ({info['tldrs_outside_dev_years']} TL;DRs outside the dev years, "
          f"{info['dropped_work_in_dev_year']} dropped for a version in one)", file=sys.stderr)
    ts, counts = collect(searcher, queries, args.depth)
    collected = time.perf_counter() - started
    print(f"{counts['queries']} fused queries, label missing from the top {args.depth} for "
          f"{counts['label_missing']} ({counts['label_missing'] / max(counts['queries'], 1):.1%}); "
          f"{collected:.0f} s", file=sys.stderr)
    params = dict(PARAMS, seed=args.seed)
    cv = cross_validate(ts, args.folds, params, args.rounds, args.seed)
    all_found = np.asarray([q for q in range(len(ts.works)) if ts.found[q]], dtype=np.int64)
    booster = fit(ts, all_found, params, args.rounds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(args.out))
    import lightgbm

    record = {
        "command": "python -m paperfind.rank.train " + " ".join(argv if argv is not None else sys.argv[1:]),
        "corpus": {"file": args.corpus.name, "sha256": corpus_sha256(args.corpus), "papers": int(backend.n_docs)},
        "excluded_venue_years": sorted(f"{v}{y}" for v, y in DEV_YEARS),
        "training_set": dict(info, **counts, max_queries=args.max_queries, depth=args.depth, seed=args.seed),
        "features": list(FEATURES),
        "params": dict(params, monotone_constraints=monotone()), "rounds": args.rounds, "lightgbm": lightgbm.__version__,
        "cross_validation": {"folds": args.folds, "grouped_by": "work", "per_fold": cv,
                             "mrr10_today": round(float(np.mean([f["mrr10_today"] for f in cv])), 4),
                             "mrr10_learned": round(float(np.mean([f["mrr10_learned"] for f in cv])), 4)},
        "feature_importance_gain": {name: round(float(g), 1) for name, g in sorted(
            zip(FEATURES, booster.feature_importance("gain")), key=lambda item: -item[1])},
        "seconds": {"candidates": round(collected, 1), "total": round(time.perf_counter() - started, 1)},
        "model_bytes": args.out.stat().st_size,
    }
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({record['model_bytes']:,} bytes) and {args.out.with_suffix('.json').name}; "
          f"CV MRR@10 today {record['cross_validation']['mrr10_today']:.4f} → learned "
          f"{record['cross_validation']['mrr10_learned']:.4f}; {record['seconds']['total']:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
