"""Passage evidence: the query abstract's sentences matched one by one against a person's papers.

An abstract mixes the problem, which many groups share ("large language models", "offline
reinforcement learning"), with the method, which is its team's own; the whole-abstract routes of
the voting (paperfind.search.experts) weigh both together, so the crowd that shares the problem
outvotes the few who share the method. Matched sentence by sentence, a person whose own earlier
paper covers one sentence (its words, weighed by idf) almost whole stands out even when the
other sentences are everyone's. A person's sentence score is the best covered sentence of the
query over their eligible papers (titles and abstracts, the index's sequences).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from paperfind.index.rare_pairs import row_terms
from paperfind.search.backend import IndexBackend
from paperfind.text.analyze import Analyzer

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
MIN_SENTENCE_TERMS = 4  # "We study X." says too little to be a team's own


@dataclass(frozen=True)
class QuerySentences:
    """The query's sentences as idf weights over its distinct known terms: column j of
    `weights` is sentence j, summing to 1."""

    term_ids: np.ndarray  # int64, sorted
    weights: np.ndarray  # len(term_ids) x sentences

    @classmethod
    def none(cls) -> "QuerySentences":
        return cls(np.zeros(0, dtype=np.int64), np.zeros((0, 0)))


def query_sentences(local: IndexBackend, analyzer: Analyzer, text: str) -> QuerySentences:
    """The sentences of `text` with at least `MIN_SENTENCE_TERMS` known terms."""
    lexical = local.index.lexical
    sentences = []
    for part in SENTENCE_END.split(text.strip()):
        ids = {local.term_id(t) for t in analyzer.terms(part)}
        ids.discard(-1)
        ids = {t for t in ids if t >= 0}
        if len(ids) >= MIN_SENTENCE_TERMS:
            sentences.append(sorted(ids))
    if not sentences:
        return QuerySentences.none()
    term_ids = np.unique(np.concatenate([np.asarray(s, dtype=np.int64) for s in sentences]))
    df = np.array([max(lexical.doc_freq("text", int(t)), 1) for t in term_ids.tolist()], dtype=np.float64)
    idf = np.log(max(local.n_docs, 1) / df)
    weights = np.zeros((len(term_ids), len(sentences)))
    for j, ids in enumerate(sentences):
        at = np.searchsorted(term_ids, ids)
        weights[at, j] = idf[at]
    total = weights.sum(axis=0)
    keep = total > 0
    weights = weights[:, keep] / total[keep]
    return QuerySentences(term_ids, weights)


def sentence_scores(local: IndexBackend, person: np.ndarray, rows: np.ndarray, n_people: int,
                    sentences: QuerySentences) -> np.ndarray:
    """Per person (`person[i]` wrote `rows[i]`, person by person), the best share of a query
    sentence's idf that one of their papers holds."""
    out = np.zeros(n_people)
    if not sentences.weights.size or not len(rows):
        return out
    docs = local.index.docs
    distinct, entry_row = np.unique(rows, return_inverse=True)
    holds = np.zeros((len(distinct), len(sentences.term_ids)), dtype=bool)
    for seq in (docs.title_seq, docs.abstract_seq):
        owner, ids, _ = row_terms(seq, distinct)
        at = np.minimum(np.searchsorted(sentences.term_ids, ids), len(sentences.term_ids) - 1)
        hit = sentences.term_ids[at] == ids
        holds[np.searchsorted(distinct, owner[hit]), at[hit]] = True
    covered = (holds.astype(np.float64) @ sentences.weights).max(axis=1)  # per paper: its best sentence
    starts = np.flatnonzero(np.r_[True, person[1:] != person[:-1]])
    out[person[starts]] = np.maximum.reduceat(covered[entry_row], starts)
    return out
