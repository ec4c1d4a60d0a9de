"""Fusion of lexical and semantic lists: determinism, ties, weights, query kinds."""

from __future__ import annotations

import random

import pytest

import numpy as np

from paperfind.search.fusion import (QUERY_KINDS, classify_query, convex_fusion, fuse, fuse_arrays,
                                     looks_like_name, settle_near_tie)

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


def _random_lists(rng: random.Random) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lexical and semantic lists of integer keys as the engine hands them over (scores float64
    and float32), with ties, repeated keys, overlaps, near-ties at the top and empty lists."""
    universe = rng.randint(1, 400)
    n_lex, n_sem = rng.choice([0, 1, 3, 50, 300]), rng.choice([0, 1, 5, 150, 200])
    lex_keys = np.array([rng.randrange(universe) for _ in range(n_lex)], dtype=np.int64)
    steps = rng.choice([4, 50, 10_000])  # few distinct scores: many ties
    lex = np.array([rng.randint(0, steps) / steps * rng.choice([1.0, 7.3]) for _ in range(n_lex)])
    if n_lex >= 3 and rng.random() < 0.5:  # a near-tie among the lexical leaders
        lex[:3] = lex.max() * np.array([1.0, 0.97, 0.99])
    sem_keys = np.array([rng.randrange(universe) for _ in range(n_sem)], dtype=np.int64)
    if n_sem and n_lex and rng.random() < 0.5:
        sem_keys[0] = lex_keys[rng.randrange(min(3, n_lex))]
    sem = np.array([rng.choice([0.8, 0.8125, rng.uniform(0.6, 0.95)]) for _ in range(n_sem)], dtype=np.float32)
    if n_sem and rng.random() < 0.5:
        sem[0] = sem.max() + np.float32(0.01)
    return lex_keys, lex, sem_keys, sem


@pytest.mark.parametrize("kind", [None, *QUERY_KINDS])
def test_fusion_of_arrays_is_fusion_of_lists_bit_for_bit(kind):
    """The engine fuses rows as arrays (issue 33: the lists cost ms a query); the order and
    every score must be `fuse`'s exactly, ties, repeats, near-ties and empty lists included."""
    rng = random.Random(33)
    query = "how to get low regret when the losses are chosen by an adversary"
    lifted = 0
    for _ in range(400):
        lex_keys, lex, sem_keys, sem = _random_lists(rng)
        chosen = QUERY_KINDS[kind] if kind else None
        lists = fuse(query, list(zip(lex_keys.tolist(), lex.tolist())),
                     list(zip(sem_keys.tolist(), sem.tolist())), kind=chosen)
        keys, scores = fuse_arrays(query, lex_keys, lex, sem_keys, sem, kind=chosen)
        assert keys.tolist() == [k for k, _ in lists]
        assert scores.tolist() == [s for _, s in lists]
        lifted += len(lists) > 1 and abs(lists[0][1] - lists[1][1] - 1e-3) < 1e-12  # a near-tie lifted
    if kind in (None, "natural"):
        assert lifted  # the near-tie rule was exercised
