"""`StringTable`'s binary search over UTF-8 bytes finds the positions `bisect` finds over the
decoded strings: on every table of a real index, and on a table of every kind of code point
(the claim it rests on: UTF-8's byte order is the strings' code-point order)."""

from __future__ import annotations

import bisect
from pathlib import Path

import pytest

from paperfind.index.strings import StringTable

TABLES = ("vocab", "keys", "names.forms", "spell.words", "spell.deletes")


def _probes(strings: list[str]) -> list[str]:
    """Every stored string, and strings just around and between them."""
    out = ["", "\x00", "!", "~", "é", "中", "\U0010ffff", "\ud800", "a\udfff", "\uffff"]
    for s in strings:
        out += [s, s + "\x00", s + "x", s + " ", s + "!", s[:-1], s[:1], s + "中"]
    return out


def _same_positions(table: StringTable, strings: list[str], probes: list[str]) -> None:
    assert list(table) == strings
    for p in probes:
        left, right = bisect.bisect_left(strings, p), bisect.bisect_right(strings, p)
        assert (table.bisect_left(p), table.bisect_right(p)) == (left, right), p
        assert table.range(p) == (left, right), p
        assert table.find(p) == (left if left < right else -1), p


@pytest.mark.parametrize("name", TABLES)
def test_byte_search_is_strs_on_a_real_indexs_tables(colt_index, name: str) -> None:
    table = StringTable.load(colt_index.path, name)
    strings = list(table)
    assert len(strings) > 100 and strings == sorted(strings)
    step = max(1, len(strings) // 3000)  # ~3,000 stored strings a table, and their neighbours
    _same_positions(table, strings, _probes(strings[::step]))


def test_byte_order_is_str_order_for_every_kind_of_code_point(tmp_path: Path) -> None:
    # ASCII, Latin, CJK, the last code point before the surrogates and the first after them,
    # the last of the basic plane, astral ones; with repeats (tables may repeat a string)
    points = [0x01, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
              0x10000, 0x1F600, 0x10FFFF]
    strings = sorted([chr(p) for p in points] + [chr(a) + chr(b) for a in points[::2] for b in points[1::3]]
                     + ["中文", "中文", "abc", "abc"])
    StringTable.save(strings, tmp_path, "mixed")
    table = StringTable.load(tmp_path, "mixed")
    _same_positions(table, strings, _probes(strings) + [chr(p) for p in range(0xD7F0, 0xE010)])


def test_an_empty_table_finds_nothing(tmp_path: Path) -> None:
    StringTable.save([], tmp_path, "empty")
    table = StringTable.load(tmp_path, "empty")
    assert table.bisect_left("a") == table.bisect_right("a") == 0
    assert table.find("a") == -1 and table.range("") == (0, 0)
