"""The analyser both sides share: folding, Han segmentation, stop words, stems, names."""

from __future__ import annotations

from paperfind.text.analyze import Analyzer
from paperfind.text.fold import fold
from paperfind.text.names import fold_name


def test_fold_drops_diacritics_and_case_but_keeps_han():
    assert fold("Rocktäschel") == "rocktaschel"
    assert fold("Roberto Martín-Martín") == "roberto martin-martin"
    assert fold("扩散模型") == "扩散模型"


def test_fold_name_transliterates_letters_nfkd_cannot():
    assert fold_name("Błażej Osiński") == "blazej osinski"
    assert fold_name("H. Zhang") == "h zhang"
    assert fold_name("Jun-Yan Zhu") == "jun yan zhu"


def test_terms_drop_stop_words_and_stem():
    an = Analyzer()
    assert an.terms("Learning to Learn with Networks") == ["learn", "learn", "network"]
    assert an.words("Attention is all you need") == ["attention", "is", "all", "you", "need"]


def test_han_runs_are_segmented_into_words_and_english_kept():
    an = Analyzer()
    words = an.words("diffusion 模型 加速")
    assert words[0] == "diffusion"
    assert "模型" in words and "加速" in words
    assert "hsic" in an.terms("基于HSIC的特征选择")


def test_name_terms_are_not_stemmed():
    assert Analyzer().name_terms("James Martens") == ["james", "martens"]


def test_the_same_text_gives_the_same_terms_every_time():
    a, b = Analyzer(), Analyzer()
    text = "Stochastic variance-reduced cubic regularization 方法"
    assert a.terms(text) == b.terms(text) == a.terms(text)


def test_possessive_clitic_is_not_a_word():
    # "model's" was the words "model" and "s": "s" then matched most abstracts and broke the
    # adjacency of "model" with the next word
    an = Analyzer()
    assert an.words("Why do CNN's fail? The model\u2019s prior, Bayes' rule") == \
        ["why", "do", "cnn", "fail", "the", "model", "prior", "bayes", "rule"]
    assert an.terms("Adam's update") == an.terms("Adam update")
    # a real single letter stays
    assert "s" in an.words("an s-shaped curve")
