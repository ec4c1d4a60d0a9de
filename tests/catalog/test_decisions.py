"""The status a page shows today (paperfind.catalog.decisions): a review-time "Under Review"
for a venue-year whose decisions are out is "decision not in the data"; a "Poster" of a
venue-year whose sources do not tell tiers apart is "Accept"; anything else as the source said."""

from __future__ import annotations

from datetime import date

from paperfind.catalog.decisions import NO_DECISION, decisions_published, shown_status
from paperfind.cards import standing

DEC_2026 = date(2026, 12, 3)


def test_under_review_after_the_decisions_is_no_decision() -> None:
    assert shown_status("iclr", 2024, "Under Review", DEC_2026) == NO_DECISION
    assert shown_status("iclr", 2026, "Under Review", DEC_2026) == NO_DECISION
    assert shown_status("iclr", 2026, "Submitted", DEC_2026) == NO_DECISION


def test_under_review_before_the_decisions_stays() -> None:
    assert not decisions_published("iclr", 2026, date(2025, 11, 20))
    assert shown_status("iclr", 2026, "Under Review", date(2025, 11, 20)) == "Under Review"
    assert shown_status("iclr", 2027, "Under Review", DEC_2026) == "Under Review"
    assert decisions_published("iclr", 2026, date(2026, 1, 31))


def test_poster_of_a_venue_year_without_tiers_is_accept() -> None:
    assert shown_status("nips", 2025, "Poster", DEC_2026) == "Accept"
    assert shown_status("nips", 2024, "Poster", DEC_2026) == "Accept"
    assert shown_status("nips", 2024, "Oral", DEC_2026) == "Oral"
    assert shown_status("nips", 2023, "Poster", DEC_2026) == "Poster"


def test_stated_decisions_are_kept() -> None:
    for status in ("Oral", "Reject", "Withdraw", "Desk Reject", "Accept", ""):
        assert shown_status("iclr", 2024, status, DEC_2026) == status


def test_no_decision_is_not_an_acceptance() -> None:
    assert standing(NO_DECISION) == standing("Under Review") == 1
