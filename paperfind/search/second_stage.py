"""The second stage over a query's best candidates: their features, read from the term
sequences the engine hands out (`SearchBackend.sequences`), and today's fixed-weight sum.

The features (title match and cover, proximity, coverage, keyword, author, phrases) are the
array operations of `paperfind.search.rank`; the learned ranker reads the same features as
they are (`paperfind.search.learned`).
"""

from __future__ import annotations

import numpy as np

from paperfind.search.backend import Candidates, SearchBackend
from paperfind.search.people import person_rank
from paperfind.search.plan import QueryPlan, idf_of_groups
from paperfind.search.rank import (GroupMap, Mapped, RankWeights, adjacent_pairs, idf_share,
                                   keyword_match, phrase_present, title_in_query)

TEXT_FIELDS = ("title", "abstract", "keywords")
STANDING_MAX_WORDS = 3  # queries of up to this many words let standing order their matches


def query_terms(plan: QueryPlan) -> list[str]:
    """Every term of the plan's groups and phrases once, in order: what the candidates' term
    sequences are asked for (a term's code is its position here)."""
    return list(dict.fromkeys([s for g in plan.groups for s, _ in g.stems]
                              + [t for p in plan.phrases for t in p]))


def _phrase_codes(plan: QueryPlan, terms: list[str]) -> list[list[int]]:
    codes = {t: i for i, t in enumerate(terms)}
    return [[codes[t] for t in p] for p in plan.phrases]


def phrase_share(backend: SearchBackend, plan: QueryPlan, terms: list[str],
                 handles: np.ndarray) -> np.ndarray:
    """Per candidate, the share of the quoted phrases it contains (title, abstract or keywords)."""
    ids = _phrase_codes(plan, terms)
    fields = [backend.sequences(handles, f, terms) for f in TEXT_FIELDS]
    out = np.zeros(len(handles))
    for i in range(len(handles)):
        seqs = [s.row(i) for s in fields]
        out[i] = sum(phrase_present(p, seqs) for p in ids) / len(ids)
    return out


def with_phrases(backend: SearchBackend, plan: QueryPlan, terms: list[str], found: Candidates,
                 depth: int) -> np.ndarray:
    """Positions of the candidates containing every quoted phrase (checked among the `depth`
    best-scored), in handle order."""
    best = np.lexsort((found.handles, -found.scores))[:depth]
    ids = _phrase_codes(plan, terms)
    fields = [backend.sequences(found.handles[best], f, terms) for f in TEXT_FIELDS]
    keep = [j for i, j in enumerate(best.tolist())
            if all(phrase_present(p, [s.row(i) for s in fields]) for p in ids)]
    return np.asarray(sorted(keep), dtype=np.int64)


def features(backend: SearchBackend, plan: QueryPlan, terms: list[str], handles: np.ndarray,
             max_people: int) -> dict[str, np.ndarray]:
    """The second stage's features of `handles` (each a share in [0, 1]), by name; `weighted`
    adds them with fixed weights and the learned ranker reads them as they are."""
    n = len(handles)
    codes = {t: i for i, t in enumerate(terms)}
    gm = GroupMap([[codes[s] for s, _ in g.stems] for g in plan.groups],
                  idf_of_groups(plan, backend), len(terms))
    title, abstract, keywords = (Mapped.gather(gm, backend.sequences(handles, f, terms))
                                 for f in TEXT_FIELDS)
    q_in_t = idf_share(gm, [title], n)
    t_in_q = title_in_query(title, n)
    pairs = adjacent_pairs(gm, title, n) + adjacent_pairs(gm, abstract, n)
    out = {"title_match": (q_in_t * t_in_q) ** 2, "title_cover": q_in_t, "title_in_query": t_in_q,
           "title_exact": ((q_in_t > 1 - 1e-9) & (t_in_q > 1 - 1e-9)).astype(np.float64),
           "proximity": np.minimum(pairs / max(gm.n_groups - 1, 1), 1.0),
           "coverage": idf_share(gm, [title, abstract, keywords], n),
           "keyword": keyword_match(gm, keywords, n), "author": np.zeros(n),
           "standing": backend.standing(handles)}
    if plan.people and not plan.person_is_query:
        rank = person_rank(backend, plan, handles, max_people)
        evidence = np.asarray([m.score for m in plan.people[:max_people]] + [0.0])
        out["author"] = evidence[rank] / plan.people[0].score  # rank -1 picks the 0.0
    return out


def certain_title(text: str, f: dict[str, np.ndarray], score: np.ndarray, share: float,
                  whole: float | None = None, works: np.ndarray | None = None) -> bool:
    """Whether the first of these candidates (`score`: their second-stage scores, `f` their
    features) is a title the query types nearly whole -- each holds `share` of the other's
    words -- and leads the second by more than fusion's semantic part of this kind of query
    can add (paperfind.search.fusion: its weight, or its near-tie share). Then hybrid mode's
    first result is the lexical one whatever the query's embedding says, so the embedding and
    the vector search are spared (issue 33: ~14 ms a query).

    `whole` (the learned ranker's `learned_title_cover`): a title that holds this share of the
    query's words is certain too however much of it the query types (the start of a long
    title): fusion cannot unseat it, and the learned ranker leaves such a query's order to the
    title features. `works` (the candidates' works): the second is the best of another work, a
    paper's other version being the same first result."""
    from paperfind.search.fusion import classify_query

    if len(score) == 0:
        return False
    first = int(np.argmax(score))
    nearly_whole = f["title_cover"][first] >= share and f["title_in_query"][first] >= share
    if not nearly_whole and (whole is None or f["title_cover"][first] < whole):
        return False
    kind = classify_query(text)
    others = np.delete(score, first) if works is None else score[works != works[first]]
    runner_up = float(others.max()) if len(others) else 0.0
    return runner_up < float(score[first]) * (1 - max(kind.semantic_weight, kind.near_tie))


def weighted(f: dict[str, np.ndarray], plan: QueryPlan, base: np.ndarray,
             w: RankWeights) -> np.ndarray:
    """Today's second-stage score: BM25 over the best candidate's, plus the weighted features
    `f` (`features` of the same candidates)."""
    score = base / (base.max() or 1.0)
    score += w.title_match * f["title_match"] + w.title_cover * f["title_cover"]
    score += w.title_in_query * f["title_in_query"]
    if w.title_exact:
        score += w.title_exact * f["title_exact"]
    score += w.proximity * f["proximity"]
    if w.coverage:
        score += w.coverage * f["coverage"]
    if w.keyword:
        score += w.keyword * f["keyword"]
    if plan.people and not plan.person_is_query:
        score += w.author * f["author"]
    if w.standing and len(plan.groups) <= STANDING_MAX_WORDS:
        # a short query: among papers whose titles hold its words, the ones the field names
        # and cites most first ("deep ensembles": the paper, before "Repulsive Deep Ensembles")
        score += w.standing * f["standing"] * f["title_cover"]
    return score
