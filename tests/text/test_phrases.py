"""A Chinese word's English sense chosen by its neighbours, from the field's phrase counts."""

from __future__ import annotations

import math

import pytest

from paperfind.text.phrases import (PHRASE_MIN_ASSOCIATION, PHRASE_MIN_COUNT, PhraseCounts, chains, choose_senses,
                                    pairs_of, phrase_counts)
from paperfind.text.senses import compound_senses
from paperfind.text.translate import ZhEnTranslator


def counts_of(pairs: dict[str, int], words: dict[str, int] | None = None) -> PhraseCounts:
    return PhraseCounts(pairs, lambda word: (words or {}).get(word, 0))


def test_pairs_are_stemmed_adjacent_words_broken_by_stop_words_and_punctuation():
    text = "Convex sets of the plane; convex set, Mean-field games"
    assert list(pairs_of(text, {})) == ["convex set", "convex set", "mean field", "field game"]


def test_the_pair_the_field_writes_wins_over_the_dictionarys_order():
    counts = counts_of({"mean field": 800, "averag stage": 0})
    chosen = choose_senses([("average", "mean"), ("stage", "scene", "field")], counts)
    assert [c.sense for c in chosen] == ["mean", "field"] and all(c.phrase for c in chosen)


def test_without_a_phrase_the_dictionarys_first_sense_stands_unbacked():
    chosen = choose_senses([("average", "mean"), ("stage", "field")], counts_of({"mean field": 9}))
    assert [(c.sense, c.phrase) for c in chosen] == [("average", False), ("stage", False)]


def test_two_senses_written_as_one_word_are_that_word():
    chosen = choose_senses([("tree",), ("wide", "width")], counts_of({}, {"treewidth": 300}))
    assert [(c.sense, c.joined) for c in chosen] == [("treewidth", True), ("", False)]


def test_a_function_word_breaks_the_run_of_neighbours():
    assert list(chains([("a",), (), ("b",), ("c",)])) == [[0], [2, 3]]
    with pytest.raises(ValueError):
        choose_senses([("a",), ()], counts_of({}))


def test_the_shipped_counts_know_the_fields_phrases():
    counts = phrase_counts()
    assert counts.pair("gradient", "descent") > 1000
    assert counts.pair("law", "gradient") < counts.pair("gradient", "method")


@pytest.fixture(scope="module")
def translator() -> ZhEnTranslator:
    return ZhEnTranslator()


@pytest.mark.parametrize("zh,english,before", [
    # 法 is "law" first; beside 下降 "descent" the field writes "descent method"
    ("梯度下降法", "gradient descent method", "gradient descent law"),
    # 回路 "ring road, closed circuit, loop": the field's phrase is "feedback loop"
    ("反馈回路", "feedback loop", "feedback return circuit"),
])
def test_words_are_read_in_the_sense_their_neighbours_make_a_phrase_of(translator, zh, english, before):
    assert translator.translate(zh).english == english
    assert ZhEnTranslator(phrases=False).translate(zh).english == before


def test_the_glossarys_renderings_are_kept_beside_a_chosen_neighbour(translator):
    """强化学习 keeps both of the glossary's renderings ("reinforcement learning", "RL")."""
    words = translator.translate("强化学习回路").english
    assert words.startswith("reinforcement learning RL")


def test_a_words_senses_in_the_dictionarys_compounds_are_derived():
    cedict = {"磁": ["magnetic"], "电": ["electric"], "场": ["stage", "scene"], "磁场": ["magnetic field"],
              "电场": ["electric field"], "电磁": ["electromagnetic"]}
    derived = compound_senses(cedict)
    assert derived["场"] == ["field"]
    assert "磁" not in derived and "电磁" not in derived  # a sense of their own entries, or none


@pytest.mark.parametrize("zh,english", [
    ("向量场", "vector field"),  # 场 "stage, scene" by its entry; "field" in 磁场, 电场
    ("独立集", "independent set"),  # 集 "gather, collect"; "set" in 数据集
    ("谱半径", "spectral radius"),  # 谱 "chart, ..., spectrum"
])
def test_a_sense_from_the_compounds_is_read_where_a_neighbour_makes_a_phrase_of_it(translator, zh, english):
    assert translator.translate(zh).english == english


def test_a_function_word_joins_no_neighbour_into_a_word(translator):
    """中 的 ("in", a particle) is not CC-CEDICT's 中的 "hit the target"."""
    result = translator.translate("CNN中的注意力")
    assert result.english == "CNN attention"
    assert ("中", ()) in result.terms and ("的", ()) in result.terms


def test_two_common_words_side_by_side_are_no_phrase():
    """"model average" is written often, but not much more often than two words as common as
    "model" and "average" meet by chance; "mean field" is."""
    words = {"model": 3000, "average": 1000, "mean": 1000, "field": 1000}
    counts = PhraseCounts({"model averag": 40, "mean field": 100}, lambda w: words.get(w, 0), 100_000)
    assert counts.association("model", "average") < 5 < counts.association("mean", "field")
    chosen = choose_senses([("model",), ("average", "mean"), ("stage", "field")], counts)
    assert [c.sense for c in chosen] == ["model", "mean", "field"]


def test_a_senses_edge_words_are_found_once_and_read_the_same_after():
    """A sense's content words and edge stems are kept (each sense is weighed against every
    neighbour's): a later query's pair and association read the same words from the memo."""
    counts = PhraseCounts({"mean field": 100, "field game": 50}, {"mean": 10, "field": 20}.get, 100_000)
    first = (counts.pair("the mean", "field of games"), counts.association("the mean", "field of games"),
             counts.pair("field", "games"))
    assert counts._edge_words["the mean"] == ("mean",)
    assert counts._edge_words["field of games"] == ("field", "games")
    assert counts._edge_stem_pairs["field of games"] == ("field", "game")
    again = (counts.pair("the mean", "field of games"), counts.association("the mean", "field of games"),
             counts.pair("field", "games"))
    assert first == again == (100, 100 / max(10 * 20 / 100_000, 1.0), 50)
    assert counts.pair("of the", "field") == 0 and counts._edge_words["of the"] == ()


def test_a_table_of_links_weighs_each_pair_as_the_closed_word_and_phrase_rules_do():
    """`PhraseCounts.links` (every left sense before every right one, in one pass, issue 33)
    gives each pair what the rules give it one pair at a time: the larger of the closed word's
    and the phrase's counts, the phrase only when written well above chance."""
    counts = phrase_counts()
    lefts = ("mean", "average", "tree", "feedback", "the model", "self", "multi-armed", "neural")
    rights = ("field", "width", "loop", "average", "supervised", "bandit", "network", "of the", "scene")

    def one_pair(left: str, right: str) -> tuple[float, bool]:
        joined, paired = counts.closed(left, right), counts.pair(left, right)
        if paired and counts.association(left, right) < PHRASE_MIN_ASSOCIATION:
            paired = 0
        best = max(joined, paired)
        return (math.log1p(best), joined > paired) if best >= PHRASE_MIN_COUNT else (0.0, False)

    table = counts.links(lefts, rights)
    assert table == [[one_pair(left, right) for right in rights] for left in lefts]
    assert counts.link("tree", "width")[1] and counts.link("mean", "field")[0] > 0  # closed; a phrase
    assert counts.link("model", "average") == (0.0, False)  # written, but hardly above chance
    counts.read_ahead(["gradient descent"])
    assert counts._edge_stem_pairs["gradient descent"] == ("gradient", "descent")
