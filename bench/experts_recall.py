"""Issue 30's expert finder: where the relevant people are, per route, on every dev set.

    PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock nice \
        .venv/bin/python -m bench.experts_recall --db DB [--no-write]

DB: a database of the bundled corpus with its vectors. For every query of bench/experts_dev.jsonl
and bench/experts_dev2.jsonl (the abstract, before = its year; rules in bench/experts_dev.md),
the rank of its best-placed relevant person in:

- **voting**: the product's order (`find_experts`, every person with an eligible matching paper,
  signature phrases and group spread as served); "found" = in that pool at all;
- **text papers** / **vector papers**: the rank of the relevant people's best eligible paper among
  every eligible paper, by BM25F of the query's terms (the lexical route's scores) / by the exact
  cosine of the query's vector (the vector route's, without its depth or graph);
- **profile**: people with >= 3 earlier works, by the cosine of the query's vector with their
  profile, the recency-weighted centroid of their earlier papers' stored vectors (a work counted
  at 1 in its reference year, halving every `recency_half_life_years`), the candidate route a
  "profile model" would add.

A measurement for choosing where recall is lost (issue 30: the voting's first 100 hold the
relevant person for about half of dev2), not a figure the product states: the voting's R@10 is
bench.experts_tune's and bench.experts's. Only evidence before the query's year counts on every
route (`before`), as in the product.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HEADING = "experts (issue 30): where the relevant people are, per route (recall)"
MISSING = 10**9  # the rank of a relevant person a route does not find at all
CUTS = (10, 100, 300, 1000)
MIN_WORKS = 3  # the dev sets' rule for a relevant person, and the profile route's floor
WORK_BUCKETS = ((3, 5), (5, 10), (10, 30), (30, None))


def first_rank(ordered_ids, relevant: set[int]) -> int:
    """Position of the first of `relevant` in `ordered_ids` (best first), MISSING if none is."""
    for i, author_id in enumerate(ordered_ids):
        if int(author_id) in relevant:
            return i
    return MISSING


def paper_rank(scores: np.ndarray, eligible: np.ndarray, relevant_rows: np.ndarray) -> int:
    """Rank of the best of `relevant_rows` among the eligible rows with a positive score (best
    first, ties by row), MISSING when none of them is eligible with a positive score."""
    rows = np.asarray(relevant_rows, dtype=np.int64)
    rows = rows[eligible[rows] & (scores[rows] > 0)]
    if not len(rows):
        return MISSING
    best = float(scores[rows].max())
    first = int(rows[scores[rows] == best].min())
    ahead = eligible & ((scores > best) | ((scores == best) & (np.arange(len(scores)) < first)))
    return int(ahead.sum())


@dataclass(frozen=True)
class Centroids:
    """Per person (as `PersonProfiles.ids`): the unit centroid of their papers before `before`
    and how many distinct works those are."""

    before: int
    unit: np.ndarray  # float32, people x dim (zero rows for people with no vector before `before`)
    works: np.ndarray  # int64 per person

    def ranks(self, query: np.ndarray, min_works: int = MIN_WORKS) -> np.ndarray:
        """Each person's rank by cosine to `query` among those with `min_works` works (others
        MISSING), ties by position."""
        scores = self.unit @ np.asarray(query, dtype=np.float32)
        usable = self.works >= min_works
        order = np.flatnonzero(usable)[np.lexsort((np.flatnonzero(usable), -scores[usable]))]
        rank = np.full(len(scores), MISSING, dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank


def centroids(profiles, years: np.ndarray, work: np.ndarray, vectors: np.ndarray,
              has_vector: np.ndarray, before: int, half_life_years: float) -> Centroids:
    """The people's profiles from their papers published before `before` alone (the paper's own
    year never counts), each paper weighed 0.5 ** (age / half_life) from `before - 1`."""
    from scipy import sparse

    owner = np.repeat(np.arange(len(profiles.ids)), np.diff(profiles.indptr))
    rows = profiles.rows.astype(np.int64)
    early = years[rows] < before
    owner, rows = owner[early], rows[early]
    pairs = np.unique(np.stack([owner, work[rows]]), axis=1)
    works = np.bincount(pairs[0], minlength=len(profiles.ids)).astype(np.int64)
    age = np.clip(before - 1 - years[rows], 0, None).astype(np.float64)
    weight = 0.5 ** (age / half_life_years) if half_life_years > 0 else np.ones(len(rows))
    weight = np.where(has_vector[rows], weight, 0.0)
    summed = sparse.csr_matrix((weight, (owner, rows)), shape=(len(profiles.ids), len(years))) @ vectors
    summed = np.asarray(summed, dtype=np.float32)
    norm = np.linalg.norm(summed, axis=1, keepdims=True)
    return Centroids(before, summed / np.maximum(norm, 1e-12), works)


def shares(ranks: list[int]) -> dict[str, float]:
    """Share of queries ranked below each cut, found at all, and the median rank (of all)."""
    a = np.asarray(ranks, dtype=np.int64)
    out = {f"<{c}": float(np.mean(a < c)) for c in CUTS}
    out["found"] = float(np.mean(a < MISSING))
    out["median"] = float(np.median(a))
    return out


def bucket_of(works: int) -> str:
    for lo, hi in WORK_BUCKETS:
        if works >= lo and (hi is None or works < hi):
            return f"{lo}-{hi - 1}" if hi else f">= {lo}"
    return f"< {WORK_BUCKETS[0][0]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--no-write", action="store_true", help="print, do not record in RESULTS.md")
    args = parser.parse_args(argv)
    from bench.experts import DEV_SETS
    from paperfind.core import Paperfind
    from paperfind.search.experts import ExpertQuery, find_experts, vector_text
    from paperfind.search.similar import _term_scores
    from paperfind.settings import Settings

    pf = Paperfind(Settings(db_path=args.db))
    backend = pf.searcher().backend()
    settings = pf.settings.search.experts
    if backend.semantic is None:
        raise SystemExit(f"{args.db}: no vectors; the vector and profile routes read them")
    docs, profiles = backend.index.docs, backend.profiles()
    years, work = np.asarray(docs.year, dtype=np.int64), np.asarray(docs.work, dtype=np.int64)
    aligned = backend.semantic._aligned
    vectors = np.zeros((docs.n, aligned.index.params.dim), dtype=np.float32)
    has_vector = np.zeros(docs.n, dtype=bool)
    known = aligned.outer_rows >= 0
    vectors[aligned.outer_rows[known]] = aligned.index.matrix[known]
    has_vector[aligned.outer_rows[known]] = True
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    slug_id = dict(conn.execute("SELECT slug, id FROM authors"))
    started = time.time()
    load = os.getloadavg()
    routes = ("voting", "text papers", "vector papers", "profile")
    ranks: dict[tuple[str, str], list[int]] = {}
    works_of: dict[str, list[int]] = {}
    for set_name, path, _ in DEV_SETS:
        items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        items.sort(key=lambda item: (item["before"], item["key"]))  # one year's profiles at a time
        profile: Centroids | None = None
        for item in items:
            relevant = {slug_id[s] for s in item["relevant"] if s in slug_id}
            found = find_experts(backend, ExpertQuery(text=item["query"], before=item["before"]),
                                 settings, needed=10**6)
            eligible = years < item["before"]
            query = backend.semantic.query_vector(vector_text(item["query"], settings), settings.query_max_tokens)
            cosines = np.where(has_vector, vectors @ query, 0.0)
            text = _term_scores(backend, "text", found.terms) if found.terms else np.zeros(docs.n)
            own = np.concatenate([profiles.rows_of(a) for a in relevant]).astype(np.int64)
            if profile is None or profile.before != item["before"]:
                profile = centroids(profiles, years, work, vectors, has_vector, item["before"],
                                    settings.recency_half_life_years)
            people = [profiles.position(a) for a in relevant]
            people = [p for p in people if p >= 0]
            by_profile = profile.ranks(query)
            got = {"voting": first_rank([e.author_id for e in found.experts], relevant),
                   "text papers": paper_rank(np.asarray(text, dtype=np.float64), eligible, own),
                   "vector papers": paper_rank(cosines + 2.0 * has_vector, eligible & has_vector, own),
                   "profile": min((int(by_profile[p]) for p in people), default=MISSING)}
            for route, rank in got.items():
                ranks.setdefault((set_name, route), []).append(rank)
            works_of.setdefault(set_name, []).append(max((int(profile.works[p]) for p in people), default=0))
    lines = [f"Each dev query's best-placed relevant person, per route (module docstring of "
             f"bench/experts_recall.py), database {args.db.name} ({docs.n:,} papers), 200 abstracts a set, "
             f"before = the paper's year. Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
             f"load average at the start {' / '.join(f'{x:.1f}' for x in load)}, "
             f"{time.time() - started:.0f} s; `PAPERFIND_SHARED=/work/shared flock /tmp/paperfind-heavy.lock "
             "nice .venv/bin/python -m bench.experts_recall --db DB`.", "",
             "| set | route | rank < 10 | < 100 | < 300 | < 1000 | found | median rank |",
             "|---|---|---|---|---|---|---|---|"]
    for set_name, _, _ in DEV_SETS:
        for route in routes:
            s = shares(ranks[(set_name, route)])
            median = "-" if s["median"] >= MISSING else f"{s['median']:.0f}"
            lines.append(f"| {set_name} | {route} | " + " | ".join(f"{s[f'<{c}']:.3f}" for c in CUTS)
                         + f" | {s['found']:.3f} | {median} |")
        union = [min(a, b) for a, b in zip(ranks[(set_name, "voting")], ranks[(set_name, "profile")])]
        s = shares(union)
        lines.append(f"| {set_name} | voting or profile (the better rank) | "
                     + " | ".join(f"{s[f'<{c}']:.3f}" for c in CUTS) + f" | {s['found']:.3f} | {s['median']:.0f} |")
    lines += ["", "By the earlier works of the relevant person with most (distinct works before the year):", "",
              "| set | earlier works | queries | voting < 10 | voting < 100 | profile < 100 | text papers < 100 |",
              "|---|---|---|---|---|---|---|"]
    for set_name, _, _ in DEV_SETS:
        buckets = [bucket_of(w) for w in works_of[set_name]]
        for lo, hi in WORK_BUCKETS:
            name = bucket_of(lo)
            pick = [i for i, b in enumerate(buckets) if b == name]
            if not pick:
                continue

            def share(route: str, cut: int) -> str:
                return f"{np.mean([ranks[(set_name, route)][i] < cut for i in pick]):.2f}"

            lines.append(f"| {set_name} | {name} | {len(pick)} | {share('voting', 10)} | {share('voting', 100)} | "
                         f"{share('profile', 100)} | {share('text papers', 100)} |")
    lines += ["", f"Load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write:
        from bench.results import append_results

        append_results(HEADING, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
