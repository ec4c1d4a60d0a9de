"""Signature phrases: the query's rare word pairs that a person's own earlier papers hold.

The voting (paperfind.search.experts) finds everyone whose papers match a topic; the people who
wrote a given abstract are among them but rarely first, since many groups publish on the same
topic. What sets the authors apart is their wording: the two-word terms of their own method and
setting recur in their papers ("masked image" beside "intermediate layers" in one group's
abstracts), and a pair held by few papers of the corpus (`paperfind.index.rare_pairs`) is rarely
another group's. Each of the voting's first `phrase_depth` people gains, on top of their vote,
`phrase_weight` x the best vote x their share of the best phrase score among them, the phrase
score being the summed idf of the query's rare pairs found in their eligible papers (titles and
abstracts; the same eligibility as the voting: `before` and the filters). The voting's order
decides who is looked at; the phrases only re-order them (measured on both dev sets in process,
bench/experts_tune.py, and through the HTTP API: bench/RESULTS.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from paperfind.index.profiles import PersonProfiles
from paperfind.search.backend import IndexBackend
from paperfind.search.settings import ExpertSettings
from paperfind.text.analyze import Analyzer

SCORE_DECIMALS = 6


@dataclass(frozen=True)
class QueryPairs:
    """The query's word pairs that few papers hold: their keys (sorted) and idf."""

    keys: np.ndarray
    idf: np.ndarray

    @classmethod
    def none(cls) -> "QueryPairs":
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0))


def query_term_ids(local: IndexBackend, analyzer: Analyzer, text: str) -> np.ndarray:
    """`text`'s terms as the index's term ids, in order (the sequences its pairs are read from)."""
    return np.array([local.term_id(t) for t in analyzer.terms(text)], dtype=np.int64)


def query_pairs(local: IndexBackend, term_ids: np.ndarray, settings: ExpertSettings) -> QueryPairs:
    """The rare pairs of consecutive content stems of the query (`term_ids`: `query_term_ids`),
    as the index's sequences hold them."""
    if settings.phrase_weight <= 0 or len(term_ids) < 2:
        return QueryPairs.none()
    keys, idf = local.rare_pairs(settings.pairs_max_df).rare_in(term_ids, settings.phrase_max_df)
    return QueryPairs(keys, idf)


def phrase_scores(local: IndexBackend, profiles: PersonProfiles, author_ids: list[int],
                  pairs: QueryPairs, eligible: np.ndarray | None, max_df: int) -> np.ndarray:
    """Per person, the summed idf of the query's rare pairs their eligible papers hold (a pair
    counts once per person, however many of their papers hold it)."""
    out = np.zeros(len(author_ids))
    if not len(pairs.keys) or not author_ids:
        return out
    spans = [profiles.rows_of(int(a)) for a in author_ids]
    person = np.repeat(np.arange(len(author_ids)), [len(s) for s in spans])
    rows = np.concatenate(spans).astype(np.int64)
    if eligible is not None:
        keep = np.asarray(eligible, dtype=bool)[rows]
        rows, person = rows[keep], person[keep]
    if not len(rows):
        return out
    docs = local.index.docs
    distinct, entry_row = np.unique(rows, return_inverse=True)
    held_rows, held_pair = local.rare_pairs(max_df).held_by((docs.title_seq, docs.abstract_seq),
                                                            distinct, pairs.keys)
    holds = np.zeros((len(distinct), len(pairs.keys)), dtype=bool)  # a few thousand x a few dozen
    holds[np.searchsorted(distinct, held_rows), held_pair] = True
    # `person` ascends (rows were gathered person by person): a pair once per person
    starts = np.flatnonzero(np.r_[True, person[1:] != person[:-1]])
    has = np.maximum.reduceat(holds[entry_row].astype(np.uint8), starts, axis=0)
    out[person[starts]] = has.astype(np.float64) @ pairs.idf
    return out


def by_phrases(local: IndexBackend, profiles: PersonProfiles, experts: list, pairs: QueryPairs,
               eligible: np.ndarray | None, settings: ExpertSettings) -> list:
    """The voting's first `phrase_depth` people re-ordered by vote + their phrases' share (see
    the module docstring); the others stay below them as they were."""
    if settings.phrase_weight <= 0 or not len(pairs.keys) or not experts:
        return experts
    head, tail = experts[:settings.phrase_depth], experts[settings.phrase_depth:]
    found = phrase_scores(local, profiles, [e.author_id for e in head], pairs, eligible,
                          settings.phrase_max_df)
    best_found = float(found.max(initial=0.0))
    if best_found <= 0:
        return experts
    best_vote = max(e.score for e in head)
    lifted = [replace(e, score=round(e.score + settings.phrase_weight * best_vote * f / best_found,
                                     SCORE_DECIMALS))
              for e, f in zip(head, found.tolist())]
    lifted.sort(key=lambda e: (-e.score, e.author_id))
    return lifted + tail
