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

from dataclasses import dataclass, field, replace

import numpy as np

from paperfind.index.profiles import PersonProfiles
from paperfind.index.rare_pairs import row_terms
from paperfind.search.expert_sentences import QuerySentences, query_sentences, sentence_scores
from paperfind.search.backend import IndexBackend
from paperfind.search.settings import ExpertSettings
from paperfind.text.analyze import Analyzer

SCORE_DECIMALS = 6


@dataclass(frozen=True)
class QueryPairs:
    """The query's word pairs that few papers hold: their keys (sorted) and idf."""

    keys: np.ndarray
    idf: np.ndarray
    word_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # rare single words
    word_idf: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sentences: QuerySentences = field(default_factory=QuerySentences.none)

    @classmethod
    def none(cls) -> "QueryPairs":
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0))

    @property
    def empty(self) -> bool:
        return not len(self.keys) and not len(self.word_ids) and not self.sentences.weights.size


def query_pairs(local: IndexBackend, analyzer: Analyzer, text: str, settings: ExpertSettings) -> QueryPairs:
    """The rare pairs of consecutive content stems of `text`, as the index's sequences hold them."""
    if settings.phrase_weight <= 0 or not text.strip():
        return QueryPairs.none()
    ids = np.array([local.term_id(t) for t in analyzer.terms(text)], dtype=np.int64)
    keys, idf = local.rare_pairs(settings.phrase_max_df).rare_in(ids)
    word_ids, word_idf = rare_words(local, ids, settings.word_max_df) if settings.word_weight > 0 else \
        (np.zeros(0, dtype=np.int64), np.zeros(0))
    sentences = query_sentences(local, analyzer, text) if settings.sentence_weight > 0 else QuerySentences.none()
    return QueryPairs(keys, idf, word_ids, word_idf, sentences)


def rare_words(local: IndexBackend, ids: np.ndarray, max_df: int) -> tuple[np.ndarray, np.ndarray]:
    """(term ids, idf) of the query's words that at most `max_df` papers hold (at least 2:
    a word of one paper is a typo or a name, no one's vocabulary), each once."""
    ids = np.unique(ids[ids >= 0])
    lexical = local.index.lexical
    df = np.array([lexical.doc_freq("text", int(t)) for t in ids.tolist()], dtype=np.float64)
    keep = (df >= 2) & (df <= max_df)
    return ids[keep], np.log(max(local.n_docs, 1) / df[keep])


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


def _people_rows(profiles: PersonProfiles, author_ids: list[int], eligible: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(person index, row) of each eligible paper of each person, person by person."""
    spans = [profiles.rows_of(int(a)) for a in author_ids]
    person = np.repeat(np.arange(len(author_ids)), [len(s) for s in spans])
    rows = np.concatenate(spans).astype(np.int64) if spans else np.zeros(0, dtype=np.int64)
    if eligible is not None:
        keep = np.asarray(eligible, dtype=bool)[rows]
        rows, person = rows[keep], person[keep]
    return person, rows


def word_scores(local: IndexBackend, profiles: PersonProfiles, author_ids: list[int],
                pairs: QueryPairs, eligible: np.ndarray | None, repeats: bool) -> np.ndarray:
    """Per person, the summed idf of the query's rare words their eligible papers hold: once
    per person, or with `repeats` x log2(1 + their papers holding it) (a word a person uses
    paper after paper is their vocabulary, one use may be anyone's)."""
    out = np.zeros(len(author_ids))
    if not len(pairs.word_ids) or not author_ids:
        return out
    person, rows = _people_rows(profiles, author_ids, eligible)
    if not len(rows):
        return out
    docs = local.index.docs
    distinct, entry_row = np.unique(rows, return_inverse=True)
    holds = np.zeros((len(distinct), len(pairs.word_ids)), dtype=bool)
    for seq in (docs.title_seq, docs.abstract_seq):
        owner, ids, _ = row_terms(seq, distinct)
        at = np.minimum(np.searchsorted(pairs.word_ids, ids), len(pairs.word_ids) - 1)
        hit = pairs.word_ids[at] == ids
        holds[np.searchsorted(distinct, owner[hit]), at[hit]] = True
    starts = np.flatnonzero(np.r_[True, person[1:] != person[:-1]])
    if repeats:
        held = np.log2(1.0 + np.add.reduceat(holds[entry_row].astype(np.float64), starts, axis=0))
    else:
        held = np.maximum.reduceat(holds[entry_row].astype(np.uint8), starts, axis=0).astype(np.float64)
    out[person[starts]] = held @ pairs.word_idf
    return out


def by_phrases(local: IndexBackend, profiles: PersonProfiles, experts: list, pairs: QueryPairs,
               eligible: np.ndarray | None, settings: ExpertSettings, depth: int | None = None) -> list:
    """The voting's first `depth` (`phrase_depth`) people re-ordered by vote + their phrases'
    share (see the module docstring); the others stay below them as they were."""
    if settings.phrase_weight <= 0 or pairs.empty or not experts:
        return experts
    depth = settings.phrase_depth if depth is None else depth
    head, tail = experts[:depth], experts[depth:]
    ids = [e.author_id for e in head]
    lift = np.zeros(len(head))
    for weight, found in ((settings.phrase_weight,
                           phrase_scores(local, profiles, ids, pairs, eligible, settings.phrase_max_df)),
                          (settings.word_weight,
                           word_scores(local, profiles, ids, pairs, eligible, settings.word_repeats)),
                          (settings.sentence_weight,
                           sentence_scores(local, *_people_rows(profiles, ids, eligible), len(ids),
                                           pairs.sentences))):
        best_found = float(found.max(initial=0.0))
        if weight > 0 and best_found > 0:
            lift += weight * found / best_found
    if not lift.any():
        return experts
    best_vote = max(e.score for e in head)
    lifted = [replace(e, score=round(e.score + best_vote * f, SCORE_DECIMALS))
              for e, f in zip(head, lift.tolist())]
    lifted.sort(key=lambda e: (-e.score, e.author_id))
    return lifted + tail
