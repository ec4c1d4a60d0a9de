"""Issue 30's expert finder: its settings chosen on a thousand training queries, not on 200.

    PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice \
        .venv/bin/python -m bench.experts_train_tune --db DB [--queries 1000] [--routes FILE]
        [--passes 2] [--families] [--no-write]

Every knob of `ExpertSettings` was chosen one at a time on the first dev set's 200 papers, where
one choice is a paper or two of noise. The labels are free: `paperfind.rank.train_experts` draws
leave-one-out queries by the dev sets' rule from every venue-year from 2019 on outside the
judge's and the dev sets' (`HELD_OUT`); this bench scores the finder on a seeded sample of them.

Each query's routes (the text route's papers and BM25F, the word pairs' idf each of them holds,
the vector route's papers and cosines, the query's term ids and code-linked people) are made
once, by the product's own functions as `find_experts` calls them, and kept (`--routes`); a
setting is then scored by the product's `rank_people` over them, so everything after the routes
(the routes' weights, the voting, recency, author position, phrases, links, the group spread)
costs milliseconds a query. The cache is checked against `find_experts`: the product's settings
re-ranked over it give `find_experts`' top 10 for every query, or the bench stops. Knobs that
change the routes themselves (`depth`, `max_terms`, `query_vector_words`) need routes made anew
and are measured last, with `--route-variants`.

A coordinate search (`--passes` passes over `GRID`, each knob's values tried with the others
at their current best; R@10, MRR@10 the tie-break) ends in the chosen settings, whose gain over
the product's is given with a paired bootstrap interval over the queries. The dev sets are never
read here: judge the choice with bench/experts_tune.py and bench/experts.py.

`--families` adds, per family of venue-years (ML: NeurIPS / ICML / ICLR; vision: CVPR / ICCV /
ECCV; language: ACL / EMNLP / NAACL), the product's R@10 and search voting's (the authors of the
search's top 50 for the abstract, earlier years only, 1/rank votes: bench/experts.py's
baseline, in process).
"""

from __future__ import annotations

import argparse
import pickle
import random
import time
from collections import defaultdict
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from bench.results import append_results, load_average

HEADING = "exp32b — experts (issue 30): the finder's settings chosen on a thousand training queries"
SEED = 32
QUERIES = 1000
# each knob's values (around today's); the blend only counts as text_weight / vector_weight
# (every later score is relative to the best), so vector_weight stays at 1
GRID: tuple[tuple[str, tuple], ...] = (
    ("text_weight", (2.0, 2.5, 3.0, 3.5, 4.0, 5.0)),
    ("top_papers", (3, 4, 5, 6, 8)),
    ("decay", (0.5, 0.6, 0.7, 0.8, 0.9)),
    ("recency_half_life_years", (0.0, 2.0, 3.0, 4.0, 6.0, 8.0)),
    ("middle_author_weight", (0.4, 0.5, 0.6, 0.7, 0.8, 1.0)),
    ("group_discount", (0.0, 0.15, 0.3, 0.45, 0.6)),
    ("spread_depth", (50, 100, 200, 400)),
    ("phrase_weight", (0.0, 0.15, 0.3, 0.45, 0.6, 0.8)),
    ("phrase_max_df", (5, 10, 20, 40, 80)),
    ("phrase_depth", (50, 100, 200)),
    ("pair_weight", (0.3, 0.45, 0.6, 0.8, 1.0, 1.3)),
    ("link_weight", (0.5, 1.0, 2.0)),
)
# knobs whose values change the routes: each value is a collection of its own
ROUTE_GRID: tuple[tuple[str, tuple], ...] = (
    ("depth", (3000, 8000)),
    ("max_terms", (96, 192)),
    ("query_vector_words", (48, 96)),
)
FAMILIES = {"nips": "ML", "icml": "ML", "iclr": "ML", "cvpr": "vision", "iccv": "vision",
            "eccv": "vision", "acl": "language", "emnlp": "language", "naacl": "language"}


@dataclass
class Routes:
    """One query's routes as `find_experts` makes them, before anything is weighed."""

    key: str
    venue_year: str
    before: int
    relevant: frozenset[int]
    text_rows: np.ndarray
    bm25: np.ndarray
    pair_idf: np.ndarray  # `pair_bonus` at pair_weight 1, per text row
    meaning_rows: np.ndarray
    cosines: np.ndarray
    term_ids: np.ndarray
    linked: frozenset[int]


def sample(db: Path, n: int, seed: int = SEED, part: int = 0) -> list:
    """`n` of train_experts' leave-one-out queries (30 per venue-year, 90 for the judge's
    venues; none from a held-out venue-year), in key order: the `part`-th n of the pool shuffled
    with `random.Random(seed)` (part 1 shares no query with part 0: a check of the choice)."""
    from paperfind.rank.train_experts import training_queries

    pool = training_queries(db, 30)
    shuffled = random.Random(seed).sample(pool, len(pool))
    return sorted(shuffled[part * n:(part + 1) * n], key=lambda q: q.key)


def make_routes(backend, query, settings, analyzer) -> Routes:
    """The routes of one training query, by the product's functions as `find_experts` runs them."""
    from paperfind.search.expert_links import linked_people
    from paperfind.search.expert_pairs import pair_bonus
    from paperfind.search.expert_phrases import query_term_ids
    from paperfind.search.experts import ExpertQuery, meaning_hits, query_terms, text_route, vector_text

    local = getattr(backend, "local", backend)
    restriction = ExpertQuery(text=query.text, before=query.before).restriction()
    eligible = local._mask(restriction)
    terms = query_terms(local, analyzer, query.text, settings)
    text_rows, bm25 = text_route(local, terms, eligible, settings.depth)
    term_ids = query_term_ids(local, analyzer, query.text)
    pair_idf = pair_bonus(local, term_ids, text_rows, replace(settings, pair_weight=1.0))
    if settings.vector_weight > 0 and backend.vectors_ready():
        meaning_rows, cosines = meaning_hits(backend, local, vector_text(query.text, settings), restriction,
                                             settings.depth, settings.query_max_tokens)
    else:
        meaning_rows, cosines = np.zeros(0, dtype=np.int64), np.zeros(0)
    return Routes(query.key, query.venue_year, query.before, query.relevant, text_rows, bm25, pair_idf,
                  meaning_rows, cosines, term_ids, linked_people(local, query.text, eligible))


def _best(rows: np.ndarray, scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """A route cut to its `depth` best papers (as the route itself cuts them), rows ascending."""
    if len(rows) <= depth:
        return rows, scores
    keep = np.sort(np.argpartition(-scores, depth - 1)[:depth])
    return rows[keep], scores[keep]


class Reranker:
    """`find_experts`' ranking over cached routes: the product's `rank_people`, nothing else."""

    def __init__(self, backend):
        self.local = getattr(backend, "local", backend)
        self.profiles = self.local.profiles()
        self._eligible: dict[int, np.ndarray | None] = {}

    def eligible(self, before: int):
        from paperfind.search.experts import ExpertQuery

        if before not in self._eligible:
            self._eligible[before] = self.local._mask(ExpertQuery(text="", before=before).restriction())
        return self._eligible[before]

    def top(self, r: Routes, settings, needed: int = 10) -> list[int]:
        from paperfind.search.expert_phrases import query_pairs
        from paperfind.search.experts import merge_routes, rank_people, standardised

        text_rows, bm25 = _best(r.text_rows, r.bm25, settings.depth)
        pair_idf = r.pair_idf if len(text_rows) == len(r.text_rows) else \
            r.pair_idf[np.searchsorted(r.text_rows, text_rows)]
        text = bm25 + (settings.pair_weight * pair_idf if settings.pair_weight > 0 else np.zeros(len(bm25)))
        meaning_rows, cosines = _best(r.meaning_rows, r.cosines, settings.depth)
        if settings.text_weight <= 0:
            text_rows, text = text_rows[:0], text[:0]
        if settings.vector_weight <= 0:
            meaning_rows, cosines = meaning_rows[:0], cosines[:0]
        papers = merge_routes(text_rows, standardised(text), meaning_rows, standardised(cosines), cosines)
        eligible = self.eligible(r.before)
        pairs = query_pairs(self.local, r.term_ids, settings)
        linked = r.linked if settings.link_weight > 0 else frozenset()
        experts = rank_people(self.local, self.profiles, papers, r.before - 1, settings,
                              frozenset(), needed, pairs, eligible, linked).experts
        return [e.author_id for e in experts[:needed]]


def hits(top: list[int], relevant: frozenset[int]) -> tuple[float, float]:
    """(a relevant person in the top 10, 1 / rank of the first)."""
    for i, a in enumerate(top[:10]):
        if a in relevant:
            return 1.0, 1.0 / (i + 1)
    return 0.0, 0.0


def evaluate(reranker: Reranker, routes: list[Routes], settings) -> np.ndarray:
    """Per query (R@10, MRR@10): an array of shape (queries, 2)."""
    return np.asarray([hits(reranker.top(r, settings), r.relevant) for r in routes])


def bootstrap(diff: np.ndarray, rounds: int = 2000, seed: int = SEED) -> tuple[float, float]:
    """A 95% interval of the mean of `diff` (per query), queries resampled."""
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(rounds, len(diff)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def collect(backend, queries: list, settings, check: bool = True) -> list[Routes]:
    """Every query's routes; with `check`, the product's settings re-ranked over them must give
    `find_experts`' own top 10 (the cache is the finder, or the bench stops)."""
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.text.analyze import Analyzer

    analyzer = Analyzer()
    reranker = Reranker(backend)
    out, started = [], time.perf_counter()
    for i, q in enumerate(queries):
        r = make_routes(backend, q, settings, analyzer)
        if check:
            served = [e.author_id for e in find_experts(backend, ExpertQuery(text=q.text, before=q.before),
                                                        settings, analyzer).experts[:10]]
            if served != reranker.top(r, settings):
                raise SystemExit(f"{q.key}: the cached routes do not give find_experts' top 10")
        out.append(r)
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(queries)} queries' routes, {time.perf_counter() - started:.0f} s",
                  flush=True)
    return out


def save_routes(path: Path, routes: list[Routes]) -> None:
    """The cache holds each query's fields, not `Routes` objects: run as `python -m`, the class
    would be pickled as `__main__.Routes`, which no other module could read back."""
    path.write_bytes(pickle.dumps([vars(r) for r in routes], protocol=pickle.HIGHEST_PROTOCOL))


class _EarlierCache(pickle.Unpickler):
    """Reads caches written before `save_routes`, whose objects name `__main__.Routes`."""

    def find_class(self, module: str, name: str):
        if name == "Routes":
            return Routes
        return super().find_class(module, name)


def load_routes(path: Path) -> list[Routes]:
    with path.open("rb") as f:
        loaded = _EarlierCache(f).load()
    return [r if isinstance(r, Routes) else Routes(**r) for r in loaded]


def label(settings, base) -> str:
    """The fields where `settings` differs from `base`, as `name value` pairs."""
    changed = [f"{f.name} {getattr(settings, f.name)}" for f in fields(settings)
               if getattr(settings, f.name) != getattr(base, f.name)]
    return ", ".join(changed) or "the product's settings"


def coordinate_search(reranker: Reranker, routes: list[Routes], base, passes: int,
                      log: list[str]) -> tuple[object, np.ndarray]:
    """`passes` passes over `GRID`: each knob set to its best value (R@10, then MRR@10) with the
    others at their current best; a pass that changes nothing ends the search."""
    best = base
    best_fig = evaluate(reranker, routes, best)
    log.append(f"start ({label(best, base)}): R@10 {best_fig[:, 0].mean():.4f}, "
               f"MRR@10 {best_fig[:, 1].mean():.4f}")
    print(log[-1], flush=True)
    for p in range(passes):
        moved = False
        for knob, values in GRID:
            tried = []
            for v in values:
                s = replace(best, **{knob: v})
                fig = best_fig if s == best else evaluate(reranker, routes, s)
                tried.append((float(fig[:, 0].mean()), float(fig[:, 1].mean()), v, s, fig))
            r10, m10, v, s, fig = max(tried, key=lambda t: (t[0], t[1]))
            cells = ", ".join(f"{t[2]}: {t[0]:.4f} / {t[1]:.4f}" for t in tried)
            if s != best and (r10, m10) > (float(best_fig[:, 0].mean()), float(best_fig[:, 1].mean())):
                best, best_fig, moved = s, fig, True
            log.append(f"pass {p + 1}, {knob} (R@10 / MRR@10): {cells} -> {getattr(best, knob)}")
            print(log[-1], flush=True)
        if not moved:
            break
    return best, best_fig


def search_voting(pf, routes_queries: list, slug_of) -> np.ndarray:
    """bench/experts.py's baseline in process: per query (R@10, MRR@10) of the people of the
    search's top 50 for the abstract (earlier years only), each result voting 1 / rank."""
    from paperfind.search.filters import Filters
    from paperfind.search.response import SearchRequest

    searcher = pf.searcher()
    out = []
    for q in routes_queries:
        response = searcher.search(SearchRequest(q=q.text, limit=50, include=frozenset(),
                                                 filters=Filters(year_from=1900, year_to=q.before - 1)))
        votes: dict[str, float] = defaultdict(float)
        for rank, result in enumerate(response.to_json()["results"]):
            for person in result["authors"]:
                if person["id"]:
                    votes[person["id"]] += 1.0 / (rank + 1)
        top = sorted(votes, key=lambda p: (-votes[p], p))[:10]
        out.append(hits(top, frozenset(slug_of(a) for a in q.relevant)))
    return np.asarray(out)


def family_table(routes: list[Routes], product: np.ndarray, chosen: np.ndarray,
                 voting: np.ndarray | None) -> list[str]:
    """R@10 (MRR@10) per family of venue-years: the product, the chosen settings, search voting."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(routes):
        venue = r.venue_year.rstrip("0123456789")
        family = FAMILIES.get(venue, "other")
        groups[family].append(i)
        groups[venue].append(i)
        if family == "ML":  # the judge's venues, by year (its own are 2023 and 2024)
            groups[f"ML {r.before}"].append(i)
    head = ["| family / venue | queries | product R@10 (MRR@10) | chosen R@10 (MRR@10) "
            "| search voting R@10 (MRR@10) |",
            "|---|---:|---|---|---|"]
    rows = []
    families = ("ML", "vision", "language", "other")
    for name in (*families, *sorted(g for g in groups if g.startswith("ML ")),
                 *sorted(g for g in groups if g not in families and not g.startswith("ML "))):
        idx = groups.get(name)
        if not idx:
            continue
        cells = [f"{f[idx, 0].mean():.3f} ({f[idx, 1].mean():.3f})" for f in (product, chosen)]
        cells.append("" if voting is None else f"{voting[idx, 0].mean():.3f} ({voting[idx, 1].mean():.3f})")
        rows.append(f"| {name} | {len(idx)} | " + " | ".join(cells) + " |")
    return head + rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--part", type=int, default=0, help="the sample's part of the shuffled pool "
                        "(1: queries the search of part 0 never saw)")
    parser.add_argument("--routes", type=Path,
                        help="the routes' cache (pickle): read when it exists, else written")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--families", action="store_true", help="the per-family table, with search voting")
    parser.add_argument("--route-variants", action="store_true", help="the knobs that change the routes too")
    parser.add_argument("--settings", default="", help="score these changes only (knob=value,...), no search")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from paperfind.core import Paperfind
    from paperfind.search.experts import ExpertQuery, find_experts
    from paperfind.settings import Settings

    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load0 = load_average()
    pf = Paperfind(Settings(db_path=args.db))
    backend = pf.searcher().backend()
    base = pf.settings.search.experts
    backend.rare_pairs(base.pairs_max_df)
    backend.code_links()
    find_experts(backend, ExpertQuery(text="warm up the query model"), base)
    queries = sample(args.db, args.queries, args.seed, args.part)
    t0 = time.perf_counter()
    if args.routes and args.routes.exists():
        routes = load_routes(args.routes)
        assert [r.key for r in routes] == [q.key for q in queries], "a cache of another sample"
    else:
        routes = collect(backend, queries, base)
        if args.routes:
            save_routes(args.routes, routes)
    collect_s = time.perf_counter() - t0
    reranker = Reranker(backend)
    log: list[str] = [f"{len(routes)} training queries (seed {args.seed}, part {args.part}; "
                      f"{len({r.venue_year for r in routes})} venue-years), routes made and checked in "
                      f"{collect_s:.0f} s"]
    t0 = time.perf_counter()
    product = evaluate(reranker, routes, base)
    log.append(f"one setting scored over the cache in {time.perf_counter() - t0:.1f} s")
    print("\n".join(log), flush=True)
    if args.settings:
        changes = {k: type(getattr(base, k))(v) for k, v in (p.split("=") for p in args.settings.split(","))}
        chosen = replace(base, **changes)
        chosen_fig = evaluate(reranker, routes, chosen)
    else:
        chosen, chosen_fig = coordinate_search(reranker, routes, base, args.passes, log)
    diff = chosen_fig - product
    lo, hi = bootstrap(diff[:, 0])
    mlo, mhi = bootstrap(diff[:, 1])
    spread = bootstrap(product[:, 0] - product[:, 0].mean())
    summary = [f"the product's settings: R@10 {product[:, 0].mean():.4f} (95% bootstrap interval ±"
               f"{(spread[1] - spread[0]) / 2:.4f}), MRR@10 {product[:, 1].mean():.4f}",
               f"chosen ({label(chosen, base)}): R@10 {chosen_fig[:, 0].mean():.4f}, "
               f"MRR@10 {chosen_fig[:, 1].mean():.4f}",
               f"chosen - product, paired: R@10 {diff[:, 0].mean():+.4f} [{lo:+.4f}, {hi:+.4f}], "
               f"MRR@10 {diff[:, 1].mean():+.4f} [{mlo:+.4f}, {mhi:+.4f}]; queries gained / lost "
               f"{int((diff[:, 0] > 0).sum())} / {int((diff[:, 0] < 0).sum())}"]
    print("\n".join(summary), flush=True)
    extra: list[str] = []
    if args.route_variants:
        for knob, values in ROUTE_GRID:
            for v in values:
                s2 = replace(chosen, **{knob: v})
                t1 = time.perf_counter()
                fig = evaluate(reranker, collect(backend, queries, s2, check=False), s2)
                extra.append(f"chosen with {knob} {v}: R@10 {fig[:, 0].mean():.4f}, MRR@10 "
                             f"{fig[:, 1].mean():.4f} ({time.perf_counter() - t1:.0f} s)")
                print(extra[-1], flush=True)
    families: list[str] = []
    if args.families:
        names = backend.index.names

        def slug_of(author_id: int) -> str:
            return names.card(int(np.searchsorted(names.ids, author_id)))["slug"]

        voting = search_voting(pf, queries, slug_of)
        families = family_table(routes, product, chosen_fig, voting)
        print("\n".join(families), flush=True)
    lines = [f"Run {started} → {time.strftime('%H:%M:%S UTC', time.gmtime())}, load average "
             f"{load0} at the start, {load_average()} at the end.", "",
             *(f"- {x}" for x in log + summary + extra), "", *families]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write:
        append_results(HEADING, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
