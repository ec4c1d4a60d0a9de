"""The facet filters of a search: one typed value from the web form or the CLI to the backend.

Values are labels as a person writes them (`iclr`, `Oral`, `google`); the backend decides which
of its labels each one matches. Frozen and made of tuples, so a `SearchRequest` holding one can
key the result cache as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperfind.search.query import ParsedQuery


# a mean review score range as written: 6.. (at least 6), 5..7, ..4, or 6 (6..6)
RATING_PATTERN = r"^ *(\d{1,2}(\.\d{1,2})?)? *(\.\. *(\d{1,2}(\.\d{1,2})?)? *)?$"


@dataclass(frozen=True)
class Filters:
    venues: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    insts: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    # "new since": papers of this year on, whatever years the query's text names (a feed of
    # `year:2017..2025` with since=2024 lists 2024 and 2025)
    since: int | None = None
    # mean review score in [rating_from, rating_to] (`rating=6..`): a paper without scores
    # is in no range
    rating_from: float | None = None
    rating_to: float | None = None

    def empty(self) -> bool:
        return not (self.venues or self.insts or self.areas or self.statuses
                    or self.year_from is not None or self.year_to is not None
                    or self.since is not None or self.rated())

    def rated(self) -> bool:
        return self.rating_from is not None or self.rating_to is not None


def merge_filters(chosen: Filters, q: ParsedQuery) -> Filters:
    """The filters a request chose (web form, CLI flags) and those its query text names
    (`venue:iclr year:2019`), combined: values add up, a year in the text wins, and `since`
    raises the first year of either."""
    year_from = q.year_from if q.year_from is not None else chosen.year_from
    if chosen.since is not None:
        year_from = chosen.since if year_from is None else max(year_from, chosen.since)
    return Filters(venues=chosen.venues + tuple(q.venues), year_from=year_from,
                   year_to=q.year_to if q.year_to is not None else chosen.year_to,
                   insts=chosen.insts + tuple(q.insts), areas=chosen.areas + tuple(q.areas),
                   statuses=chosen.statuses + tuple(q.statuses),
                   rating_from=chosen.rating_from, rating_to=chosen.rating_to)


def rating_range(rating: str | None) -> tuple[float | None, float | None]:
    """(from, to) of a `rating` value ("6.." is (6, None)); a `ValueError` for one that does
    not match RATING_PATTERN."""
    if rating is not None and not re.fullmatch(RATING_PATTERN, rating):
        raise ValueError(f"rating {rating!r}: expected 6.., 5..7, ..4 or 6")
    rating = rating.replace(" ", "") if rating else rating
    if not rating or rating == "..":
        return None, None
    low, dots, high = rating.partition("..")
    low_value = float(low) if low else None
    high_value = float(high) if high else None
    return low_value, high_value if dots else low_value
