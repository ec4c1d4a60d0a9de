"""The analyser both sides share: folding, Han segmentation, stop words, stems, names."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from paperfind.text.analyze import Analyzer
from paperfind.text.fold import WORD, fold, has_han
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


# The analyser's expressions are written for speed (the first start analyses every abstract); these
# are the plain definitions they must agree with on any text.
_PLAIN_POSSESSIVE = re.compile(r"(?<=[^\W_])['\u2019]s\b|(?<=s)['\u2019](?=\s|$)")
_PLAIN_COMPOUND = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)+(?![\w-])")
_TRICKY = "aZs09_-'\u2019 .,(\n\té\u00c5\u0301ß\u4e2d\u6a21\u578b\u0661\u00b2\uff21"


def _plain_words(an: Analyzer, text: str) -> list[str]:
    out = []
    for w in WORD.findall(_PLAIN_POSSESSIVE.sub("", fold(text))):
        out.extend(an._segment(w) if has_han(w) else [w])
    return out


def _plain_compounds(an: Analyzer, text: str) -> list[tuple[list[str], str]]:
    parts_of = (m.group(0).split("-") for m in _PLAIN_COMPOUND.finditer(fold(text)))
    return [(parts, an.stem("".join(parts))) for parts in parts_of
            if not any(has_han(p) for p in parts)]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_TRICKY, max_size=40) | st.text(max_size=40))
def test_words_and_compounds_agree_with_their_plain_definitions(text):
    an = Analyzer()
    assert an.words(text) == _plain_words(an, text)
    assert an.compounds(text) == _plain_compounds(an, text)


def test_plain_definitions_cover_the_cases_the_fast_ones_special_case():
    an = Analyzer()
    for text in ("The model's auto-encoder (self-attention), CNNs' depth", "multi-modal-ly x-1 a--b",
                 "Rocktäschel's co-training", "snake_case-word e-mail", "扩散-模型 en-dash"):
        assert an.words(text) == _plain_words(an, text)
        assert an.compounds(text) == _plain_compounds(an, text)
    assert an.compounds("auto-encoders, and self-attention") == [
        (["auto", "encoders"], "autoencod"), (["self", "attention"], "selfattent")]
