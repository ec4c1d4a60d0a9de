"""The learned ranking of people: a LightGBM lambdarank model re-orders the voting's best.

The voting (`paperfind.search.experts.rank_people`) sums a person's best few matching papers
with weights chosen by hand on 200 dev papers. Which evidence should count differs from query to
query: a whole abstract is answered by the few people whose own papers match it closely, and
among people who match alike the likelier author of a new paper is the one with more, and more
recent, work (the last authors of new papers are mostly established). A model trained on
thousands of leave-one-out queries of venue-years neither dev set nor the judge uses
(`python -m paperfind.rank.train_experts`) weighs these per person; it re-orders only the first
`learned_depth` people of the voting, from what the voting already found (the eligible papers
of both routes), so `before`, the filters and `exclude` bound it exactly as they bound the voting.

The model is LightGBM's plain-text dump with its feature names (no pickle); a missing or
unreadable file is a `ModelError`, and the finder then ranks by the voting alone.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import sparse

from paperfind.index.profiles import PersonProfiles
from paperfind.search.learned import ModelError, load_booster, read_model

DEFAULT_EXPERTS_MODEL = Path(__file__).resolve().parents[1] / "rank" / "experts.txt"
TOP_PAPERS = (20, 100)  # "how many of their works are among the query's best N papers"

# The model's inputs, in column order. "z" scores are a route's standard scores (see
# `experts.standardised`); "combined" is the voting's blend of both, divided by its best.
FEATURES = (
    "vote_rel",  # the voting's total / the best candidate's
    "vote_rank",  # position in the voting's order (after the group spread)
    "text_best", "text_sum",  # the person's matching works' lexical z scores: best, summed
    "meaning_best", "meaning_sum",  # ... and the vectors'
    "cosine_best",  # their best raw e5 cosine (absolute closeness, which z scores lose)
    "combined_best", "combined_sum",
    "best_paper_rank",  # position of their best work among all the query's papers
    "matches",  # their works among the papers either route found
    "matches_top20", "matches_top100",  # ... among the query's best 20 / 100 papers
    "works",  # their eligible works (the prolific prior)
    "works_recent",  # ... of the last 3 years before the reference year
    "match_share",  # matches / works
    "years_since_match",  # reference year - their latest matching work's year
    "years_since_work",  # ... - their latest eligible work's
    "career_years",  # ... - their first eligible work's
    "edge_share_matches",  # share of their matching works as first or last author
    "first_share", "last_share",  # share of all their eligible works as first / last author
    "coauthors_listed",  # other candidates sharing one of their matching works
    "query_words",  # a topic of a few words or a whole abstract
)


def person_features(docs, profiles: PersonProfiles, papers, combined: np.ndarray,
                    author_ids: list[int], vote: list[float], eligible: np.ndarray | None,
                    reference_year: int, query_words: int) -> np.ndarray:
    """Feature matrix (len(author_ids) x len(FEATURES), float32) of the candidates, given in
    the voting's order with its totals. `papers` is the voting's `PaperScores` (eligible rows
    only, sorted) and `combined` its blend per paper, `eligible` the rows that may count (None:
    all). Array operations over all the candidates' authorships at once: a thousand people
    cost a few milliseconds."""
    n = len(author_ids)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return out.astype(np.float32)
    col = {name: i for i, name in enumerate(FEATURES)}
    ids = np.asarray(author_ids, dtype=np.int64)
    at = np.clip(np.searchsorted(profiles.ids, ids), 0, len(profiles.ids) - 1)
    known = profiles.ids[at] == ids
    starts = np.where(known, profiles.indptr[at], 0)
    counts = np.where(known, profiles.indptr[at + 1] - profiles.indptr[at], 0)
    entries = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    owner = np.repeat(np.arange(n), counts)
    rows = profiles.rows[entries].astype(np.int64)
    edge, first = profiles.edge[entries], profiles.first[entries]
    if eligible is not None:
        keep = eligible[rows]
        owner, rows, edge, first = owner[keep], rows[keep], edge[keep], first[keep]
    years = np.asarray(docs.year[rows], dtype=np.float64)
    work = np.asarray(docs.work[rows], dtype=np.int64)

    def distinct_works(mask: np.ndarray) -> np.ndarray:
        pairs = np.unique(np.stack([owner[mask], work[mask]]), axis=1)
        return np.bincount(pairs[0], minlength=n).astype(np.float64)

    authorships = np.bincount(owner, minlength=n).astype(np.float64)
    works = distinct_works(np.ones(len(rows), dtype=bool))
    out[:, col["vote_rel"]] = np.asarray(vote, dtype=np.float64) / max(max(vote), 1e-9)
    out[:, col["vote_rank"]] = np.arange(n)
    out[:, col["works"]] = works
    out[:, col["works_recent"]] = distinct_works(years >= reference_year - 2)
    latest, earliest = np.full(n, -np.inf), np.full(n, np.inf)
    np.maximum.at(latest, owner, years)
    np.minimum.at(earliest, owner, years)
    some = authorships > 0
    out[:, col["years_since_work"]] = np.where(some, reference_year - latest, 50.0)
    out[:, col["career_years"]] = np.where(some, reference_year - earliest, 0.0)
    share = np.maximum(authorships, 1)
    out[:, col["first_share"]] = np.bincount(owner, weights=first, minlength=n) / share
    out[:, col["last_share"]] = np.bincount(owner, weights=edge & ~first, minlength=n) / share

    # their works among the papers the routes found
    where = np.searchsorted(papers.rows, rows)
    hit = (where < len(papers.rows)) & (papers.rows[np.minimum(where, max(len(papers.rows) - 1, 0))] == rows) \
        if len(papers.rows) else np.zeros(len(rows), dtype=bool)
    who, p = owner[hit], where[hit]
    order = np.lexsort((papers.rows, -combined))
    paper_rank = np.empty(len(order), dtype=np.int64)
    paper_rank[order] = np.arange(len(order))
    matches = np.bincount(who, minlength=n).astype(np.float64)
    out[:, col["matches"]] = matches
    out[:, col["match_share"]] = matches / np.maximum(works, 1)
    for name, values in (("text", papers.text), ("meaning", papers.meaning), ("combined", combined)):
        best = np.zeros(n)
        np.maximum.at(best, who, values[p])
        out[:, col[f"{name}_best"]] = best
        out[:, col[f"{name}_sum"]] = np.bincount(who, weights=values[p], minlength=n)
    cosine = np.full(n, -np.inf)
    if papers.cosine is not None:
        np.fmax.at(cosine, who, papers.cosine[p])
    out[:, col["cosine_best"]] = np.where(np.isfinite(cosine), cosine, np.nan)
    best_rank = np.full(n, len(papers.rows), dtype=np.float64)
    np.minimum.at(best_rank, who, paper_rank[p])
    out[:, col["best_paper_rank"]] = best_rank
    out[:, col["matches_top20"]] = np.bincount(who, weights=paper_rank[p] < TOP_PAPERS[0], minlength=n)
    out[:, col["matches_top100"]] = np.bincount(who, weights=paper_rank[p] < TOP_PAPERS[1], minlength=n)
    latest_match = np.full(n, -np.inf)
    np.maximum.at(latest_match, who, years[hit])
    out[:, col["years_since_match"]] = np.where(matches > 0, reference_year - latest_match, 50.0)
    out[:, col["edge_share_matches"]] = np.bincount(who, weights=edge[hit], minlength=n) / np.maximum(matches, 1)
    # co-authorship among the candidates: how many others share one of their matching works
    if len(who):
        held = sparse.csr_matrix((np.ones(len(who)), (who, p)), shape=(n, len(papers.rows)))
        held.data[:] = 1.0
        shared = (held @ held.T).tocsr()
        out[:, col["coauthors_listed"]] = np.diff(shared.indptr) - (shared.diagonal() > 0)
    out[:, col["query_words"]] = query_words
    return out.astype(np.float32)


class ExpertRanker:
    """A loaded lambdarank model over `FEATURES`: one score per candidate person."""

    def __init__(self, model_text: str, source: str = "<text>") -> None:
        self.booster = load_booster(model_text, source, FEATURES, "the learned ranking of people",
                                    "paperfind.rank.train_experts")
        self.source = source

    @classmethod
    def load(cls, path: Path | str) -> "ExpertRanker":
        return cls(read_model(path), str(path))

    def scores(self, features: np.ndarray) -> np.ndarray:
        """One score per candidate (higher = likelier); only their order means something."""
        if not len(features):
            return np.zeros(0)
        return np.asarray(self.booster.predict(features, num_threads=1), dtype=np.float64)


@lru_cache(maxsize=4)
def expert_ranker(path: Path | None) -> ExpertRanker | None:
    """The model at `path` (None: the shipped one), loaded once per process; None, said once on
    stderr, when it is unusable (the finder then ranks by the voting alone)."""
    try:
        return ExpertRanker.load(path or DEFAULT_EXPERTS_MODEL)
    except ModelError as e:
        print(f"paperfind: learned ranking of people off: {e}", file=sys.stderr)
        return None


def learned_order(model_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order of the candidates, their new scores in (0, 1) in that order): the model's order,
    equal scores keeping the voting's; scores are the model's through a logistic curve, so they
    stay positive and keep its order."""
    order = np.lexsort((np.arange(len(model_scores)), -model_scores))
    return order, 1.0 / (1.0 + np.exp(-model_scores[order]))
