"""A Chinese query's lexical plan: each Chinese word is one group of its English senses."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from paperfind.search.backend import CandidateRequest
from paperfind.search.engine import UNWEIGHED_SENSES
from paperfind.search.filters import Filters
from paperfind.search.plan import TRANSLATION_WEIGHT, build_plan, translated_plan
from paperfind.search.query import parse_query
from paperfind.text.analyze import Analyzer
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


class _CountingAnalyzer(Analyzer):
    """The real analyser, noting each text it cuts into words."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def words(self, text: str) -> list[str]:
        self.texts.append(text)
        return super().words(text)


def test_a_chinese_querys_own_words_are_read_once(searcher, monkeypatch):
    """Issue 33: the plan with the rendering is made from the query's own plan (its words
    segmented, its people looked up once) and equals the one made from the query whole."""
    counting = _CountingAnalyzer()
    monkeypatch.setattr(searcher, "analyzer", counting)
    for text in ("图神经网络的过平滑", "用LSTM预测股票价格", "精度", "黎曼 manifold-learning 综述"):
        counting.texts.clear()
        query = searcher._read(searcher.backend(), parse_query(text), Filters(), "lexical")
        assert counting.texts.count(text) == 1
        translation = searcher.translator.translate(text)
        assert query.plan == build_plan(parse_query(text), counting, searcher.backend(),
                                        translation=translation.english, renderings=translation.terms)


def test_the_querys_own_plan_is_left_as_it_was(searcher):
    """The query vector's worker may hold the query's own plan while its rendering is added."""
    q, backend = parse_query("多臂老虎机 multi-armed"), searcher.backend()
    own = build_plan(q, searcher.analyzer, backend)
    before = copy.deepcopy(own)
    translation = searcher.translator.translate(q.text)
    for renderings in (translation.terms, ()):
        with_rendering = translated_plan(own, searcher.analyzer, backend, translation.english, renderings)
        assert own == before and len(with_rendering.groups) > len(own.groups)
        assert with_rendering.translation == translation.english and not own.translation


def test_a_word_the_glossary_implies_finds_the_papers_that_write_it(searcher):
    # 补全 is no dictionary's word; the glossary's 矩阵补全 "matrix completion" implies it is
    # "completion" (paperfind.text.implied): with every word of 张量补全 required, the slice's
    # paper on tensor completion is found (read 补 "make up for" + 全 "full", it was not)
    plan = _plan(searcher, "张量补全")
    assert {"complet"} in _translated(plan)
    backend = searcher.backend()
    found = backend.candidates(CandidateRequest(plan.lexical(), min_match=plan.known_groups(backend)))
    titles = [card["title"] for card in backend.stored(found.handles.tolist())]
    assert any("tensor completion" in title.lower() for title in titles)


def _stems(plan) -> set[str]:
    return {stem for g in plan.groups for stem, _ in g.stems}


def test_the_implied_sense_is_weighed_in_the_modes_with_vectors_only(searcher):
    # 分解 is "resolve, decompose" in CC-CEDICT; the glossary's 矩阵分解 "matrix factorization"
    # implies "factorization" (ZhEnTranslator.implied_sense)
    text = "低秩分解"
    assert searcher.translator.implied_sense("分解") == "factorization"
    backend = searcher.backend()
    translation = searcher.translator.translate(text)
    assert "factorization" not in translation.english  # the reading itself is main's
    lexical = searcher._read(backend, parse_query(text), Filters(), "lexical").plan
    hybrid = searcher._read(backend, parse_query(text), Filters(), "hybrid").plan
    # lexical mode reads exactly what the translation says, every sense at its weight
    main = translated_plan(build_plan(parse_query(text), searcher.analyzer, backend), searcher.analyzer,
                           backend, translation.english, translation.terms, UNWEIGHED_SENSES)
    assert [(g.word, g.stems, g.title_only) for g in lexical.groups] == \
        [(g.word, g.stems, g.title_only) for g in main.groups]
    assert "factor" not in _stems(lexical) and "factor" in _stems(hybrid)
    # a sense of the same word's group, not a word of its own
    group = next(g for g in hybrid.groups if "factor" in {s for s, _ in g.stems})
    assert group.stems[0][0] != "factor"
    off = copy.copy(searcher)
    off.settings = replace(searcher.settings, senses=replace(searcher.settings.senses, implied=False))
    assert "factor" not in _stems(off._read(backend, parse_query(text), Filters(), "hybrid").plan)
