"""A query's trend and the year and venue facets, counted in works."""

from __future__ import annotations

import numpy as np

from paperfind.search.trend import count_works_by, trend, work_facets

# rows: 0,1 = one work (ICLR 2024 rejected, ICML 2024 accepted); 2,3 = one work at ICLR in
# 2023 and again in 2024; 4 = ICML 2023; 5 = no year
WORKS = np.array([7, 7, 8, 8, 9, 10])
YEARS = np.array([2024, 2024, 2023, 2024, 2023, 0])
VENUES = np.array([0, 1, 0, 0, 1, 1])
LABELS = ["iclr", "icml"]


def test_a_work_counts_once_a_year_and_once_a_venue():
    counts = count_works_by(WORKS, YEARS, VENUES, LABELS, np.arange(6))
    assert counts.per_year == {2023: 2, 2024: 2}  # work 7's two 2024 versions count once
    assert counts.per_venue == {"iclr": 2, "icml": 3}  # work 8 at ICLR twice counts once
    assert counts.per_venue_year == {("iclr", 2023): 1, ("iclr", 2024): 2, ("icml", 2023): 1,
                                     ("icml", 2024): 1}
    facets = work_facets(counts)
    assert facets["year"] == [[2024, 2], [2023, 2]]  # newest first
    assert facets["venue"] == [["icml", 3], ["iclr", 2]]  # most works first
    assert count_works_by(WORKS, YEARS, VENUES, LABELS, np.zeros(0, int)).per_year == {}


def test_trend_divides_by_the_years_works_and_spans_the_range():
    corpus = count_works_by(WORKS, YEARS, VENUES, LABELS, np.arange(6))
    matching = count_works_by(WORKS, YEARS, VENUES, LABELS, np.array([2, 3]))
    out = trend(matching, corpus)
    assert out["unit"] == "works"
    assert out["years"] == [{"year": 2023, "works": 1, "of": 2, "share": 0.5},
                            {"year": 2024, "works": 1, "of": 2, "share": 0.5}]
    assert out["venues"] == [{"venue": "iclr", "years": [
        {"year": 2023, "works": 1, "of": 1, "share": 1.0},
        {"year": 2024, "works": 1, "of": 2, "share": 0.5}]}]
    # a year filter bounds the years; a year without matches is a zero, not a gap
    assert [p["year"] for p in trend(matching, corpus, year_from=2024)["years"]] == [2024]
    none = count_works_by(WORKS, YEARS, VENUES, LABELS, np.array([4]))
    assert [p["works"] for p in trend(none, corpus)["years"]] == [1, 0]
