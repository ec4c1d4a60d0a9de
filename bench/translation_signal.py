"""A word-translation model learned from the training TL;DRs as a new ranking signal (issue 17).

    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.translation_signal plain
    flock /tmp/paperfind-heavy.lock .venv/bin/python -m bench.translation_signal learned

The learned re-ranker's features carry nothing new (bench/RESULTS.md, "Learned ranking: feature
ablation"), so this measures a signal none of them has: which words an author's TL;DR uses
for which words of the paper. IBM Model 1, t(TL;DR word | paper word), is fitted by EM on the
TL;DR → title + abstract pairs of the training venue-years (the same queries as
`paperfind.rank.train`: never ICLR 2017/2018, never a work with a version there), over the
index's own analysed terms. A candidate's score is the translation language model of the
query, sum over query terms of log(λ Σ_d t(q|d) P(d|paper) + (1 − λ) P(q|collection)).

- `plain`: the score re-orders today's hybrid top k (5, 10, 20) of natural-language queries,
  alone or as z(today's order) + w z(score). The weight is to be chosen on a tuning set of
  training-year queries, never on dev: the 328 CoRL 2022-2023 TL;DRs of the default corpus,
  whose pairs are left out of this run's translation model. Dev sets: tldr_dev, zh_dev,
  title_typo_dev (zh and title queries are not natural-kind, so they stay as today's).
- `learned`: the score as a feature of the lambdarank model (`paperfind.rank.train`'s
  candidates, folds, parameters and cross-validation on the bundled corpus, 2,400 TL;DRs), with
  the translation model fitted out of fold (each fold's works left out of its pairs); then the
  boosters with and without it re-order today's top 100 of the dev queries on the default
  corpus, as the searcher applies its model (natural and Chinese kinds, title-covered queries
  kept), against today's order in the same run.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter

import numpy as np

from bench.corpus import BUNDLED, database, ensure_index, load_set, open_searcher, vectors
from bench.metrics import percentile, reciprocal_rank
from bench.splade_rerank import reorder  # the same re-ordering rule as the SPLADE bench
from paperfind.ingest.corpus import corpus_lines

DEPTHS = (5, 10, 20)
WEIGHTS = ("alone", 0.1, 0.25, 0.5, 1.0)
LAMBDAS = (0.3, 0.6, 0.9)
DEV_SETS = ("tldr_dev", "zh_dev", "title_typo_dev")
TUNE_VENUE = "corl"


class Model1:
    """t(query word | document word) by EM over (TL;DR terms, paper terms) pairs."""

    def __init__(self, pairs: list[tuple[list[str], list[str]]], iterations: int = 6,
                 floor: float = 0.002) -> None:
        import scipy.sparse as sps

        self.vocab: dict[str, int] = {}
        ids = lambda words: np.unique([self.vocab.setdefault(w, len(self.vocab)) for w in words])
        qs, ds = zip(*[(ids(q), ids(d)) for q, d in pairs if q and d])
        v = len(self.vocab)
        qi = np.concatenate([np.repeat(q, len(d)) for q, d in zip(qs, ds)])
        di = np.concatenate([np.tile(d, len(q)) for q, d in zip(qs, ds)])
        starts = np.cumsum([0] + [len(q) for q in qs[:-1]])
        token = np.concatenate([np.repeat(np.arange(len(q)) + s, len(d)) for q, d, s in zip(qs, ds, starts)])
        pair_ids, inverse = np.unique(qi.astype(np.int64) * v + di, return_inverse=True)
        doc_word = pair_ids % v
        t = np.ones(len(pair_ids))
        for _ in range(iterations):  # E: each query word's alignment over the paper's words
            tv = t[inverse]
            counts = np.bincount(inverse, weights=tv / np.bincount(token, weights=tv)[token],
                                 minlength=len(pair_ids))
            t = counts / np.bincount(doc_word, weights=counts, minlength=v)[doc_word]  # M
        keep = t > floor
        self.table = sps.csr_matrix((t[keep], (pair_ids[keep] // v, doc_word[keep])), shape=(v, v))
        coll = np.bincount(np.concatenate([np.asarray([self.vocab[w] for w in d]) for q, d in pairs if q and d]),
                           minlength=v).astype(float)
        self.collection = (coll + 0.5) / (coll.sum() + 0.5 * v)
        self.pairs = len(qs)

    def scores(self, query_terms: list[str], docs: list[list[str]], lam: float) -> np.ndarray:
        """The query's log-likelihood under each paper's translation model."""
        import scipy.sparse as sps

        q = [self.vocab[w] for w in set(query_terms) if w in self.vocab]
        if not q or not docs:
            return np.zeros(len(docs))
        rows, cols, vals = [], [], []
        for j, terms in enumerate(docs):
            c = Counter(self.vocab[w] for w in terms if w in self.vocab)
            n = sum(c.values()) or 1
            for w, x in c.items():
                rows.append(w)
                cols.append(j)
                vals.append(x / n)
        p = sps.csr_matrix((vals, (rows, cols)), shape=(len(self.vocab), len(docs)))
        translated = np.asarray((self.table[q] @ p).todense())
        return np.log(lam * translated + (1 - lam) * self.collection[q][:, None]).sum(0)


def training_pairs(analyzer, keep) -> list[tuple[list[str], list[str], int]]:
    """(TL;DR terms, title + abstract terms, work) of the training queries `keep` admits."""
    by_key = {}
    for line in corpus_lines(BUNDLED):
        rec = json.loads(line)
        by_key[rec["key"]] = rec
    out = []
    for q in keep:
        rec = by_key[q.key]
        out.append((analyzer.terms(q.text), analyzer.terms(f"{rec.get('title') or ''} . {rec.get('abstract') or ''}"),
                    q.work))
    return out


def bundled_training_queries():
    """`paperfind.rank.train`'s training queries, read against the bundled corpus's index."""
    from paperfind.rank.train import open_searcher as train_searcher, training_queries

    ensure_index("bundled")
    searcher = train_searcher(database("bundled"), vectors("bundled"))
    queries, info = training_queries(BUNDLED, searcher.backend())
    return searcher, queries, info


def doc_terms(backend, analyzer, cache: dict, rows) -> list[list[str]]:
    out = []
    for r in rows:
        r = int(r)
        if r not in cache:
            d = backend.stored([r])[0]
            cache[r] = analyzer.terms(f"{d.get('title') or ''} . {d.get('abstract') or ''}")
        out.append(cache[r])
    return out


def plain(args) -> None:
    """Re-order today's top k of natural queries by the translation score."""
    from paperfind.search.fusion import classify_query
    from paperfind.search.response import SearchRequest
    from paperfind.search.settings import SearchSettings
    from paperfind.text.analyze import Analyzer

    analyzer = Analyzer()
    started = time.perf_counter()
    _, queries, _ = bundled_training_queries()
    train = [q for q in queries if not q.key.startswith(TUNE_VENUE)]
    model = Model1([(q, d) for q, d, _ in training_pairs(analyzer, train)])
    print(f"Model 1 from {model.pairs} TL;DR pairs (CoRL left out), {len(model.vocab):,} terms, "
          f"{model.table.nnz:,} entries; {time.perf_counter() - started:.0f} s", file=sys.stderr)
    store, root = ensure_index("default")
    searcher = open_searcher(root, store, SearchSettings(result_cache=0), vector_dir=vectors("default"))
    backend = searcher.backend()
    sets = {}
    tune = []
    works = backend.works()
    for row_key, tldr in _tuning_queries(store):
        row = int(backend.handles_of([row_key])[0])
        rel = {backend.key_of(int(r)) for r in np.flatnonzero(works == works[row])}
        tune.append({"qid": row_key, "query": tldr, "relevant": dict.fromkeys(rel, 1)})
    sets["tune (CoRL TL;DRs)"] = tune
    for name in DEV_SETS:
        sets[name] = load_set(name)
    rows, took, cache = [], [], {}
    for name, items in sets.items():
        figures = {}
        for it in items:
            response = searcher.search(SearchRequest(q=it["query"], limit=100, mode="hybrid"))
            keys = [r["key"] for r in response.results]
            natural = classify_query(it["query"]).name == "natural"
            start = time.perf_counter()
            terms = doc_terms(backend, analyzer, cache, backend.handles_of(keys[: max(DEPTHS)]))
            qt = analyzer.terms(it["query"])
            by_lam = {lam: model.scores(qt, terms, lam) for lam in LAMBDAS}
            took.append((time.perf_counter() - start) * 1000 / len(LAMBDAS))
            strict = set(it["relevant"])
            lenient = strict | set(it.get("dup_keys", []))
            for k, w, lam in [(0, None, None)] + [(k, w, lam) for k in DEPTHS for lam in LAMBDAS for w in WEIGHTS]:
                ranked = keys if w is None or not natural else reorder(keys, by_lam[lam], k, w)
                f = figures.setdefault((k, w, lam), ([], []))
                f[0].append(reciprocal_rank(ranked, strict))
                f[1].append(reciprocal_rank(ranked, lenient))
        for (k, w, lam), (s, le) in figures.items():
            rows.append((name, k, w, lam, statistics.fmean(s), statistics.fmean(le)))
        print(f"{name}: {len(items)} queries", file=sys.stderr, flush=True)
    took.sort()
    print(f"translation score of {max(DEPTHS)} papers per query (terms cached): p50 {statistics.median(took):.2f} ms, "
          f"p95 {percentile(took, 95):.2f} ms\n")
    print("| set | top k | λ | weight | MRR@10 strict | MRR@10 lenient |\n|---|---:|---:|---|---:|---:|")
    for name, k, w, lam, s, le in rows:
        what = ("today (baseline)", "", "") if w is None else (k, lam, w)
        print(f"| {name} | {what[0]} | {what[1]} | {what[2]} | {s:.3f} | {le:.3f} |")


def _tuning_queries(store) -> list[tuple[str, str]]:
    """(key, TL;DR) of the default corpus's CoRL 2022-2023 papers: training venue-years."""
    rows = store.conn.execute("SELECT key, tldr FROM papers WHERE venue = ? AND year IN (2022, 2023) "
                              "AND tldr <> '' ORDER BY key", (TUNE_VENUE,)).fetchall()
    return [(k, " ".join(t.split())) for k, t in rows]


def learned(args) -> None:
    """The translation score as a 22nd/23rd feature of the lambdarank model: CV and dev."""
    import paperfind.rank.train as train
    from paperfind.search.fusion import classify_query
    from paperfind.search.learned import FEATURES
    from paperfind.search.settings import SearchSettings
    from paperfind.text.analyze import Analyzer

    analyzer = Analyzer()
    started = time.perf_counter()
    searcher, queries, info = bundled_training_queries()
    backend = searcher.backend()
    works = backend.works()
    all_pairs = training_pairs(analyzer, queries)
    sample = sorted(random.Random(args.seed).sample(queries, args.max_queries), key=lambda q: q.key)
    cover = FEATURES.index("title_cover")
    kept = []  # (query, rows, features, labels)
    for q in sample:
        got = searcher.first_stage(q.text, 100)
        if got is None:
            continue
        rows, x = got
        if len(x) and x[:, cover].max() >= searcher.settings.learned_title_cover:
            continue
        kept.append((q, rows, x, (works[rows] == q.work).astype(np.int32)))
    print(f"{len(kept)} training queries with candidates; {time.perf_counter() - started:.0f} s", file=sys.stderr)
    folds = train.folds_by_work([q.work for q, *_ in kept], args.folds, args.seed)
    extra = np.zeros((sum(len(r) for _, r, _, _ in kept), 2), dtype=np.float32)
    offsets = np.cumsum([0] + [len(r) for _, r, _, _ in kept])
    cache: dict = {}
    for f, held in enumerate(folds):  # the translation model never saw a held-out query's work
        out_works = {kept[i][0].work for i in held.tolist()}
        model = Model1([(a, b) for a, b, w in all_pairs if w not in out_works])
        for i in held.tolist():
            q, rows, _, _ = kept[i]
            extra[offsets[i]: offsets[i + 1]] = _translation_features(
                model.scores(analyzer.terms(q.text), doc_terms(backend, analyzer, cache, rows), args.lam))
        print(f"  fold {f}: translation model from {model.pairs} pairs; {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
    names = tuple(FEATURES) + ("translation_gap", "translation_rank")
    train.FEATURES = names  # the trainer's functions read the module's feature names
    train.INCREASING = train.INCREASING | {"translation_gap"}
    train.DECREASING = train.DECREASING | {"translation_rank"}
    ts = train.TrainingSet(np.hstack([np.concatenate([x for _, _, x, _ in kept]), extra]),
                           np.concatenate([y for *_, y in kept]),
                           np.concatenate([np.full(len(r), i, dtype=np.int32) for i, (_, r, _, _) in enumerate(kept)]),
                           [q.work for q, *_ in kept], [bool(y.any()) for *_, y in kept])
    params = dict(train.PARAMS, seed=args.seed)
    base_cols = list(range(len(FEATURES)))
    all_cols = list(range(len(names)))
    cv = {}
    for label, cols in (("today's 21 features", base_cols), ("+ translation", all_cols)):
        cv[label] = train.cross_validate(ts, args.folds, params, train.ROUNDS, args.seed, cols, quiet=True)
    found = np.asarray([i for i in range(len(ts.works)) if ts.found[i]], dtype=np.int64)
    boosters = {label: train.fit(ts, found, params, train.ROUNDS, cols)
                for label, cols in (("today's 21 features", base_cols), ("+ translation", all_cols))}
    full = Model1([(a, b) for a, b, _ in all_pairs])
    print(f"CV and boosters done; {time.perf_counter() - started:.0f} s", file=sys.stderr)
    # the dev sets, re-ordered as the searcher applies its model
    store, root = ensure_index("default")
    dev = open_searcher(root, store, SearchSettings(result_cache=0, learned_ranking=False), vector_dir=vectors("default"))
    dback = dev.backend()
    kinds = SearchSettings().learned_kinds
    dev_rows = []
    dcache: dict = {}
    for name in DEV_SETS:
        mrr = {s: ([], []) for s in ("today", *boosters)}
        for it in load_set(name):
            got = dev.first_stage(it["query"], 100)
            strict = set(it["relevant"])
            lenient = strict | set(it.get("dup_keys", []))
            if got is None:
                from paperfind.search.response import SearchRequest

                keys = [r["key"] for r in dev.search(SearchRequest(q=it["query"], limit=100, mode="hybrid")).results]
                orders = {s: keys for s in mrr}
            else:
                rows, x = got
                keys = [dback.key_of(int(r)) for r in rows]
                orders = {"today": keys}
                apply = classify_query(it["query"]).name in kinds and not (
                    len(x) and x[:, cover].max() >= dev.settings.learned_title_cover)
                feats = np.hstack([x, _translation_features(full.scores(
                    analyzer.terms(it["query"]), doc_terms(dback, analyzer, dcache, rows), args.lam))])
                for label, booster in boosters.items():
                    cols = base_cols if label.startswith("today") else all_cols
                    if not apply:
                        orders[label] = keys
                        continue
                    p = booster.predict(feats[:, cols], num_threads=1)
                    orders[label] = [keys[i] for i in np.lexsort((np.arange(len(p)), -p))]
            for s, ranked in orders.items():
                mrr[s][0].append(reciprocal_rank(ranked, strict))
                mrr[s][1].append(reciprocal_rank(ranked, lenient))
        for s, (a, b) in mrr.items():
            dev_rows.append((name, s, statistics.fmean(a), statistics.fmean(b)))
    print(f"training: {len(kept)} queries of {len(queries)} TL;DRs ({info['tldrs_outside_dev_years']} outside the "
          f"dev years), 5-fold CV grouped by work, λ = {args.lam}; {time.perf_counter() - started:.0f} s in all\n")
    print("| features | " + " | ".join(f"fold {f}" for f in range(args.folds)) + " | mean today | mean learned |")
    print("|---|" + "---:|" * (args.folds + 2))
    for label, folds_cv in cv.items():
        print(f"| {label} | " + " | ".join(f"{r['mrr10_today']:.4f} → {r['mrr10_learned']:.4f}" for r in folds_cv)
              + f" | {statistics.fmean(r['mrr10_today'] for r in folds_cv):.4f}"
              f" | {statistics.fmean(r['mrr10_learned'] for r in folds_cv):.4f} |")
    print("\n| dev set | ranking | MRR@10 strict | MRR@10 lenient |\n|---|---|---:|---:|")
    for name, s, a, b in dev_rows:
        print(f"| {name} | {'today (baseline)' if s == 'today' else 'learned, ' + s} | {a:.3f} | {b:.3f} |")


def _translation_features(scores: np.ndarray) -> np.ndarray:
    """(score − the best candidate's, rank by score) per candidate."""
    if not len(scores):
        return np.zeros((0, 2), dtype=np.float32)
    rank = np.empty(len(scores))
    rank[np.lexsort((np.arange(len(scores)), -scores))] = np.arange(len(scores))
    return np.column_stack([scores - scores.max(), rank]).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=("plain", "learned"))
    ap.add_argument("--max-queries", type=int, default=2400)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lam", type=float, default=0.6, help="translation weight λ of the learned feature")
    args = ap.parse_args()
    (plain if args.part == "plain" else learned)(args)


if __name__ == "__main__":
    main()
