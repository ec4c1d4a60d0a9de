"""The status a page may show today: the stored status, unless it has become false.

A source records a paper's status as it was when the source was made. A crawl taken during
review says "Under Review"; read in December 2026 about ICLR 2024 that is false: the decisions
were published in January 2024, and the data simply does not hold this paper's. Likewise a
virtual-site export lists every accepted NeurIPS 2024/2025 paper as a "Poster" (the event type
on the site, which orals and spotlights also have), so "Poster" there does not say the paper
was neither an oral nor a spotlight.

Nothing here is stored: the store keeps what the sources said (`source_status` on a card), and
every card, index document and facet takes the status `shown_status` derives from it, on the
day it is read or indexed. The rules, per venue-year:

* Decisions are published on a known date: `DECISION_DATES` for the venues whose calendar is
  fixed (ICLR in late January, ICML in early May, NeurIPS in late September of the conference
  year), else the end of the conference year. After that date a paper still "Under Review" or
  "Submitted" is shown as `NO_DECISION`, "decision not in the data".
* `TIER_UNKNOWN` lists the venue-years whose only sources give every accepted paper the same
  presentation type; their "Poster" is shown as "Accept" (accepted; the oral/spotlight tier is
  not in the data). A stated "Oral" is kept.
"""

from __future__ import annotations

from datetime import date

NO_DECISION = "Decision not in the data"
# what sources write for a submission without a decision (catalog.venues maps them all to
# "Under Review"; the raw spellings are here for stores filled before that mapping)
UNDECIDED = frozenset({"under review", "submitted", "active", "pending"})

# (month, day) of the conference year on which a venue's decisions are out, at the latest
DECISION_DATES: dict[str, tuple[int, int]] = {
    "iclr": (1, 31),   # ICLR 2024: 16 January 2024; ICLR 2026: 26 January 2026
    "icml": (5, 15),   # ICML 2024: 1 May 2024
    "nips": (9, 30),   # NeurIPS 2024: 25 September 2024
}
DEFAULT_DECISION_DATE = (12, 31)  # any venue: by the end of the year it meets in

# Sources of these venue-years do not tell spotlights (and, for 2025, orals) from posters:
# NeurIPS 2024's Paper Copilot list of 2024-11-03 has Oral 72 and Poster 4,481, with no
# Spotlight; NeurIPS 2025's virtual-site export lists all 5,787 papers as "Poster".
TIER_UNKNOWN: frozenset[tuple[str, int]] = frozenset({("nips", 2024), ("nips", 2025)})


def decisions_published(venue: str, year: int, today: date | None = None) -> bool:
    """Whether `venue`'s decisions for `year` are out on `today` (default: the real today)."""
    month, day = DECISION_DATES.get((venue or "").lower(), DEFAULT_DECISION_DATE)
    return (today or date.today()) >= date(int(year), month, day)


def shown_status(venue: str, year: int, status: str, today: date | None = None) -> str:
    """The status that is true to show on `today` for a paper the store gives `status`."""
    if (status or "").strip().casefold() in UNDECIDED and decisions_published(venue, year, today):
        return NO_DECISION
    if status == "Poster" and ((venue or "").lower(), int(year)) in TIER_UNKNOWN:
        return "Accept"
    return status or ""
