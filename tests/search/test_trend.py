"""A query's trend and the year and venue facets, counted in works."""

from __future__ import annotations

import numpy as np

from paperfind.search.trend import WorkCounter, WorkCounts, trend, work_facets

# rows: 0,1 = one work (ICLR 2024 rejected, ICML 2024 accepted); 2,3 = one work at ICLR in
# 2023 and again in 2024; 4 = ICML 2023; 5 = no year
WORKS = np.array([7, 7, 8, 8, 9, 10])
YEARS = np.array([2024, 2024, 2023, 2024, 2023, 0])
VENUES = np.array([0, 1, 0, 0, 1, 1])
LABELS = ["iclr", "icml"]


COUNTER = WorkCounter(WORKS, YEARS, VENUES, LABELS)


def test_a_work_counts_once_a_year_and_once_a_venue():
    counts = COUNTER.count(np.arange(6))
    assert counts.per_year == {2023: 2, 2024: 2}  # work 7's two 2024 versions count once
    assert counts.per_venue == {"iclr": 2, "icml": 3}  # work 8 at ICLR twice counts once
    assert counts.per_venue_year == {("iclr", 2023): 1, ("iclr", 2024): 2, ("icml", 2023): 1,
                                     ("icml", 2024): 1}
    facets = work_facets(counts)
    assert facets["year"] == [[2024, 2], [2023, 2]]  # newest first
    assert facets["venue"] == [["icml", 3], ["iclr", 2]]  # most works first
    assert COUNTER.count(np.zeros(0, int)).per_year == {}


def test_trend_divides_by_the_years_works_and_spans_the_range():
    corpus = COUNTER.count(np.arange(6))
    matching = COUNTER.count(np.array([2, 3]))
    out = trend(matching, corpus)
    assert out["unit"] == "works"
    assert out["years"] == [{"year": 2023, "works": 1, "of": 2, "share": 0.5},
                            {"year": 2024, "works": 1, "of": 2, "share": 0.5}]
    assert out["venues"] == [{"venue": "iclr", "years": [
        {"year": 2023, "works": 1, "of": 1, "share": 1.0},
        {"year": 2024, "works": 1, "of": 2, "share": 0.5}]}]
    # a year filter bounds the years; a year without matches is a zero, not a gap
    assert [p["year"] for p in trend(matching, corpus, year_from=2024)["years"]] == [2024]
    none = COUNTER.count(np.array([4]))
    assert [p["works"] for p in trend(none, corpus)["years"]] == [1, 0]


def test_the_counter_agrees_with_counting_sets():
    """The bincount path for one-version works and the distinct-pairs path for the others,
    against plain sets on random rows."""
    rng = np.random.default_rng(3)
    works = rng.integers(0, 300, 1000)
    years = rng.choice([0, 2019, 2020, 2021, 2024], 1000)
    venues = rng.integers(0, 3, 1000)
    labels = ["a", "b", ""]  # code 2: a paper without a venue
    counter = WorkCounter(works, years, venues, labels)
    for rows in (np.arange(1000), rng.choice(1000, 400, replace=False), np.array([5])):
        got = counter.count(rows)
        triples = {(int(works[r]), labels[venues[r]], int(years[r])) for r in rows}
        assert got.per_year == _tally({(w, y) for w, _, y in triples if y}, lambda p: p[1])
        assert got.per_venue == _tally({(w, v) for w, v, _ in triples if v}, lambda p: p[1])
        assert got.per_venue_year == _tally({t for t in triples if t[1] and t[2]},
                                            lambda t: (t[1], t[2]))


def _tally(items, key) -> dict:
    out: dict = {}
    for item in items:
        out[key(item)] = out.get(key(item), 0) + 1
    return out


def test_the_counter_counts_distinct_works_and_dates_from_the_first_year():
    """`counted` gives the works the rows are (the results' total) beside the counts; a
    corpus whose years start late or have none still counts by the years themselves."""
    rng = np.random.default_rng(5)
    works = rng.integers(0, 200, 600)
    years = rng.choice([0, 1987, 2003, 2026], 600)
    venues = rng.integers(0, 4, 600)
    counter = WorkCounter(works, years, venues, ["a", "b", "c", "d"])
    for rows in (np.arange(600), rng.choice(600, 250, replace=False), np.zeros(0, int)):
        counts, total = counter.counted(rows)
        assert total == len({int(works[r]) for r in rows})
        assert counts == counter.count(rows)
        assert set(counts.per_year) <= {1987, 2003, 2026}
        assert {y for _, y in counts.per_venue_year} <= {1987, 2003, 2026}
    undated = WorkCounter(np.array([1, 2]), np.array([0, 0]), np.array([0, 0]), ["a"])
    assert undated.counted(np.arange(2)) == (WorkCounts({}, {}, {"a": 2}), 2)


def test_match_sets_of_one_version_works_only_or_shared_works_only():
    """The one-version works are counted by their cells and the shared ones found by the same
    bincount's last bin: a set with none of either counts as the sets say."""
    works = np.array([0, 1, 1, 2, 3, 3, 3, 4])
    years = np.array([2020, 2020, 2021, 2021, 2020, 2020, 0, 2022])
    venues = np.array([0, 0, 1, 1, 0, 1, 1, 0])
    counter = WorkCounter(works, years, venues, ["a", "b"])
    solo, shared = np.array([0, 3, 7]), np.array([1, 2, 4, 5, 6])
    assert counter.counted(solo) == (WorkCounts({2020: 1, 2021: 1, 2022: 1},
                                                {("a", 2020): 1, ("b", 2021): 1, ("a", 2022): 1},
                                                {"a": 2, "b": 1}), 3)
    assert counter.counted(shared) == (WorkCounts({2020: 2, 2021: 1},
                                                  {("a", 2020): 2, ("b", 2021): 1, ("b", 2020): 1},
                                                  {"a": 2, "b": 2}), 2)
    counts, total = counter.counted(np.arange(8))
    assert total == 5 and counts.per_venue == {"a": 4, "b": 3}


def test_tallies_of_disjoint_row_sets_finish_as_their_union():
    """Issue 33: `finish` of the tallies of disjoint row sets is `counted` of their union,
    works shared between the sets counted once (a version in each)."""
    rng = np.random.default_rng(8)
    works = rng.integers(0, 250, 900)
    years = rng.choice([0, 2018, 2021, 2025], 900)
    venues = rng.integers(0, 3, 900)
    counter = WorkCounter(works, years, venues, ["a", "b", ""])
    for size in (0, 1, 300, 900):
        rows = rng.choice(900, size, replace=False)
        for cut in (0, size // 2, size):
            parts = [counter.tally(rows[:cut]), counter.tally(rows[cut:])]
            assert counter.finish(*parts) == counter.counted(rows)
            assert counter.finish(*parts[::-1]) == counter.counted(rows)
    shared = np.flatnonzero(np.bincount(works)[works] > 1)
    assert counter.finish(counter.tally(shared[:5]), counter.tally(shared[5:])) == counter.counted(shared)
