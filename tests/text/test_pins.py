"""Pins of the text functions that had several copies: written against the copies before they
were unified, so the one function (or the two named ones) must give exactly what each caller got."""

from __future__ import annotations

import pytest

from paperfind.catalog.institutions import resolve_affiliation
from paperfind.search.fusion import classify_query, looks_like_name
from paperfind.text.clean import normalize_title
from paperfind.text.fold import fold, han_share, has_han, slugify
from paperfind.text.names import fold_name, name_key
from paperfind.text.stopwords import CLASSIFIER_STOPWORDS, STOPWORDS


@pytest.mark.parametrize("text, folded", [
    ("Rocktäschel", "rocktaschel"),
    ("ÉCOLE Normale", "ecole normale"),
    ("Straße", "strasse"),  # casefold, not lower
    ("ﬁne-tuning", "fine-tuning"),  # NFKD splits the ligature
    ("深度学习 Über", "深度学习 uber"),  # Han kept
    ("Łódź", "łodz"),  # NFKD has no decomposition for ł: kept (fold is not a transliteration)
    ("O'Brien, J.", "o'brien, j."),  # punctuation untouched
])
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


# The two name folds disagree on purpose: the index's keeps Han characters (the name index matches
# them through pinyin) and splits on every non-word character; the store's matching key cleans the
# name first ("Last, First" turned, entities decoded), transliterates Han and deletes the
# punctuation it does not read as a word break.
@pytest.mark.parametrize("name, index_form, store_key", [
    ("Tim Rocktäschel", "tim rocktaschel", "tim rocktaschel"),
    ("Jean-François Lafleche", "jean francois lafleche", "jean francois lafleche"),
    ("E.J. Chichilnisky", "e j chichilnisky", "e j chichilnisky"),
    ("Błażej Osiński", "blazej osinski", "blazej osinski"),
    ("张伟", "张伟", "zhangwei"),
    ("Wei 张", "wei 张", "wei zhang"),
    ("Smith, John", "smith john", "john smith"),
    ("O'Brien", "o brien", "o brien"),
    ("Müller(1)", "muller 1", "muller1"),
    ("d&#x27;Autume", "d x27 autume", "d autume"),
    ("A_B  c", "a b c", "a b c"),
    ("", "", ""),
])
def test_the_two_name_folds(name: str, index_form: str, store_key: str) -> None:
    assert fold_name(name) == index_form
    assert name_key(name) == store_key


@pytest.mark.parametrize("name, slug", [
    ("Tim Rocktäschel", "tim-rocktaschel"),
    ("张伟", "zhangwei"),
    ("  -Jean-François-  ", "jean-francois"),
    ("!!!", "author"),
    ("", "author"),
])
def test_person_slug(name: str, slug: str) -> None:
    assert slugify(name, empty="author") == slug


@pytest.mark.parametrize("raw, slug", [
    ("Sony Group Corporation", "sony-group"),
    ("Dept. of Physics, Foo Bar Univ.", "foo-bar-university"),
    ("Institute for the Study of Extraordinarily Long Institution Names and Their Many Words",
     "institute-for-the-study-of-extraordinarily-long-institution"),
    ("University of Novi Sad Faculty of Sciences", "university-of-novi-sad"),
    ("JPMorgan Chase & Co.", "jpmorgan-chase"),
    ("Stanford Univ.", "stanford"),
])
def test_institution_slug(raw: str, slug: str) -> None:
    assert resolve_affiliation(raw).slug == slug


@pytest.mark.parametrize("title, key", [
    ("Schrödinger's Bridge.", "schrodinger s bridge"),
    ("  Attention   Is All You Need ", "attention is all you need"),
    ("深度学习：综述", "深度学习 综述"),
    ("$\\ell_1$-Regularised Łódź", "l1 regularised łodz"),
])
def test_title_key(title: str, key: str) -> None:
    assert normalize_title(title) == key


def test_han_is_the_cjk_unified_blocks() -> None:
    assert [has_han(t) for t in ("扩散", "a㐀b", "\uf900", "plain", "カタカナ", "한국어", "")] == \
        [True, True, True, False, False, False, False]
    assert han_share("模型 ab") == 0.5 and han_share("  ") == 0.0


# Two word lists on purpose: the analyser drops many function words from the index; the query
# classifier's list is the short one its fusion weights were measured with.
def test_the_classifier_reads_fewer_stop_words_than_the_analyser() -> None:
    assert CLASSIFIER_STOPWORDS < STOPWORDS and {"will", "based", "new"} <= STOPWORDS - CLASSIFIER_STOPWORDS
    assert looks_like_name("Will Smith")  # "will" is not a stop word to the classifier
    assert classify_query("based new methods").name == "keywords"
    assert not looks_like_name("The Smith")
