"""The rating scale of each venue-year whose review scores the data holds.

OpenReview's rating field differs by venue and year (ICLR 2020 had 1, 3, 6, 8; ICLR 2022 to
2025 have 1, 3, 5, 6, 8, 10; NeurIPS 1 to 10), so a mean of 6 says something different in
each: the scale is stored beside the scores and shown with them. Each entry is the set of
values the venue-year's review form offers, as observed in its files under
`shared/data` (every rating of every file, counted when this table was written), except
ICLR 2025, whose files carry no scores (its scale is OpenReview's form of that year, as
ICLR 2024's). A venue-year not listed has its scale unknown (""), and nothing is guessed:
ICLR 2026's lists give means only.
"""

from __future__ import annotations

_ONE_TO_TEN = "1-10"
_ICLR_2022 = "1,3,5,6,8,10"

SCALES: dict[tuple[str, int], str] = {
    ("iclr", 2017): _ONE_TO_TEN, ("iclr", 2018): _ONE_TO_TEN, ("iclr", 2019): _ONE_TO_TEN,
    ("iclr", 2020): "1,3,6,8", ("iclr", 2021): _ONE_TO_TEN, ("iclr", 2022): _ICLR_2022,
    ("iclr", 2023): _ICLR_2022, ("iclr", 2024): _ICLR_2022, ("iclr", 2025): _ICLR_2022,
    ("nips", 2021): _ONE_TO_TEN, ("nips", 2022): _ONE_TO_TEN, ("nips", 2023): _ONE_TO_TEN,
    ("colm", 2024): _ONE_TO_TEN, ("colm", 2025): _ONE_TO_TEN,
    ("corl", 2021): "1,4,6,10", ("corl", 2022): "1,4,6,10", ("corl", 2023): "1,4,6,10",
    ("corl", 2024): "1-4",
}


def scale_of(venue: str, year: int) -> str:
    """The venue-year's rating scale ("1-10", "1,3,5,6,8,10"), or "" when it is not known."""
    return SCALES.get((venue, year), "")


def values_of(scale: str) -> tuple[float, ...]:
    """The ratings a scale allows: "1-4" is 1, 2, 3, 4; "1,3,6,8" those four; "" none known."""
    if not scale:
        return ()
    if "-" in scale:
        low, high = (int(part) for part in scale.split("-"))
        return tuple(float(v) for v in range(low, high + 1))
    return tuple(float(v) for v in scale.split(","))
