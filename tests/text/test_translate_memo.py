"""A translator keeps each word's readings across queries (issue 33): a fresh query is rendered
from its words' kept readings, and the rendering is the one a translator that keeps nothing
makes."""

from __future__ import annotations

import pytest

from paperfind.text.translate import WORD_MEMO, Translation, ZhEnTranslator

# queries that share words (图神经网络, 学习, 的) and each have words of their own
QUERIES = ("基于注意力机制的图神经网络", "图神经网络的过平滑", "平均场博弈的学习", "梯度法求解复合凸优化",
           "最小二乘回归模型", "拉普拉斯近似的贝叶斯神经网络", "香农熵估计", "数据中学习离群点检测")


@pytest.fixture(scope="module")
def unkept() -> ZhEnTranslator:
    """A translator that keeps no word's reading: each query read afresh."""
    return ZhEnTranslator(word_memo=0)


def afresh(reference: ZhEnTranslator, query: str) -> Translation:
    reference._recent.clear()
    return reference.translate(query)


@pytest.fixture(scope="module")
def kept() -> ZhEnTranslator:
    return ZhEnTranslator()


@pytest.fixture
def cleared(kept: ZhEnTranslator) -> ZhEnTranslator:
    """The module's translator with nothing kept yet."""
    kept._recent.clear()
    kept._segment_readings.cache_clear()
    kept._word_candidates.cache_clear()
    return kept


def test_a_new_query_reads_the_words_an_earlier_one_had(cleared, unkept):
    cleared.translate(QUERIES[0])
    before = cleared._segment_readings.cache_info()
    assert cleared.translate(QUERIES[1]) == afresh(unkept, QUERIES[1])
    assert cleared._segment_readings.cache_info().hits > before.hits  # 图神经网络 and 的 were read for the first
    for q in QUERIES[2:]:
        assert cleared.translate(q) == afresh(unkept, q)


def test_the_kept_readings_are_bounded_and_read_the_same_when_dropped(unkept):
    small = ZhEnTranslator(word_memo=4)
    for _ in range(2):  # the second round reads words dropped from the memo again
        for q in QUERIES:
            assert afresh(small, q) == afresh(unkept, q)
    for memo in (small._segment_readings, small._word_candidates):
        assert memo.cache_info().maxsize == 4 and memo.cache_info().currsize == 4
    assert ZhEnTranslator()._segment_readings.cache_info().maxsize == WORD_MEMO


def test_each_translator_keeps_the_readings_of_its_own_glossary(kept, tmp_path):
    """The readings are the loaded dictionaries': a translator of another glossary (a new
    glossary is read by a new translator) does not read a word as another one kept it."""
    glossary = tmp_path / "g.tsv"
    glossary.write_text("梯度\tslope\n", encoding="utf-8")
    own = ZhEnTranslator(glossary_path=glossary)
    assert "gradient" in kept.translate("梯度下降").english.split()
    assert own.translate("梯度下降").english.split()[0] == "slope"
    assert "gradient" in kept.translate("随机梯度").english.split()


def test_a_word_read_with_fewer_senses_is_not_answered_from_more(cleared, unkept):
    both = afresh(cleared, "结构").english  # CC-CEDICT: "structure, composition"
    try:
        cleared.max_senses = unkept.max_senses = 1
        assert afresh(cleared, "结构").english == afresh(unkept, "结构").english == "structure"
    finally:
        cleared.max_senses = unkept.max_senses = 2
    assert both == "structure composition"


def test_warming_reads_the_segmenters_frequent_words_ahead(cleared, unkept):
    read = cleared.warm(2000)
    assert 1000 < read <= 2000
    assert cleared._segment_readings.cache_info().currsize == read
    assert cleared._word_candidates.cache_info().currsize > 0
    before = cleared._segment_readings.cache_info()
    for q in QUERIES:
        assert cleared.translate(q) == afresh(unkept, q)
    after = cleared._segment_readings.cache_info()
    assert after.hits - before.hits > after.misses - before.misses  # most words were read ahead
