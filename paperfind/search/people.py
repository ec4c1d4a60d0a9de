"""Name queries: the named people's papers first, most likely person first.

Evidence for "which person" comes from the name index (match kind x log paper count). A full
name orders the papers person by person; an initial ("H. Zhang") fits several people about
equally, so the likeliest few people's papers alternate.
"""

from __future__ import annotations

import numpy as np

from paperfind.index.names import INITIAL
from paperfind.search.backend import SearchBackend
from paperfind.search.plan import QueryPlan

PERSON_TIER = 1000.0  # a name query's people outrank any lexical score


def person_rows(backend: SearchBackend, plan: QueryPlan, mask: np.ndarray | None,
                max_people: int) -> np.ndarray:
    """Rows of the papers of the people the query names (within the filter mask)."""
    if not plan.people:
        return np.zeros(0, dtype=np.int64)
    rows, _ = backend.papers_by([m.author_id for m in plan.people[:max_people]])
    rows = np.unique(rows)
    return rows[mask[rows]] if mask is not None else rows


def person_rank(backend: SearchBackend, plan: QueryPlan, rows: np.ndarray,
                max_people: int) -> np.ndarray:
    """Per row, the rank of the most likely named person among its authors (-1: none)."""
    people = plan.people[:max_people]
    rank_of = {m.author_id: i for i, m in enumerate(people)}
    paper_rows, ids = backend.papers_by(list(rank_of))
    best = np.full(backend.n_docs, len(people), dtype=np.int64)
    np.minimum.at(best, paper_rows, np.asarray([rank_of[int(i)] for i in ids], dtype=np.int64))
    out = best[rows]
    return np.where(out < len(people), out, -1)


def person_tiers(backend: SearchBackend, plan: QueryPlan, rows: np.ndarray, relevance: np.ndarray,
                 max_people: int, interleave: int) -> np.ndarray:
    """A name query: the named people's papers above all others.

    A full name orders them person by person (most likely first). An initial ("H. Zhang")
    fits many people about equally, so the `interleave` likeliest people's papers alternate
    (each one's best paper, then each one's second, ...), above the other people's.
    """
    rank = person_rank(backend, plan, rows, max_people)
    bonus = np.zeros(len(rows))
    named = rank >= 0
    if not named.any():
        return bonus
    people = min(len(plan.people), max_people)
    ambiguous = plan.people[0].kind == INITIAL and people > 1
    bonus[named] = PERSON_TIER * (people - rank[named])  # person by person
    k = interleave
    if not ambiguous or k < 2:
        return bonus
    idx = np.flatnonzero(named & (rank < k))
    if len(idx) == 0:
        return bonus
    order = idx[np.lexsort((rows[idx], -relevance[idx], rank[idx]))]  # by person, then relevance
    within = np.zeros(len(rows), dtype=np.int64)
    seen: dict[int, int] = {}
    for i in order.tolist():
        within[i] = seen.get(int(rank[i]), 0)
        seen[int(rank[i])] = within[i] + 1
    key = within[idx] * k + rank[idx]
    bonus[idx] = PERSON_TIER * (people + 1 + (key.max() - key))
    return bonus
