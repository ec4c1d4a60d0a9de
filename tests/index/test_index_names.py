"""The author-name index: every common written form of a name finds the person."""

from __future__ import annotations

import pytest

from paperfind.index.names import FULL, INITIAL, REVERSED, name_forms, pinyin_readings


def test_forms_of_a_name():
    forms = dict(name_forms("Chen-Yu Wei"))
    assert forms["chen yu wei"] == FULL
    assert forms["wei chen yu"] == REVERSED
    assert "chenyu wei" in forms and "wei chenyu" in forms
    assert forms["c wei"] == INITIAL


def test_pinyin_readings_cover_both_orders_and_heteronyms():
    readings = dict(pinyin_readings("王晓明"))
    assert readings["xiaoming wang"] == 1.0 and readings["wang xiaoming"] == 1.0
    assert "xiaomeng wang" in readings  # 明 has no other reading, but 晓明 combos stay bounded
    assert pinyin_readings("王") == [] and pinyin_readings("abc") == []


@pytest.mark.parametrize("query", ["Haipeng Luo", "haipeng luo", "Luo Haipeng", "H. Luo", "罗海鹏"])
def test_every_form_finds_the_person(colt_index, query):
    matches = colt_index.names.lookup(query)
    assert matches, query
    card = colt_index.names.card(matches[0].row)
    assert card["name"] == "Haipeng Luo" and card["paper_count"] >= 3


def test_diacritics_are_optional(colt_index):
    plain = colt_index.names.lookup("Sebastien Bubeck")
    accented = colt_index.names.lookup("Sébastien Bubeck")
    assert plain and [m.author_id for m in plain] == [m.author_id for m in accented]


def test_initial_form_ranks_people_by_evidence(colt_index):
    matches = colt_index.names.lookup("Y. Li")
    assert len(matches) >= 2
    counts = [m.paper_count for m in matches if m.kind == INITIAL]
    assert counts == sorted(counts, reverse=True)


def test_unknown_names_match_nobody(colt_index):
    assert colt_index.names.lookup("Nobody Atall") == []
    assert colt_index.names.lookup("") == []
