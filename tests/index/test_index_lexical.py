"""Per-field BM25 weights checked against the formula, on real titles."""

from __future__ import annotations

import math

import numpy as np

from paperfind.index.lexical import FIELD_PARAMS, build_field_matrix


def _reference(rows, term, k1, b):
    """BM25 (Lucene idf) of `term` in every doc, computed the slow obvious way."""
    n = len(rows)
    avgdl = sum(len(r) for r in rows) / n
    df = sum(1 for r in rows if term in r)
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    out = np.zeros(n)
    for i, r in enumerate(rows):
        tf = r.count(term)
        if tf:
            out[i] = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(r) / avgdl))
    return out


def test_title_weights_match_the_bm25_formula(colt_index):
    seq = colt_index.docs.title_seq
    rows = [seq.row(i).tolist() for i in range(colt_index.docs.n)]
    k1, b = FIELD_PARAMS["title"]
    matrix = build_field_matrix(rows, colt_index.params["n_terms"], k1, b)
    for word in ("bandit", "learn", "convex", "regret"):
        term = colt_index.lexical.term_id(word)
        assert term >= 0, word
        docs, weights = matrix.column(term)
        dense = np.zeros(len(rows))
        dense[docs] = weights
        assert np.allclose(dense, _reference(rows, term, k1, b), rtol=1e-5)
        stored_docs, stored = colt_index.lexical.fields["title"].column(term)
        assert np.array_equal(stored_docs, docs) and np.allclose(stored, weights)


def test_scores_sum_groups_and_count_matched_groups(colt_index):
    lex = colt_index.lexical
    bandit, regret = lex.term_id("bandit"), lex.term_id("regret")
    scores, matched = lex.score([[("title", bandit, 1.0)], [("title", regret, 1.0)]])
    docs_b, w_b = lex.fields["title"].column(bandit)
    docs_r, w_r = lex.fields["title"].column(regret)
    both = np.intersect1d(docs_b, docs_r)
    assert len(both) and (matched[both] == 2).all()
    expected = np.zeros(lex.n_docs, dtype=np.float32)
    expected[docs_b] += w_b
    expected[docs_r] += w_r
    assert np.allclose(scores, expected)


def test_mask_and_unknown_terms(colt_index):
    lex = colt_index.lexical
    mask = np.zeros(lex.n_docs, dtype=bool)
    scores, matched = lex.score([[("title", lex.term_id("bandit"), 1.0)], [("title", -1, 1.0)]], mask)
    assert not scores.any() and not matched.any()


def test_rows_are_papers_in_key_order(colt_index):
    keys = [colt_index.docs.key(i) for i in range(colt_index.docs.n)]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert colt_index.docs.row_of(keys[5]) == 5 and colt_index.docs.row_of("colt2019:nope") == -1
