"""The paper card: the one shape in which every list of papers names a paper.

Search results, similar papers and the papers of an author, institution, venue or area are all
cards built here, whether the fields come from the database (`paperfind.store.read`) or from
the search index's stored records (`paperfind.search.response`). A card names people by their
public id (the slug of /authors/{id}) and carries the work's other versions, best first.

Which version of a work to show: one accepted at a venue before one under review before one
rejected or withdrawn; among acceptances the most recent first (a rejected ICLR submission
later accepted at ICML is shown as the ICML paper, the ICLR record folded under it).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

CARD_FIELDS = ("key", "title", "abstract", "authors", "institutions", "venue", "venue_name", "year",
               "status", "source_status", "track", "area", "citations", "rating", "review_count",
               "rating_scale", "links", "versions", "also_known_as")
VERSION_FIELDS = ("key", "venue", "venue_name", "year", "status", "track")

# "decision not in the data" (paperfind.catalog.decisions.NO_DECISION) is no acceptance either
UNDER_REVIEW = frozenset({"under review", "submitted", "pending", "decision not in the data"})


def under_review(status: str) -> bool:
    """Whether a paper's authors are hidden because it is still being reviewed (ICLR 2026): a
    card without authors says "Anonymous (under review)" then, else that the data has none."""
    return " ".join((status or "").casefold().split()) in UNDER_REVIEW


TURNED_DOWN = frozenset({"reject", "rejected", "desk reject", "desk rejected", "withdraw",
                         "withdrawn"})


def paper_card(*, key: str, title: str, authors: Iterable[tuple[str, str]],
               institutions: Iterable[str], venue: str, venue_name: str, year: int,
               status: str, track: str, area: str, citations: int | None,
               links: Mapping[str, str], versions: Iterable[Mapping[str, Any]] = (),
               abstract: str = "", source_status: str | None = None,
               reviews: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A card from its fields; `authors` are (id, name) pairs in order, id "" for an
    unresolved name; `versions` the work's other versions (cards or version entries).
    `reviews` ({"mean", "count", "scale"}, paperfind.store.reviews.card_reviews) gives the
    card's `rating` (the mean), `review_count` and `rating_scale`; a paper without scores has
    them null, never 0, and a source that gives a mean alone leaves `review_count` null.
    `status` is the one true today (paperfind.catalog.decisions), `source_status` what the
    sources said (the same unless the rules there changed it).
    `also_known_as` (the names the index mined for the work) is the searcher's to fill
    (Searcher.name_cards): every list names them, the store does not know them."""
    return {"key": key, "title": title, "abstract": abstract or "",
            "authors": [{"id": person or "", "name": name} for person, name in authors],
            "institutions": list(institutions), "venue": venue, "venue_name": venue_name or venue,
            "year": int(year), "status": status or "",
            "source_status": (status if source_status is None else source_status) or "",
            "track": track or "", "area": area or "",
            "citations": citations, **rating_fields(reviews), "links": dict(links or {}),
            "versions": [version_entry(v) for v in versions], "also_known_as": []}


def rating_fields(reviews: Mapping[str, Any] | None) -> dict[str, Any]:
    """A card's `rating`, `review_count` and `rating_scale`: null where there are no scores."""
    if not reviews:
        return {"rating": None, "review_count": None, "rating_scale": None}
    return {"rating": round(float(reviews["mean"]), 2), "review_count": reviews.get("count") or None,
            "rating_scale": reviews.get("scale") or None}


def version_entry(card: Mapping[str, Any]) -> dict[str, Any]:
    """Another version of a work, as the card it is folded under names it."""
    return {"key": card["key"], "venue": card["venue"],
            "venue_name": card.get("venue_name") or card["venue"], "year": int(card["year"]),
            "status": card.get("status") or "", "track": card.get("track") or ""}


def standing(status: str) -> int:
    """0 accepted (any decision that is not one of the two below, or none given: a published
    list), 1 under review, 2 rejected or withdrawn."""
    s = " ".join((status or "").casefold().split())
    if s in TURNED_DOWN:
        return 2
    if s in UNDER_REVIEW:
        return 1
    return 0


def version_order(card: Mapping[str, Any]) -> tuple:
    """Sort key of a work's versions, best first: standing, then newest, then a main-track
    record before a workshop one, then the key (so the order never depends on input order)."""
    workshop = "workshop" in f"{card.get('status', '')} {card.get('track', '')}".casefold()
    return standing(card.get("status", "")), -int(card["year"]), workshop, card["key"]


def best_first(cards: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The versions of one work, the one to show first."""
    return sorted(cards, key=version_order)


def fold_works(cards: list[dict[str, Any]], work_of: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One card per work, by its best version among `cards`, at the place of the work's first
    card; `work_of` maps a key to its work (a key missing from it is a work of its own)."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for card in cards:
        groups.setdefault(work_of.get(card["key"], ("key", card["key"])), []).append(card)
    return [best_first(group)[0] for group in groups.values()]
