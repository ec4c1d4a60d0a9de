"""The author-name index: every common written form of a name finds the person."""

from __future__ import annotations

import pytest

from paperfind.index import names as names_module
from paperfind.index.names import FULL, INITIAL, REVERSED, name_forms, pinyin_readings
from paperfind.text.names import fold_name


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


def _reference_lookup(names, query: str) -> list[tuple]:
    """The lookup written one entry and one person at a time (the code before the arrays)."""
    import numpy as np

    from paperfind.index.names import KIND_WEIGHT, PINYIN, has_han

    keys = ([(r, PINYIN, w) for r, w in pinyin_readings(query)] if has_han(query)
            else [(fold_name(query), None, 1.0)])
    best: dict[int, tuple[int, float]] = {}
    for key, forced, reading_weight in keys:
        if not key:
            continue
        lo, hi = names.forms.range(key)
        for i in range(lo, min(hi, lo + 2000)):
            row, own = int(names.form_rows[i]), int(names.form_kinds[i])
            if forced is not None and own == INITIAL:
                continue
            kind = own if forced is None else forced
            weight = KIND_WEIGHT[kind] * reading_weight
            if row not in best or best[row][1] < weight:
                best[row] = (kind, weight)
    out = [(row, int(names.ids[row]), kind, int(names.paper_counts[row]),
            weight * float(np.log1p(int(names.paper_counts[row])) + 1.0) * names.recency(row),
            int(names.name_groups[row]), int(names.last_years[row])) for row, (kind, weight) in best.items()]
    return sorted(out, key=lambda m: (-m[4], m[1]))


@pytest.mark.parametrize("array_from", [0, 2, names_module.ARRAY_LOOKUP_ENTRIES])
def test_lookup_weighs_every_form_as_one_entry_at_a_time(colt_index, monkeypatch, array_from):
    """The lookup gives the same people, kinds, scores (to the bit) and order as the
    entry-by-entry reference, for every form the index holds (full names, initials shared by
    many people, reversed forms) and for Han names read as pinyin, whether it weighs them with
    arrays (every look-up with `array_from` 0, those of more than two entries with 2) or not."""
    monkeypatch.setattr(names_module, "ARRAY_LOOKUP_ENTRIES", array_from)
    names = colt_index.names
    queries = sorted({names.forms[i] for i in range(len(names.forms))})
    queries += ["罗海鹏", "王伟", "李明", "欧阳明", "Nobody Atall", ""]
    shared = 0
    for query in queries:
        found = [tuple(m) for m in names.lookup(query)]
        assert found == _reference_lookup(names, query), query
        shared += len(found) > 1
    assert shared  # some forms are shared by several people, whose order is checked


def test_a_person_match_reads_by_name_and_compares_by_value():
    from paperfind.index.names import PersonMatch

    match = PersonMatch(3, 17, FULL, 5, 2.5)
    assert (match.row, match.author_id, match.name_group, match.last_year) == (3, 17, -1, 0)
    assert match == PersonMatch(3, 17, FULL, 5, 2.5) and match in [PersonMatch(3, 17, FULL, 5, 2.5)]
