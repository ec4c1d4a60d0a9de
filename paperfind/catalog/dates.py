"""The date a venue-year's papers are dated by: a feed's `<updated>`, and the order "newest first".

The data holds a year per paper, not a day. A paper of a venue-year is dated the first day of
the month its conference opened that year (00:00 UTC): the month is the venue's usual one
(`USUAL_MONTH`) unless that year's conference was held in another (`MONTH_IN`), as published
on each conference's own site. A venue not in the table is dated July 1st, the middle of its
year. The dates are stated, not observed: a feed reader sorts and marks entries by them, so
they must never move for a venue-year already served; correct a row only when it is wrong.
"""

from __future__ import annotations

from datetime import datetime, timezone

USUAL_MONTH: dict[str, int] = {
    "aaai": 2, "acl": 7, "aistats": 4, "colm": 10, "colt": 7, "corl": 11, "cvpr": 6, "eccv": 9,
    "emnlp": 11, "iccv": 10, "iclr": 5, "icml": 7, "ijcai": 8, "naacl": 6, "nips": 12, "uai": 7,
    "3dv": 3,
}
MONTH_IN: dict[tuple[str, int], int] = {
    ("acl", 2021): 8, ("acl", 2022): 5, ("acl", 2024): 8,
    ("aistats", 2025): 5,
    ("corl", 2022): 12, ("corl", 2025): 9,
    ("eccv", 2020): 8, ("eccv", 2022): 10,
    ("emnlp", 2022): 12, ("emnlp", 2023): 12,
    ("iccv", 2013): 12, ("iccv", 2015): 12,
    ("iclr", 2020): 4, ("iclr", 2022): 4, ("iclr", 2025): 4, ("iclr", 2026): 4,
    ("icml", 2013): 6, ("icml", 2014): 6, ("icml", 2016): 6, ("icml", 2017): 8, ("icml", 2019): 6,
    ("naacl", 2022): 7,
    ("uai", 2020): 8, ("uai", 2022): 8, ("uai", 2023): 8,
}
UNKNOWN_MONTH = 7


def venue_year_date(venue: str, year: int) -> datetime:
    """When the papers of `venue` in `year` are dated (UTC, timezone-aware)."""
    slug = (venue or "").strip().lower()
    month = MONTH_IN.get((slug, year), USUAL_MONTH.get(slug, UNKNOWN_MONTH))
    return datetime(max(1, year), month, 1, tzinfo=timezone.utc)
