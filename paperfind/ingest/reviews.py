"""Review scores as the sources write them, read into `Reviews`: one parser for every reader.

The Paper Copilot files (paperlists, their history and OpenReview venue files) give
`rating` and `confidence` as `;`-joined strings ("4;4;8"), sometimes lists, with
`rating_avg` a number or `[mean, std]`; the evanzd and OpenReviewData crawls give columns
`0`..`5`; ICLR 2026's topic lists a mean alone. A rating of 0 or one off the venue-year's scale
is a blank slot of the crawler (ALT 2025 pads with 0), not a score, and is left out; a
confidence of 0 likewise. Scores that are not numbers make no `Reviews` at all, never a zero.
"""

from __future__ import annotations

import math

from paperfind.catalog.rating_scales import scale_of, values_of
from paperfind.model import Reviews

_MAX_REVIEWS = 64  # no venue has more reviews a paper; a longer list is a broken field


def read_reviews(venue: str, year: int, rating: object, confidence: object = None,
                 mean: object = None, decision: str = "", initial: bool = False) -> Reviews | None:
    """The scores of one record, or None when it has none (or none that are scores)."""
    scale = scale_of(venue, year)
    allowed = values_of(scale)
    ratings = _numbers(rating)
    confidences = _numbers(confidence)
    if len(confidences) != len(ratings):
        confidences = []  # not aligned with the reviews: not shown against them
    kept = [(r, c) for r, c in zip(ratings, confidences or [None] * len(ratings))
            if r > 0 and (not allowed or r in allowed)]
    ratings = [r for r, _ in kept]
    confidences = [c for _, c in kept if c is not None]
    if confidences and (len(confidences) != len(ratings) or min(confidences) <= 0):
        confidences = []
    if ratings:
        average = sum(ratings) / len(ratings)
    else:
        given = _numbers(mean)[:1]  # `rating_avg` may be [mean, std]
        if not given or given[0] <= 0:
            return None
        average = given[0]
    return Reviews(mean=round(average, 4), ratings=ratings, confidences=confidences,
                   decision=decision.strip(), scale=scale, initial=initial)


def read_columns(venue: str, year: int, cells: list[str], decision: str) -> Reviews | None:
    """The scores of a crawl's row whose columns `0`..`5` hold one review each (blank: none)."""
    return read_reviews(venue, year, [c for c in cells if c.strip()], decision=decision)


def _numbers(value: object) -> list[float]:
    """The finite numbers of a field: "4;4;8", [4, 4, 8], 6.5 or "6.5"; [] for anything else."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        parts: list[object] = [value]
    elif isinstance(value, str):
        parts = [p for p in value.replace(",", ";").split(";") if p.strip()]
    elif isinstance(value, list):
        parts = value
    else:
        return []
    if len(parts) > _MAX_REVIEWS:
        return []
    numbers = []
    for part in parts:
        try:
            number = float(part.strip() if isinstance(part, str) else part)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return []
        if not math.isfinite(number):
            return []
        numbers.append(number)
    return numbers
