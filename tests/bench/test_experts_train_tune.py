"""bench.experts_train_tune's cache of routes is the finder: the product's `rank_people` over a
query's cached routes gives `find_experts`' own people, at the product's settings and at every
kind of knob the coordinate search moves (a real index of two COLT years, no vectors)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bench.experts_train_tune import (GRID, Reranker, bootstrap, collect, coordinate_search, evaluate,
                                      load_routes, save_routes)
from paperfind.rank.train_experts import training_queries
from paperfind.search.experts import ExpertQuery, find_experts
from paperfind.search.settings import ExpertSettings


@pytest.fixture(scope="module")
def finder(colt_two_years):
    searcher = colt_two_years.searcher()
    queries = training_queries(colt_two_years.settings.db_path, 12, min_earlier_works=1)
    assert len(queries) >= 5 and {q.before for q in queries} == {2019}
    return searcher.backend(), searcher.analyzer, queries


CHANGED = (
    {},
    {"text_weight": 5.0, "top_papers": 2, "decay": 0.5},
    {"recency_half_life_years": 0.0, "middle_author_weight": 1.0, "group_discount": 0.6},
    {"spread_depth": 20, "phrase_weight": 0.8, "phrase_max_df": 3, "phrase_depth": 5},
    {"pair_weight": 1.3, "link_weight": 2.0, "depth": 40},
)


@pytest.mark.parametrize("change", CHANGED)
def test_the_cached_routes_rank_as_find_experts_does(finder, change):
    backend, analyzer, queries = finder
    routes = collect(backend, queries, ExpertSettings())  # checks the product's settings itself
    reranker = Reranker(backend)
    settings = replace(ExpertSettings(), **change)
    for q, r in zip(queries, routes):
        served = find_experts(backend, ExpertQuery(text=q.text, before=q.before), settings, analyzer)
        assert reranker.top(r, settings) == [e.author_id for e in served.experts[:10]]


def test_the_grid_holds_the_products_values_and_the_search_never_ends_below_its_start(finder):
    product = ExpertSettings()
    assert all(getattr(product, knob) in values for knob, values in GRID)
    backend, _, queries = finder
    routes = collect(backend, queries, product, check=False)
    reranker = Reranker(backend)
    start = evaluate(reranker, routes, product)
    log: list[str] = []
    chosen, figures = coordinate_search(reranker, routes, product, 1, log)
    assert np.array_equal(figures, evaluate(reranker, routes, chosen))
    assert (figures[:, 0].mean(), figures[:, 1].mean()) >= (start[:, 0].mean(), start[:, 1].mean())
    assert len(log) == 1 + len(GRID)


def test_the_bootstrap_interval_holds_the_mean():
    diff = np.r_[np.ones(30), np.zeros(70)]
    lo, hi = bootstrap(diff)
    assert lo < 0.3 < hi and hi - lo < 0.25


def test_the_routes_cache_reads_back_outside_the_module_that_wrote_it(finder, tmp_path):
    """Written by `python -m bench.experts_train_tune`, `Routes` objects would be pickled as
    `__main__.Routes`, readable only by that same command: the cache holds plain fields."""
    backend, _, queries = finder
    routes = collect(backend, queries[:3], ExpertSettings(), check=False)
    path = tmp_path / "routes.pkl"
    save_routes(path, routes)
    assert b"Routes" not in path.read_bytes()
    again = load_routes(path)
    assert [r.key for r in again] == [r.key for r in routes]
    assert all(np.array_equal(a.text_rows, b.text_rows) and a.relevant == b.relevant
               for a, b in zip(again, routes))
