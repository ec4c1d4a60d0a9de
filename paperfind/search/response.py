"""The search API's request and response shapes, and how a response is filled in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from paperfind.cards import best_first, paper_card
from paperfind.search.filters import Filters
from paperfind.search.highlight import Marker

# date: newest year first (the feeds' order); newest is its older name, kept for links made with it
SORTS = ("relevance", "date", "newest", "citations", "influence", "rating")  # influence: the papers' standing
MODES = ("lexical", "semantic", "hybrid")
# what a response may carry beside its results, total and people; each costs a pass over the
# matches, so a caller that draws neither (a feed, an export) asks for neither
PARTS = ("facets", "trend")


@dataclass
class SearchRequest:
    q: str = ""
    limit: int = 10
    offset: int = 0
    sort: str = "relevance"  # one of SORTS
    filters: Filters = field(default_factory=Filters)  # besides those the query text names
    mode: str = "hybrid"  # lexical | semantic | hybrid; without vectors all three are lexical
    explain: bool = False  # results the learned model ordered name the features that decided
    include: frozenset[str] = frozenset(PARTS)  # of PARTS; one left out is {} / None


@dataclass
class SearchResponse:
    query: str
    total: int
    took_ms: float
    results: list[dict]
    authors: list[dict]
    facets: dict[str, list[list]]
    suggestion: str | None
    mode: str = "lexical"  # the mode actually used
    trend: dict | None = None  # matching works per year and venue-year (paperfind.search.trend)
    # "approximate" when the engine counted the total, facets and trend over its top candidates
    # only (a Milvus backend on a query matching more than its candidate pool), else "exact"
    counts: str = "exact"
    # the institutions the query's text names, now filters, and the words left to search
    # (paperfind.search.understand.Understanding.to_json); None when it names none
    understood: dict | None = None
    # how many of the `total` works have a citation count (paperfind.search.pool.Pool.sort says
    # how the others are ordered); None when the engine's candidates may not hold every match
    with_citations: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "total": self.total, "took_ms": round(self.took_ms, 2),
                "results": self.results, "authors": self.authors, "facets": self.facets,
                "suggestion": self.suggestion, "mode": self.mode, "trend": self.trend,
                "counts": self.counts, "understood": self.understood,
                "with_citations": self.with_citations}


def hit(doc: dict, score: float, marker: Marker, versions: list[dict] | None = None) -> dict:
    """One result of the JSON contract: the card (paperfind.cards) of a stored doc, with its
    work's other versions best first, its score and its highlights."""
    return scored_hit(unscored_hit(doc, marker, versions), score)


def unscored_hit(doc: dict, marker: Marker, versions: list[dict] | None = None) -> tuple[dict, dict]:
    """(the card, the highlights) of `hit`: all of a result but its score, which a query's
    ranking settles later than its text (paperfind.search.drafts)."""
    return stored_card(doc, versions), {
        "title": marker.mark(doc["title"]),
        "abstract": marker.snippet(doc["abstract"]) if doc["abstract"] else ""}


def scored_hit(unscored: tuple[dict, dict], score: float) -> dict:
    """The result of an `unscored_hit` with its score (the keys in `hit`'s order)."""
    card, highlights = unscored
    return {**card, "score": round(float(score), 6), "highlights": highlights}


def stored_card(doc: dict, versions: list[dict] | None = None) -> dict:
    """The card of a doc as the index stored it (authors named by their public slug)."""
    slugs = doc.get("author_slugs") or [""] * len(doc["authors"])
    return paper_card(key=doc["key"], title=doc["title"],
                      authors=[(slug, name) for slug, (_, name) in zip(slugs, doc["authors"])],
                      institutions=doc["institutions"], venue=doc["venue"],
                      venue_name=doc["venue_name"], year=doc["year"], status=doc["status"],
                      source_status=doc.get("source_status"),
                      track=doc.get("track", ""), area=doc["area"], citations=doc.get("citations"),
                      links=doc.get("links") or {}, versions=best_first(versions or []),
                      abstract=doc.get("abstract") or "", reviews=doc.get("reviews"))


def author_card(card: dict) -> dict:
    """A person the query names; `id` is the public slug of /authors/{id}, as on paper cards."""
    return {"id": card["slug"], "name": card["name"], "institutions": card["institutions"],
            "paper_count": card["paper_count"],
            "work_count": card.get("work_count") or card["paper_count"], "years": card["years"]}


def suggestion_text(raw: str, corrections: dict[str, str]) -> str | None:
    """The query with each unknown word replaced by its correction, or None."""
    if not corrections:
        return None
    out = raw
    for wrong, right in corrections.items():
        out = re.sub(rf"(?i)(?<!\w){re.escape(wrong)}(?!\w)", right, out)
    out = " ".join(out.split())
    return out if out and out != " ".join(raw.split()) else None
