"""Fusion of lexical and semantic lists: determinism, ties, weights, query kinds."""

from __future__ import annotations

import random

import pytest

from paperfind.search.fusion import (QUERY_KINDS, classify_query, convex_fusion, fuse, looks_like_name,
                                     settle_near_tie)

LEXICAL = [("iclr2017:a", 9.0), ("iclr2017:b", 7.5), ("nips2016:c", 7.5), ("icml2016:d", 3.0)]
SEMANTIC = [("nips2016:c", 0.91), ("iclr2017:e", 0.90), ("iclr2017:a", 0.80)]


@pytest.mark.parametrize("query,kind", [
    ("Ferenc Huszar", "name"), ("C. Laurent", "name"), ("roberto martin-martin", "keywords"),
    ("让大模型推理更短", "chinese"), ("基于 HSIC 的特征选择", "chinese"),
    ("graph neural networks", "keywords"),
    ("We propose a method that learns to compare images so that new classes can be recognised from a few examples",
     "natural"),
])
def test_query_kinds(query, kind):
    assert classify_query(query).name == kind


def test_name_queries_stay_lexical_and_empty_lists_fall_back():
    assert looks_like_name("Ferenc Huszar") and not looks_like_name("Deep Learning for Robots")
    assert [k for k, _ in fuse("Ferenc Huszar", LEXICAL, SEMANTIC)] == [
        "iclr2017:a", "iclr2017:b", "nips2016:c", "icml2016:d"]
    assert [k for k, _ in fuse("graph neural networks", [], SEMANTIC)] == [k for k, _ in SEMANTIC]
    # a name nobody in the corpus has gets no papers by meaning (why the text-only rule stays)
    assert fuse("Zorblax Quuxington", [], SEMANTIC) == []
    assert fuse("graph neural networks", LEXICAL, [], kind=QUERY_KINDS["natural"])[0][0] == "iclr2017:a"
    assert fuse("让大模型推理更短", LEXICAL, SEMANTIC)[0][0] == "nips2016:c"  # Chinese leans semantic


def test_convex_fusion_keeps_a_clear_lexical_winner_and_lifts_semantic_agreement():
    fused = convex_fusion(LEXICAL, SEMANTIC, 0.1)
    assert [k for k, _ in fused][:3] == ["iclr2017:a", "nips2016:c", "iclr2017:b"]  # 1.0, 0.93, 0.83
    assert dict(fused)["iclr2017:e"] == pytest.approx(0.1 * (0.90 - 0.80) / (0.91 - 0.80))
    assert convex_fusion(LEXICAL, SEMANTIC, 0.5)[0][0] == "nips2016:c"  # 0.83 + 0.5 beats 1.0


def test_convex_fusion_is_deterministic_and_orders_ties_by_key():
    first = fuse("learning a metric space for few-shot classification with prototypes", LEXICAL, SEMANTIC)
    for seed in range(5):
        lex, sem = list(LEXICAL), list(SEMANTIC)
        random.Random(seed).shuffle(lex)
        random.Random(seed + 1).shuffle(sem)
        assert fuse("learning a metric space for few-shot classification with prototypes", lex, sem) == first
    tied = convex_fusion([("b", 2.0), ("a", 2.0)], [("c", 0.5)], 0.0)
    assert [k for k, _ in tied] == ["a", "b", "c"]


def test_fusion_takes_index_rows_as_well_as_keys():
    rows_lexical = [(4, 9.0), (1, 7.5), (2, 7.5)]
    rows_semantic = [(2, 0.91), (7, 0.90), (4, 0.80)]
    fused = fuse("why does adaptive gradient descent generalise worse than plain SGD", rows_lexical,
                 rows_semantic)
    # a description: weight 0.05 → 4: 1.0 + 0, 2: 0.83 + 0.05, 1: 0.83, 7: 0.05 * 0.91
    assert [r for r, _ in fused] == [4, 2, 1, 7]


def test_a_lexical_near_tie_at_the_top_is_settled_by_the_semantic_first_choice():
    # a description whose two lexical leaders score within 5% of each other: the semantic list's
    # first choice (the lexical number 2) takes rank 1
    query = "we show that adaptive optimisers generalise worse than plain stochastic gradient descent"
    lexical = [("iclr2017:a", 10.0), ("iclr2017:b", 9.7), ("icml2016:c", 6.0)]
    semantic = [("iclr2017:b", 0.88), ("nips2016:d", 0.87), ("iclr2017:a", 0.86), ("uai2016:e", 0.60)]
    assert classify_query(query).near_tie == pytest.approx(0.05)
    assert convex_fusion(lexical, semantic, 0.05)[0][0] == "iclr2017:a"  # 1.0 + .046 vs .97 + .05
    assert [k for k, _ in fuse(query, lexical, semantic)][:2] == ["iclr2017:b", "iclr2017:a"]
    # the same semantic list against a confident lexical leader (b 15% behind) changes nothing
    confident = [("iclr2017:a", 10.0), ("iclr2017:b", 8.5), ("icml2016:c", 6.0)]
    assert fuse(query, confident, semantic)[0][0] == "iclr2017:a"
    # nor does a semantic first choice outside the lexical leaders, however close its score
    outsider = [("iclr2017:a", 10.0), ("iclr2017:x", 9.9), ("iclr2017:y", 9.8), ("iclr2017:b", 9.7)]
    assert fuse(query, outsider, semantic)[0][0] == "iclr2017:a"


def test_near_tie_is_off_for_kinds_where_it_did_not_help():
    assert QUERY_KINDS["chinese"].near_tie == 0 and QUERY_KINDS["keywords"].semantic_weight == 0
    lexical = [(1, 10.0), (2, 9.9)]
    assert settle_near_tie(convex_fusion(lexical, [(2, 0.9), (1, 0.5)], 0.0), lexical,
                           [(2, 0.9), (1, 0.5)], 0.0)[0][0] == 1
