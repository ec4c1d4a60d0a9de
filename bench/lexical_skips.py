"""How much of a lexical query's postings a skipping top-k could leave unread, at the pool size
the engine asks for, and what exact skipping built from look-ups costs (issue 33).

    flock /tmp/paperfind-timing.lock nice .venv/bin/python -m bench.lexical_skips \
        [--db bench/out/default.db --db bench/out/bundled.db] [--n 0] [--no-write]

Why: the issue asks for a top-k that does not score every posting (MaxScore / block-max WAND).
Whether that can pay depends on the engine's own numbers, which this bench measures per kind on
every database given (the growth is read across them):

- *postings*: entries of every column the scorer reads for a candidate request (the requests the
  dev sets' lexical searches make, captured as bench.lexical_engine's growth part does; with
  `--requests-from DB`, planned on DB and replayed on every database, so a 1M corpus is read
  through its memory-mapped index alone, with no searcher); today
  every one is read twice, its weight added and its group counted.
- *matches*: papers with at least `min_match` of the groups that the restriction lets through.
  The total, the facets and the trend count every one of them, so the group counts (or some pass
  that finds the same papers) stay whatever the scores skip.
- *k*: the candidate pool the searcher asks for (`pool_size`), the threshold's rank: a MaxScore
  top-k must keep every one of the best k, not the best 20.
- *MaxScore*: the share of postings in the non-essential columns (MaxScore's split: the columns
  of smallest maximum weight whose maxima add up to less than the threshold θ) with θ the k-th
  best score among the matches, an oracle's θ: a real MaxScore starts lower and raises it, so
  skips at most this. Only the weights' additions can be skipped; the counts remain. Beside
  it, the same at k = 20 (a page), the k of the engines MaxScore is usually measured in.
- *msm*: the share of postings in the `min_match - 1` longest groups: a paper with `min_match`
  groups has one outside them, so those groups need only be looked up for the papers of the
  others (`msm papers`: how many), and the match set is still exact.
- *scored at its rows*: the share of requests with so few postings that the backend scores
  them at the rows they touch (paperfind.index.scored) instead of over every row.
- *time*: the exhaustive scoring (`LexicalIndex.score` with the compiled kernel, as the backend
  ran every request until paperfind.index.scored); `as served` (that module's choice, as the
  backend runs it now); the groups counted alone, no weight added (`counts alone`: the match set, the floor
  of any top-k that still counts every posting for the total and facets, as a MaxScore that
  skips every addition but scores no paper would reach); two exact alternatives made of
  look-ups (paperfind.index.retrieval):
  (a) every group counted, then the matches' scores looked up (every addition skipped);
  (b) the `min_match - 1` longest groups only looked up (`msm`). Both are checked equal to the
  exhaustive answer (rows, scores, groups matched), request by request; the three take turns.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.corpus import CACHE
from bench.lexical_engine import ensure_index_of, queries, small_requests
from bench.metrics import p50_p95
from bench.results import append_results, load_average

Groups = list[list[tuple[str, int, float]]]  # (field, term id, boost) per query group
# a column's maxima add up in float64 while the scores add in float32: keep a margin of rounding
# so that a column is called non-essential only when no paper of it alone can reach θ
ROUNDING = 1e-5
PAGE = 20  # a first page's results: the k of the engines MaxScore is known from


def pool_size(needed: int = 20) -> int:
    """The k the searcher asks the engine for on a relevance page of `needed` results
    (Searcher._ranked): its phrase check, the fusion's depth plus the re-rank's, twice the page."""
    from paperfind.search.hybrid import FUSION_DEPTH
    from paperfind.search.settings import SearchSettings

    settings = SearchSettings()
    return max(settings.phrase_check_depth, FUSION_DEPTH + settings.rerank_depth, 2 * needed)


def exhaustive(lex, groups: Groups, min_match: int, mask: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(matching rows, their scores, their groups matched) as the backend finds them today."""
    scores, matched = lex.score(groups, mask)
    rows = np.flatnonzero((matched >= min_match) & (scores > 0))
    return rows, scores[rows], matched[rows]


def column_maxima(lex, groups: Groups) -> list[tuple[int, float]]:
    """(postings, largest weight times boost) of every column the scorer adds."""
    return [(len(docs), float(np.max(weights) * np.float32(boost)))
            for columns in lex.group_columns(groups) for docs, weights, boost in columns]


def non_essential(columns: list[tuple[int, float]], theta: float) -> list[int]:
    """MaxScore's split: the positions of the columns of smallest maxima whose maxima add up
    (with a rounding margin) to less than `theta`; a paper in none of the others cannot reach it."""
    order = sorted(range(len(columns)), key=lambda i: columns[i][1])
    out, bound = [], 0.0
    for i in order:
        bound += columns[i][1]
        if bound * (1 + ROUNDING) >= theta:
            break
        out.append(i)
    return out


def kth_best(scores: np.ndarray, k: int) -> float:
    """The k-th largest of `scores` (0 when there are fewer: nothing can be skipped)."""
    if len(scores) <= k:
        return 0.0
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


def as_served(lex, groups: Groups, min_match: int, mask: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`exhaustive`'s answer as the backend now makes it (paperfind.index.scored): over every
    row, or at the rows the query touches when its postings are few."""
    from paperfind.index.scored import score_query

    scored = score_query(lex, groups)
    rows = scored.matching(min_match, mask)
    return (rows, *scored.of(rows))


def counted_rows(lex, groups: Groups, min_match: int, mask: np.ndarray | None, looked_up: int = 0
                 ) -> np.ndarray:
    """The papers with at least `min_match - looked_up` of the groups other than the `looked_up`
    longest, counted over every paper (no weight added): with `looked_up` 0, the match set
    itself, what the total, facets and trend need whatever the scores skip."""
    columns = lex.group_columns(groups)
    sizes = [sum(len(docs) for docs, _, _ in cols) for cols in columns]
    counted = np.argsort(sizes, kind="stable")[:len(columns) - looked_up]
    counts = np.zeros(lex.n_docs, dtype=np.float32)
    for g in counted:
        lex._count_group(counts, [docs for docs, _, _ in columns[g]])
    if mask is not None:
        counts[~mask] = 0
    return np.flatnonzero(counts >= max(min_match - looked_up, 1))


def by_lookups(lex, groups: Groups, min_match: int, mask: np.ndarray | None, looked_up: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`exhaustive`'s answer with the `looked_up` longest groups only looked up: the others
    counted over every paper (`counted_rows`), the papers found scored by look-ups
    (paperfind.index.retrieval, bit for bit the full scoring)."""
    from paperfind.index.retrieval import score_rows

    rows = counted_rows(lex, groups, min_match, mask, looked_up)
    scores, matched = score_rows(lex, groups, rows)
    keep = matched >= min_match
    return rows[keep], scores[keep], matched[keep]


@dataclass
class Skips:
    """One request's figures (the module doc says what each is)."""

    postings: int
    matches: int
    maxscore_skipped: int  # postings MaxScore leaves unadded at the oracle's θ of the pool's k
    page_skipped: int  # ... of a page's 20 (what MaxScore would skip if the pool were a page)
    msm_unread: int  # postings of the min_match - 1 longest groups
    msm_papers: int  # papers of the other groups, looked up in those
    at_rows: bool  # scored at the rows it touches (paperfind.index.scored), not over every row


def skips(lex, groups: Groups, min_match: int, mask: np.ndarray | None, k: int) -> Skips:
    from paperfind.index.scored import score_query

    rows, scores, _ = exhaustive(lex, groups, min_match, mask)
    columns = column_maxima(lex, groups)
    skipped = [sum(columns[i][0] for i in non_essential(columns, kth_best(scores, top))) for top in (k, PAGE)]
    sizes = sorted((sum(len(d) for d, _, _ in cols), g) for g, cols in enumerate(lex.group_columns(groups)))
    longest = [g for _, g in sizes[len(sizes) - (min_match - 1):]] if min_match > 1 else []
    others = [g for _, g in sizes if g not in longest]
    seen = np.zeros(lex.n_docs, dtype=bool)
    for g in others:
        for docs, _, _ in lex.group_columns(groups)[g]:
            seen[docs] = True
    if mask is not None:
        seen &= mask
    return Skips(sum(n for n, _ in columns), len(rows), skipped[0], skipped[1],
                 sum(s for s, g in sizes if g in longest), int(seen.sum()),
                 score_query(lex, groups).rows is not None)


def timed(fn, *args) -> tuple[float, tuple]:
    started = time.perf_counter()
    out = fn(*args)
    return (time.perf_counter() - started) * 1000, out


def require_built(db: Path) -> None:
    """Stop unless `db` and its current index exist: this bench only reads (another session's
    database may be measured), never ingests or builds."""
    from bench.corpus import index_dir
    from paperfind.index.manager import index_is_current
    from paperfind.store import Store

    if not db.exists() or not index_is_current(index_dir(db), Store(db, readonly=True).data_version()):
        raise SystemExit(f"{db}: no database with a current index (build it first; this bench only reads)")


def measure(db: Path, requests: list, k: int) -> dict[str, list[tuple[Skips, dict[str, float]]]]:
    """Per kind, per scored request (kind, CandidateRequest): its `Skips` and ms of each exact
    path (best of 3), on `db`'s index (opened alone: no searcher, its arrays memory-mapped)."""
    from paperfind.search.backend import IndexBackend
    from paperfind.index.manager import open_index

    index = open_index(ensure_index_of(db)[1])
    backend = IndexBackend(index)
    lex = index.lexical
    lex.load_kernel()
    out: dict[str, list[tuple[Skips, dict[str, float]]]] = {}
    for kind, request in requests:
        groups = backend._resolve(request.groups)
        if not groups:
            continue
        m, mask = request.min_match, backend._mask(request.restriction)
        paths = {"exhaustive": (exhaustive, ()), "as served": (as_served, ()),
                 "counts alone": (counted_rows, ()),
                 "(a) counts + look-ups": (by_lookups, (0,)),
                 "(b) msm look-ups": (by_lookups, (max(m - 1, 0),))}
        best: dict[str, float] = {}
        reference = None
        for turn in range(3):
            for name, (fn, extra) in (list(paths.items()) if turn % 2 == 0 else list(paths.items())[::-1]):
                ms, got = timed(fn, lex, groups, m, mask, *extra)
                best[name] = min(best.get(name, ms), ms)
                reference = got if name == "exhaustive" else reference
                if reference is not None and name == "counts alone":
                    assert np.array_equal(reference[0], got), kind
                elif reference is not None and name != "exhaustive":
                    assert all(np.array_equal(a, b) for a, b in zip(reference, got)), (kind, name)
        out.setdefault(kind, []).append((skips(lex, groups, m, mask, k), best))
    return out


def table(sizes: dict[str, tuple[int, dict]], k: int) -> str:
    lines = ["| corpus | papers | kind | requests | postings p50 | matches p50 | requests with > k matches "
             "| MaxScore: postings skipped (all / p50 request) | ... if k were 20 (all / p50) "
             "| msm: postings unread (all / p50) "
             "| msm papers p50 | scored at its rows | exhaustive p50 / p95 ms | as served p50 / p95 ms "
             "| counts alone p50 / p95 ms | (a) p50 / p95 ms | (b) p50 / p95 ms |",
             "|---|---:|---|---:|---:|---:|---:|---|---|---|---:|---:|---|---|---|---|---|"]
    for corpus, (papers, per) in sizes.items():
        for kind, rows in per.items():
            s = [r for r, _ in rows]
            postings = np.array([x.postings for x in s], dtype=float)
            skipped = np.array([x.maxscore_skipped for x in s], dtype=float)
            page = np.array([x.page_skipped for x in s], dtype=float)
            page_share = np.divide(page, postings, out=np.zeros_like(page), where=postings > 0)
            unread = np.array([x.msm_unread for x in s], dtype=float)
            total = max(postings.sum(), 1.0)
            share = np.divide(skipped, postings, out=np.zeros_like(skipped), where=postings > 0)
            unread_share = np.divide(unread, postings, out=np.zeros_like(unread), where=postings > 0)
            times = {name: p50_p95([t[name] for _, t in rows]) for name in rows[0][1]}
            cells = [f"{a:.2f} / {b:.2f}" for a, b in times.values()]
            lines.append(
                f"| {corpus} | {papers:,} | {kind} | {len(s)} | {np.median(postings):,.0f} "
                f"| {np.median([x.matches for x in s]):,.0f} | {np.mean([x.matches > k for x in s]):.0%} "
                f"| {skipped.sum() / total:.0%} / {np.median(share):.0%} "
                f"| {page.sum() / total:.0%} / {np.median(page_share):.0%} "
                f"| {unread.sum() / total:.0%} / {np.median(unread_share):.0%} "
                f"| {np.median([x.msm_papers for x in s]):,.0f} | {np.mean([x.at_rows for x in s]):.0%} | "
                + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, action="append",
                    help="a database (repeat for the growth; default: the cache's default.db and bundled.db)")
    ap.add_argument("--n", type=int, default=60, help="queries per set (0: all)")
    ap.add_argument("--requests-from", type=Path, help=(
        "plan the queries on this database alone and replay its requests on every --db (a searcher "
        "of a 1M corpus needs GBs; the index alone, memory-mapped, does not); default: each "
        "database plans its own"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    dbs = args.db or [CACHE / "default.db", CACHE / "bundled.db"]
    for db in dbs + ([args.requests_from] if args.requests_from else []):
        require_built(db)
    sets, k = queries(args.n), pool_size()
    from bench.lexical_engine import _rows

    planned = small_requests(args.requests_from, sets) if args.requests_from else None
    sizes = {db.stem: (_rows(db), measure(db, planned or small_requests(db, sets), k)) for db in dbs}
    out = table(sizes, k) + f"\n\nk = {k}. Load average at the end: {load_average()}.\n"
    print(out)
    if not args.no_write:
        heading = ("What a skipping lexical top-k could skip, at the engine's pool size (issue 33): "
                   + ", ".join(sizes))
        append_results(heading, (
            f"Per kind, the candidate requests of the first {args.n or 'all'} queries of each dev set's "
            "lexical searches" + (f" as planned on {args.requests_from.name}" if args.requests_from else "")
            + ", on each database; columns as in bench/lexical_skips.py's doc. Produced by "
            "`python -m bench.lexical_skips`, `nice`d under the timing lock on the shared 2-core "
            "machine.\n\n") + out)


if __name__ == "__main__":
    main()
