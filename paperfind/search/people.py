"""Name queries: the named people's papers first, most likely person first.

Evidence for "which person" comes from the name index (match kind x log paper count x
recency). A full name orders the papers person by person; an initial ("H. Zhang") fits several
people about equally, so the likeliest few names' papers alternate. A person's papers come
newest first.
"""

from __future__ import annotations

import numpy as np

from paperfind.index.names import INITIAL
from paperfind.search.backend import SearchBackend
from paperfind.search.plan import QueryPlan

PERSON_TIER = 1000.0  # a name query's people outrank any lexical score


def person_rank(backend: SearchBackend, plan: QueryPlan, rows: np.ndarray,
                max_people: int) -> np.ndarray:
    """Per candidate (`rows`: handles), the rank of the most likely named person among its
    authors (-1: none)."""
    people = plan.people[:max_people]
    rank_of = {m.author_id: i for i, m in enumerate(people)}
    paper_rows, ids = backend.papers_of(list(rank_of))
    if len(paper_rows) == 0:
        return np.full(len(rows), -1, dtype=np.int64)
    ranks = np.asarray([rank_of[int(i)] for i in ids], dtype=np.int64)
    order = np.lexsort((ranks, paper_rows))  # per paper, its best-ranked person first
    papers, first = np.unique(paper_rows[order], return_index=True)
    best = ranks[order][first]
    at = np.minimum(np.searchsorted(papers, rows), len(papers) - 1)
    return np.where(papers[at] == rows, best[at], -1)


def person_tiers(backend: SearchBackend, plan: QueryPlan, rows: np.ndarray, years: np.ndarray,
                 relevance: np.ndarray, max_people: int, interleave: int) -> np.ndarray:
    """A name query: the named people's papers above all others, as a bonus to add to `relevance`.

    A full name orders them person by person (most likely first). An initial ("H. Zhang")
    fits many people about equally, so the `interleave` likeliest *names* take turns (each
    one's newest paper, then each one's second, ...), above the other people's. Entries printed
    with the same full name (one person split by the data, or homonyms we cannot tell apart)
    take one turn together, so "J. Smith" does not alternate John Smith with John Smith.

    Within a person, papers come newest first: every one of them matches the name equally, and
    BM25 over the author list would only prefer papers with fewer co-authors.
    """
    rank = person_rank(backend, plan, rows, max_people)
    bonus = np.zeros(len(rows))
    named = np.flatnonzero(rank >= 0)
    if len(named) == 0:
        return bonus
    people = plan.people[:max_people]
    ambiguous = people[0].kind == INITIAL and len(people) > 1 and interleave > 1
    if ambiguous:  # rank of a person -> rank of their name among the distinct names
        first: dict[int, int] = {}
        group = [first.setdefault(m.name_group if m.name_group >= 0 else -1 - i, len(first))
                 for i, m in enumerate(people)]
        rank = np.where(rank >= 0, np.asarray(group + [-1])[rank], -1)
    order = named[np.lexsort((rows[named], -relevance[named], -years[named], rank[named]))]
    key = rank[order].astype(np.float64)
    if ambiguous:  # turn number within the name, then name rank; later names after all turns
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        turn = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        key = np.where(key < interleave, turn * interleave + key, len(order) * interleave + np.arange(len(order)))
    position = np.empty(len(order), dtype=np.int64)
    position[np.lexsort((np.arange(len(order)), key))] = np.arange(len(order))
    bonus[order] = PERSON_TIER * (len(order) + 1 - position)
    return bonus
