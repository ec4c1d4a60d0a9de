"""bench.experts_whatif's hooks: the defaults change nothing, every step is put back after a
variant, the last year's weight moves only the papers of the year before the query's, and the
word pairs lift only the text route's papers that hold one of the query's pairs (a real index of
two COLT years, no vectors)."""

from __future__ import annotations

import numpy as np
import pytest

import paperfind.search.experts as ex
from bench.experts_whatif import Hooks, hooked, pair_scores
from paperfind.search.experts import ExpertQuery, find_experts
from paperfind.search.settings import ExpertSettings


@pytest.fixture(scope="module")
def searcher(colt_two_years):
    return colt_two_years.searcher()


def steps():
    return (ex.meaning_hits, ex.query_terms, ex.standardised, ex.paper_weights, ex.PaperScores.combined)


def people(found):
    return [(e.author_id, e.score) for e in found.experts]


def test_default_hooks_change_nothing_and_every_step_is_put_back(searcher):
    backend, analyzer = searcher.backend(), searcher.analyzer
    query = ExpertQuery(text="bandit regret lower bounds for online learning", before=2019)
    everyone = ExpertSettings(min_works=1)  # a year of COLT: its people have one or two papers
    plain = find_experts(backend, query, everyone, analyzer)
    assert plain.experts
    saved = steps()
    with hooked(Hooks(), backend, analyzer, {}):
        assert steps() != saved
        same = find_experts(backend, query, everyone, analyzer)
    assert steps() == saved
    assert people(same) == people(plain)
    with pytest.raises(RuntimeError), hooked(Hooks(power=2.0), backend, analyzer, {}):
        raise RuntimeError("a variant that fails")
    assert steps() == saved


def test_the_last_years_weight_moves_only_the_papers_of_the_year_before_the_query(searcher):
    backend, analyzer = searcher.backend(), searcher.analyzer
    rows = np.arange(backend.index.docs.n, dtype=np.int64)
    years = np.asarray(backend.index.docs.year[rows])
    assert {2018, 2019} <= set(years.tolist())
    plain = ex.paper_weights(backend, rows, 2018, ExpertSettings())
    with hooked(Hooks(last_year_weight=2.0), backend, analyzer, {}):
        weighed = ex.paper_weights(backend, rows, 2018, ExpertSettings())
    assert np.allclose(weighed[years == 2018], 2 * plain[years == 2018])
    assert np.allclose(weighed[years != 2018], plain[years != 2018])


def test_word_pairs_lift_only_the_papers_holding_one_of_the_querys_pairs(searcher):
    backend, analyzer = searcher.backend(), searcher.analyzer
    text = backend.index.docs.stored_doc(0)["abstract"]  # the first paper's own abstract
    settings = ExpertSettings()
    rows, plain = ex.text_route(backend, ex.query_terms(backend, analyzer, text, settings), None, 1000)
    saved = ex.text_route
    with hooked(Hooks(pair_weight=1.0), backend, analyzer, {}):
        same_rows, lifted = ex.text_route(backend, ex.query_terms(backend, analyzer, text, settings), None, 1000)
    assert ex.text_route is saved
    assert np.array_equal(rows, same_rows)
    gain = lifted - plain
    assert np.allclose(gain, pair_scores(backend, analyzer, text, rows))
    own = int(np.flatnonzero(rows == 0)[0])
    assert gain[own] > 0 and gain[own] == gain.max()  # the paper holds every pair of its abstract
    assert (gain == 0).any()  # papers holding none of its pairs keep their score
    # a bound on the pairs' paper counts only takes pairs away
    assert (pair_scores(backend, analyzer, text, rows, max_df=1) <= gain + 1e-9).all()
