"""The query's word pairs in the expert finder's text route.

The text route (paperfind.search.experts) scores a paper by BM25F of the query's words, each on
its own: an abstract on "sliced Wasserstein distances" matches every paper with "distance" and
every paper with "Wasserstein" alike. A paper whose title or abstract holds the query's own
two-word terms (pairs of consecutive content stems, as the index's sequences hold them) names
the same concept, the sequential-dependence idea of term proximity at the paper level: each
paper the route found gains `pair_weight` x the summed BM25 idf of the query's pairs it holds,
each pair once, before the route's standard scores. Every pair's paper count is the index's pair
table (`paperfind.index.rare_pairs`, made at start-up from the index's sequences; the signature
phrases read its rare part).

Measured in process over every dev set (bench/RESULTS.md, issue 30, exp30k and exp30l).
"""

from __future__ import annotations

import numpy as np

from paperfind.index.distinct import distinct as distinct_rows
from paperfind.search.backend import IndexBackend
from paperfind.search.settings import ExpertSettings


def pair_bonus(local: IndexBackend, term_ids: np.ndarray, rows: np.ndarray,
               settings: ExpertSettings) -> np.ndarray:
    """Per row of `rows` (the text route's papers), `pair_weight` x the summed idf of the query's
    word pairs its title or abstract holds (see the module docstring); zeros when off. `term_ids`:
    the query's (`expert_phrases.query_term_ids`, made once for the pairs and the phrases)."""
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros(len(rows))
    if settings.pair_weight <= 0 or not len(rows) or len(term_ids) < 2:
        return out
    table = local.rare_pairs(settings.pairs_max_df)
    keys, df = table.counts_in(term_ids)
    if settings.pair_max_df > 0:
        counted = df <= settings.pair_max_df
        keys, df = keys[counted], df[counted]
    if not len(keys):
        return out
    n = max(local.n_docs, 1)
    df = df.astype(np.float64)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    docs = local.index.docs
    distinct = distinct_rows(rows)  # np.unique's rows, without its hash table (~0.5 ms of 5,000)
    held_rows, held_pair = table.held_by((docs.title_seq, docs.abstract_seq), distinct, keys)
    per_row = np.zeros(len(distinct))
    np.add.at(per_row, np.searchsorted(distinct, held_rows), idf[held_pair])
    return settings.pair_weight * per_row[np.searchsorted(distinct, rows)]
