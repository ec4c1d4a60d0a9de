"""The symmetric-delete spell corrector, on the vocabulary of a real slice."""

from __future__ import annotations

import pytest

from paperfind.index.spelling import deletes, within_one_edit


@pytest.mark.parametrize("a,b", [("trasnformer", "transformer"), ("banditt", "bandit"),
                                 ("regrt", "regret"), ("convez", "convex"), ("bandit", "bandit")])
def test_one_edit_includes_swaps_drops_doubles_and_substitutions(a, b):
    assert within_one_edit(a, b) and within_one_edit(b, a)


@pytest.mark.parametrize("a,b", [("bandit", "bnadti"), ("regret", "regrets!!"), ("convex", "xevnoc")])
def test_two_edits_are_refused(a, b):
    assert not within_one_edit(a, b)


def test_deletes_of_a_word():
    assert deletes("abc") == {"bc", "ac", "ab"}


@pytest.mark.parametrize("typo,word", [("bnadit", "bandit"), ("regert", "regret"),
                                       ("optimall", "optimal"), ("lerning", "learning")])
def test_corrections_come_from_the_corpus_vocabulary(colt_index, typo, word):
    candidates = colt_index.spelling.candidates(typo)
    assert candidates and candidates[0][0] == word
    assert candidates[0][1] == colt_index.spelling.frequency(word) > 0


def test_candidates_are_ordered_by_frequency_then_word(colt_index):
    cands = colt_index.spelling.candidates("bounds")
    assert cands == sorted(cands, key=lambda p: (-p[1], p[0]))
    assert all(w != "bounds" for w, _ in cands)


def test_short_and_non_alphabetic_words_are_left_alone(colt_index):
    assert colt_index.spelling.candidates("lrn") == []
    assert colt_index.spelling.candidates("l2-loss") == []
