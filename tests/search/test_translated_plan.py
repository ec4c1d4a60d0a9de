"""A Chinese query's lexical plan: each Chinese word is one group of its English senses."""

from __future__ import annotations

import numpy as np

from paperfind.search.backend import CandidateRequest
from paperfind.search.filters import Filters
from paperfind.search.plan import TRANSLATION_WEIGHT, build_plan
from paperfind.search.query import parse_query
from paperfind.text.fold import has_han


def _plan(searcher, text: str, grouped: bool = True):
    translation = searcher.translator.translate(text)
    return build_plan(parse_query(text), searcher.analyzer, searcher.backend(),
                      translation=translation.english,
                      renderings=translation.terms if grouped else ())


def _translated(plan) -> list[set[str]]:
    """The groups of the English reading (the Chinese text's own words find nothing in English)."""
    return [{stem for stem, _ in g.stems} for g in plan.groups if not has_han(g.word)]


def test_the_senses_of_one_chinese_word_are_one_group(searcher):
    # 安全 "safety, security" and 综述 "survey, review": two words of the query, not four
    groups = _translated(_plan(searcher, "安全综述"))
    assert groups == [{"safeti", "secur"}, {"survey", "review"}]
    assert len(_translated(_plan(searcher, "安全综述", grouped=False))) == 4  # one per English word


def test_a_sense_of_several_words_gives_a_group_per_word(searcher):
    plan = _plan(searcher, "多臂老虎机")  # "multi-armed bandit"
    stems = [g.stems[0][0] for g in plan.groups if g.stems[0][1] == TRANSLATION_WEIGHT]
    assert "bandit" in stems and len(stems) >= 2


def test_a_paper_with_both_senses_has_matched_one_word(searcher):
    backend = searcher.backend()
    both = backend.candidates(CandidateRequest(_plan(searcher, "precision accuracy").lexical(), min_match=2))
    assert len(both) > 0  # the slice has papers on precision and accuracy
    grouped, ungrouped = (_plan(searcher, "精度", grouped=g).lexical() for g in (True, False))
    _, matched = backend.scores(grouped, both.handles)
    _, matched_ungrouped = backend.scores(ungrouped, both.handles)
    assert np.all(matched == matched_ungrouped - 1)  # "precision" and "accuracy" count once


def test_the_searcher_reads_a_chinese_query_by_its_words(searcher):
    query = searcher._read(searcher.backend(), parse_query("精度"), Filters(), "lexical")
    assert query.plan.translation and _translated(query.plan) == [{"precis", "accuraci"}]


def test_a_names_adjective_is_a_sense_of_the_same_word(searcher):
    # 黎曼 is "Riemann, Riemannian": one word of the query, the adjective an alternative
    groups = _translated(_plan(searcher, "黎曼"))
    assert groups == [{"riemann", "riemannian"}]
