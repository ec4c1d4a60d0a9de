"""Chinese suffix characters read as the English derivative the field writes (paperfind/text/suffixes.py)."""

from __future__ import annotations

import pytest

from paperfind.text.suffixes import derived_forms
from paperfind.text.translate import ZhEnTranslator, field_counts


@pytest.fixture(scope="module")
def translator() -> ZhEnTranslator:
    return ZhEnTranslator()


def test_a_senses_derivatives_are_the_fields_words():
    counts = {"similarity": 9000, "similarness": 3, "linearization": 400, "linearize": 60}
    count = lambda word: counts.get(word, 0)  # noqa: E731
    assert derived_forms("similar", "度", count, 50) == ("similarity",)  # "similarness": too rare
    assert derived_forms("linear", "化", count, 50) == ("linearization", "linearize")
    assert derived_forms("linear", "器", count, 50) == ()
    assert derived_forms("closed form", "化", count, 50) == ()  # a sense of two words


@pytest.mark.parametrize("zh,reading", [
    ("相似度", ("similarity", "similar")),  # was 相似 "similar", 度 "measure"
    ("预测器", ("predictor", "forecaster", "prediction", "forecasting")),  # 器 "device"
    ("线性化", ("linearization", "linear")),  # 化 "transform"
    ("单调性", ("monotonicity", "monotonous")),  # 性 "property"
    ("交互式", ("interactive",)),  # 式 "type": the sense is the derivative already
])
def test_a_suffix_read_alone_joins_the_word_before_it(translator, zh, reading):
    assert translator.translate(zh).terms == ((zh, reading),)


def test_known_words_and_lone_suffixes_are_left_alone(translator):
    assert translator.translate("编码器").terms == (("编码器", ("encoder",)),)  # the glossary's word
    assert translator.translate("程度").terms[0][0] == "程度"  # CC-CEDICT's word, not 程 + 度
    assert translator.translate("化").terms[0][0] == "化"  # no word before it: read alone
    assert field_counts()("similarity") >= 50
