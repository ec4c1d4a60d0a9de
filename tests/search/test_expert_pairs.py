"""The query's word pairs in the expert finder's text route, over a real index (two COLT years):
a paper gains the idf of the query's pairs its title or abstract holds, counted by hand from the
index's sequences; one table of every pair serves the signature phrases unchanged; the finder
reads the pairs by default and the start-up makes their table."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from paperfind.core import Paperfind
from paperfind.index.rare_pairs import pair_keys
from paperfind.search.expert_pairs import pair_bonus
from paperfind.search.expert_phrases import query_pairs, query_term_ids
from paperfind.search.experts import ExpertQuery, find_experts
from paperfind.search.settings import EVERY_PAIR
from paperfind.settings import Settings
from paperfind.text.analyze import Analyzer


def _held(docs, row: int, vocab_size: int) -> set[int]:
    return set(pair_keys(docs.title_seq.row(row), vocab_size).tolist()) \
        | set(pair_keys(docs.abstract_seq.row(row), vocab_size).tolist())


def _long_paper(local) -> int:
    docs = local.index.docs
    return next(r for r in range(docs.n) if len(docs.abstract_seq.row(r)) > 60
                and any(int(a) > 0 for a in docs.authors_of(r)))


def test_a_paper_gains_the_idf_of_the_query_pairs_it_holds(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    settings = replace(colt_years_app.settings.search.experts, pair_weight=1.0, pair_max_df=0)
    text = docs.stored_doc(_long_paper(local))["abstract"]
    held = [_held(docs, r, local.n_terms) for r in range(docs.n)]
    counts = _pair_counts(docs, local.n_terms)
    ids = np.array([local.term_id(t) for t in Analyzer().terms(text)], dtype=np.int64)
    wanted = set(pair_keys(ids, local.n_terms).tolist()) & set(counts)
    n = docs.n
    idf = {k: math.log1p((n - counts[k] + 0.5) / (counts[k] + 0.5)) for k in wanted}
    expected = np.array([sum(idf[k] for k in wanted & keys) for keys in held])
    rows = np.arange(n, dtype=np.int64)[::-1]  # any order: the bonus follows the rows given
    got = pair_bonus(local, query_term_ids(local, Analyzer(), text), rows, settings)
    assert np.allclose(got, expected[rows])
    assert (got > 0).sum() > 1 and (got == 0).any()  # others hold some of its common pairs, not all
    doubled = pair_bonus(local, query_term_ids(local, Analyzer(), text), rows, replace(settings, pair_weight=2.0))
    assert np.allclose(doubled, 2 * got)
    assert not pair_bonus(local, query_term_ids(local, Analyzer(), text), rows, replace(settings, pair_weight=0.0)).any()


def _pair_counts(docs, vocab_size: int) -> dict[int, int]:
    """Every pair's paper count, by hand from the index's sequences."""
    counts: dict[int, int] = {}
    for row in range(docs.n):
        for key in _held(docs, row, vocab_size):
            counts[key] = counts.get(key, 0) + 1
    return counts


def test_one_table_of_every_pair_gives_the_phrases_the_same_rare_pairs(colt_years_app):
    fresh = Paperfind(Settings(db_path=colt_years_app.settings.db_path, semantic=False))
    local = fresh.searcher().backend()
    docs = local.index.docs
    # a bound the slice's pairs pass (its commonest pair is in about ten of its papers)
    settings = replace(fresh.settings.search.experts, pair_weight=0.0, phrase_max_df=3)
    text = docs.stored_doc(_long_paper(local))["abstract"]
    rare_only = query_pairs(local, query_term_ids(local, Analyzer(), text), settings)
    assert local.rare_pairs(settings.phrase_max_df).max_df == settings.phrase_max_df
    every = replace(settings, pair_weight=0.6)
    assert every.pairs_max_df == EVERY_PAIR
    table = local.rare_pairs(every.pairs_max_df)  # made again, with every pair
    counts = _pair_counts(docs, local.n_terms)
    assert table.keys.tolist() == sorted(counts) and table.df.tolist() == [counts[k] for k in sorted(counts)]
    assert table.df.max() > settings.phrase_max_df
    from_every = query_pairs(local, query_term_ids(local, Analyzer(), text), every)
    assert len(rare_only.keys) and np.array_equal(from_every.keys, rare_only.keys)
    assert np.allclose(from_every.idf, rare_only.idf)
    assert local.rare_pairs(settings.phrase_max_df) is table  # the larger table serves the phrases


def test_the_finder_adds_the_pairs_to_its_text_route_by_default(colt_years_app):
    local = colt_years_app.searcher().backend()
    docs = local.index.docs
    settings = colt_years_app.settings.search.experts
    assert settings.pair_weight > 0  # on in the product
    row = _long_paper(local)
    query = ExpertQuery(text=docs.stored_doc(row)["abstract"], before=int(docs.year.max()) + 1)
    on = find_experts(local, query, settings)
    off = find_experts(local, query, replace(settings, pair_weight=0.0))
    assert np.array_equal(on.papers.rows, off.papers.rows)
    own = int(np.searchsorted(on.papers.rows, row))
    # the paper whose abstract is the query holds every one of its pairs: it stands further above the crowd
    assert on.papers.text[own] == on.papers.text.max()

    def lead(scores: np.ndarray) -> float:
        return float(scores[own] - np.sort(scores)[-2])

    assert lead(on.papers.text) > lead(off.papers.text)


def test_the_start_up_makes_the_table_of_every_pair(colt_years_app):
    fresh = Paperfind(Settings(db_path=colt_years_app.settings.db_path, semantic=False))
    settings = fresh.settings.search.experts
    fresh.warm_up()
    fresh.warm_experts_in_background().join(timeout=60)
    assert fresh.warm_state()["experts"] is True
    local = fresh.searcher().backend()
    assert settings.pairs_max_df == EVERY_PAIR
    assert local.experts_ready(settings.pairs_max_df)  # made at the start, not by this ask
    assert len(local.rare_pairs(settings.pairs_max_df).keys) == len(_pair_counts(local.index.docs, local.n_terms))
