"""Coverage: how much of the query a person's best papers match together, not one by one.

The voting (paperfind.search.experts) adds up a person's best papers' scores, so a person whose
three papers each match the same part of an abstract (its setting, say) scores as high as one
whose papers match its different parts (the setting in one, the method in another, the data in
a third). The authors of a new paper have usually written about its parts before, each in its
own paper; another group on the same topic repeats one part. A person's coverage is the query's
lexical score of their evidence taken as one text: for each query term the best BM25F any of
their `coverage_papers` best eligible papers gives it (the max, not the sum, so repeating a
term adds nothing), times the term's weight in the query (its count), summed over the terms.
Each of the voting's first `coverage_depth` people gains `coverage_weight` x the best vote x
their coverage's share of the best coverage among them; the order is then the phrases' and the
group spread's, as before.

Evidence is the voting's own (`Expert.evidence`: eligible papers only, a work's versions once),
so `before`, the filters and `exclude` bound coverage exactly as they bound the voting.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from paperfind.search.backend import IndexBackend
from paperfind.search.settings import ExpertSettings

SCORE_DECIMALS = 6


def term_matrix(local: IndexBackend, terms: list[tuple[str, float]], rows: np.ndarray) -> np.ndarray:
    """BM25F of each query term (columns, at boost 1) for each of `rows` (ascending), float32."""
    out = np.zeros((len(rows), len(terms)), dtype=np.float32)
    for j, (term, _) in enumerate(terms):
        out[:, j], _ = local.scores([[("text", term, 1.0)]], rows)
    return out


def coverage_scores(local: IndexBackend, terms: list[tuple[str, float]], evidence: list[list[int]],
                    papers: int) -> np.ndarray:
    """Per person (their evidence rows, best first), sum over the query's terms of the term's
    weight x its best BM25F among the person's first `papers` evidence rows."""
    out = np.zeros(len(evidence))
    spans = [list(rows[:papers]) for rows in evidence]
    if not terms or not any(spans):
        return out
    rows = np.unique(np.asarray([r for span in spans for r in span], dtype=np.int64))
    per_term = term_matrix(local, terms, rows)
    weights = np.asarray([w for _, w in terms], dtype=np.float64)
    for i, span in enumerate(spans):
        if span:
            best = per_term[np.searchsorted(rows, np.asarray(span, dtype=np.int64))].max(axis=0)
            out[i] = float(best.astype(np.float64) @ weights)
    return out


def by_coverage(local: IndexBackend, experts: list, terms: list[tuple[str, float]],
                settings: ExpertSettings) -> list:
    """The voting's first `coverage_depth` people re-ordered by vote + their coverage's share
    (see the module docstring); the others stay below them as they were."""
    if settings.coverage_weight <= 0 or not terms or not experts:
        return experts
    head, tail = experts[:settings.coverage_depth], experts[settings.coverage_depth:]
    found = coverage_scores(local, terms, [e.evidence for e in head], settings.coverage_papers)
    best_found = float(found.max(initial=0.0))
    if best_found <= 0:
        return experts
    best_vote = max(e.score for e in head)
    lifted = [replace(e, score=round(e.score + settings.coverage_weight * best_vote * f / best_found,
                                     SCORE_DECIMALS))
              for e, f in zip(head, found.tolist())]
    lifted.sort(key=lambda e: (-e.score, e.author_id))
    return lifted + tail
