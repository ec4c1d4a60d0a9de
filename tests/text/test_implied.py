"""Words a glossary term implies (paperfind.text.implied): 补全 is "completion" because the
glossary's 矩阵补全 is "matrix completion" and 矩阵 is "matrix"."""

from __future__ import annotations

import pytest

from paperfind.text.implied import implied_words
from paperfind.text.translate import ZhEnTranslator


def _known(words: set[str]):
    return lambda word: word in words


def test_the_rest_of_a_terms_english_is_its_unknown_parts():
    glossary = {"代码补全": ("code completion",), "离群点检测": ("outlier detection",)}
    senses = {"代码": ("code",), "检测": ("detection", "test")}
    implied = implied_words(glossary, _known(set(glossary) | set(senses)), lambda w: senses.get(w, ()))
    assert implied == {"补全": ("completion",), "离群点": ("outlier",)}


def test_a_sense_matches_by_its_stem_and_either_side():
    # "detect" is "detection"'s stem; the known word may come first or last
    glossary = {"异常检测": ("anomaly detection",), "图神经网络": ("graph neural network",)}
    senses = {"检测": ("detect",), "网络": ("network",)}
    implied = implied_words(glossary, _known(set(glossary) | set(senses)), lambda w: senses.get(w, ()))
    assert implied["异常"] == ("anomaly",) and implied["图神经"] == ("graph neural",)


def test_a_word_a_dictionary_knows_keeps_its_own_reading():
    glossary = {"代码补全": ("code completion",)}
    senses = {"代码": ("code",), "补全": ("make up",)}
    assert implied_words(glossary, _known(set(glossary) | set(senses)), lambda w: senses.get(w, ())) == {}


def test_no_part_of_one_character_nor_a_suffix_characters_word():
    glossary = {"稀疏化剪枝": ("sparsification pruning",), "图卷积": ("graph convolution",)}
    senses = {"稀疏": ("sparse",), "剪枝": ("pruning",), "卷积": ("convolution",)}
    # 化剪枝 would begin with the suffix 化 (it ends 稀疏化, which is implied); 图 is one character
    implied = implied_words(glossary, _known(set(glossary) | set(senses)), lambda w: senses.get(w, ()))
    assert implied == {"稀疏化": ("sparsification",)}


def test_chosen_parts_a_dictionary_knows_get_the_terms_sense():
    # is_part picks CC-CEDICT's words instead: 分解 "resolve" in the dictionary, the glossary's
    # 矩阵分解 "matrix factorization" implies the field's sense
    glossary = {"矩阵分解": ("matrix factorization",)}
    senses = {"矩阵": ("matrix",), "分解": ("resolve", "decompose")}
    known = _known(set(glossary) | set(senses))
    assert implied_words(glossary, known, lambda w: senses.get(w, ())) == {}
    implied = implied_words(glossary, known, lambda w: senses.get(w, ()), lambda w: w in senses)
    assert implied == {"分解": ("factorization",)}


def test_a_part_the_english_does_not_end_with_is_not_cut():
    glossary = {"知识蒸馏": ("knowledge distillation",)}
    senses = {"蒸馏": ("distilled water",)}  # two words: no ending of one word to cut
    assert implied_words(glossary, _known(set(glossary) | set(senses)), lambda w: senses.get(w, ())) == {}


@pytest.fixture(scope="module")
def translators() -> tuple[ZhEnTranslator, ZhEnTranslator]:
    return ZhEnTranslator(), ZhEnTranslator(implied=False)


@pytest.mark.parametrize("zh,word,english", [
    ("张量补全", "补全", "completion"),  # 矩阵补全 "matrix completion"; else 补 "make up for" + 全
    ("离群点的鲁棒估计", "离群点", "outlier"),  # 离群点检测 "outlier detection"; else "leave group point"
    ("序贯数据", "序贯", "sequential"),  # 序贯决策 "sequential decision making"
])
def test_the_translator_reads_a_word_its_glossary_implies(translators, zh, word, english):
    implied, plain = translators
    assert (word, (english,)) in implied.translate(zh).terms
    assert word not in [part for part, _ in plain.translate(zh).terms]  # read by its characters


def test_a_word_either_dictionary_has_is_read_as_before(translators):
    implied, plain = translators
    for zh in ("最小二乘回归", "模型的安全综述", "神经网络"):
        assert implied.translate(zh).terms == plain.translate(zh).terms
