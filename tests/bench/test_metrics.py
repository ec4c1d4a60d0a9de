"""bench/metrics.py: the rank metrics computed in process agree with the dev sets' own scorer."""

from __future__ import annotations

import random

import pytest

from bench import corpus, metrics


@pytest.mark.realdata
def test_in_process_mrr_and_recall_equal_score_py_on_a_shuffled_run():
    items = corpus.load_set("author_dev")  # several relevant keys per query: recall below 1
    rng = random.Random(3)
    pool = sorted({key for it in items for key in it["relevant"]})
    ranked = {}
    for it in items:  # some relevant keys among distractors, at random places
        keys = rng.sample(sorted(it["relevant"]), max(1, len(it["relevant"]) // 2)) + rng.sample(pool, 20)
        rng.shuffle(keys)
        ranked[it["qid"]] = list(dict.fromkeys(keys))
    official = metrics.score_ranked("author_dev", ranked)["metrics"]
    runs = [ranked[it["qid"]] for it in items]
    relevant = [it["relevant"] for it in items]
    assert metrics.mrr(runs, relevant) == pytest.approx(official["MRR@10"], abs=1e-9)
    recall = sum(metrics.recall(r, rel, 10) for r, rel in zip(runs, relevant)) / len(items)
    assert recall == pytest.approx(official["R@10"], abs=1e-9)
    assert 0 < official["MRR@10"] < 1 and 0 < official["R@10"] < 1


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert metrics.percentile(values, 50) == 51.0  # round(0.5 * 99) = 50 -> the 51st value
    assert metrics.percentile(values, 95) == 95.0
    assert metrics.percentile([], 50) == 0.0
    # the latency tables' pair is the same definition, whatever the order the times came in
    assert metrics.p50_p95(list(reversed(values))) == (51.0, 95.0)
