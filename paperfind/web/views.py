"""The data behind each page, shared by the HTML page and its JSON twin.

Every route calls one function here and either renders the dict or returns it as JSON, so
the portal and the API cannot disagree. Unknown ids become a 404 `WebError`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from paperfind import __version__
from paperfind.catalog.institutions import resolve_affiliation
from paperfind.core import Paperfind
from paperfind.store.read import Listing
from paperfind.web.charts import heat_level
from paperfind.web.errors import not_found
from paperfind.web.export import bibtex_entry


@dataclass(frozen=True)
class Paging:
    """A validated page request (1-based page, bounded size)."""

    page: int = 1
    size: int = 20

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size


def page_info(paging: Paging, total: int) -> dict[str, int]:
    pages = max(1, -(-total // paging.size))
    return {"page": paging.page, "size": paging.size, "total": total, "pages": pages}


def paper_view(pf: Paperfind, key: str) -> dict[str, Any]:
    paper = pf.store().paper(key)
    if paper is None:
        raise not_found(f"no paper with key {key!r}")
    paper["bibtex_text"] = bibtex_entry(paper)  # the source's own, or one built from the fields
    paper.update(pf.searcher().paper_names(key))
    return paper


def similar_view(pf: Paperfind, key: str, limit: int = 10, *, known: bool = False,
                 aspect: str | None = None) -> dict[str, Any]:
    """Papers like `key` (in one `aspect`, if given; the caller validated it); `known` skips the
    existence check when the caller just read the paper."""
    from paperfind.search.similar import UnknownPaper

    if not known and pf.store().paper_cards([key]) == []:
        raise not_found(f"no paper with key {key!r}")
    try:
        results = pf.searcher().similar(key, limit=limit, aspect=aspect)
    except UnknownPaper:  # in the database, not yet in the index being rebuilt
        results = []
    return {"key": key, "aspect": aspect, "results": results}


def renamed_author(pf: Paperfind, author_id: str) -> str | None:
    """The slug an old numeric person id stands for, or None: a person's one id is the slug,
    and a link that once carried the number is sent on to it."""
    if not (author_id.isascii() and author_id.isdigit()) or len(author_id) > 18:
        return None
    return pf.store().author_slug(int(author_id))


def renamed_institution(pf: Paperfind, slug: str) -> str | None:
    """The slug of the institution that `slug`, read as words, names, or None: an address typed
    with the name in full ("/institutions/stanford-university", "peking-university",
    "universite-de-montreal") is sent on to the institution's page ("stanford", "pku", "udem")
    by the resolver that gave every paper its slugs, rather than a 404. Only a slug that is not
    an institution of the store is read, and only a stored institution is sent to."""
    store = pf.store()
    if len(slug) > 200 or store.institution_name(slug) is not None:
        return None
    resolved = resolve_affiliation(slug.replace("-", " ").replace("_", " ")).slug
    if not resolved or resolved == slug or store.institution_name(resolved) is None:
        return None
    return resolved


def _listing(pf: Paperfind, paging: Paging, sort: str, accepted: bool,
             since: int | None = None) -> Listing:
    standing = {"citations": pf.searcher().standing_of, "rating": pf.store().ratings_of}.get(sort)
    return Listing(limit=paging.size, offset=paging.offset, sort=sort, accepted=accepted,
                   since=since, standing=standing)


def _listed(pf: Paperfind, data: dict[str, Any], paging: Paging, sort: str,
            accepted: bool) -> dict[str, Any]:
    """A list page's data with its pager and the order and filter it was made with."""
    data["paging"] = page_info(paging, data["total"])
    data["sort"], data["accepted"] = sort, accepted
    pf.searcher().name_cards(data["papers"])
    return data


def author_view(pf: Paperfind, author_id: str, paging: Paging = Paging(1, 50),
                sort: str = "date", accepted: bool = False,
                since: int | None = None) -> dict[str, Any]:
    author = pf.store().author(author_id, _listing(pf, paging, sort, accepted, since))
    if author is None:
        raise not_found(f"no author with id {author_id!r}")
    author["per_year"] = [list(p) for p in author["per_year"]]
    return _listed(pf, author, paging, sort, accepted)


def closest_institutions(pf: Paperfind, slug: str, n: int = 3) -> list[tuple[str, str]]:
    """(slug, name) of the institutions whose slugs are spelt most like `slug`: an address typed
    wrong ("stanfrod") is offered the right one rather than a dead end (10-35 ms over the
    bundled corpus's 7,183 slugs, on a 404 only). Offered, not followed: "university-of-tokyo"
    is as close to "university-of-kyoto" as a typo is. Slugs merged at stop 38
    ("university-of-montrel") are not found this way: their institution's slug is spelt
    otherwise."""
    names = pf.store().institution_names()
    return [(s, names[s]) for s in difflib.get_close_matches(slug[:200], sorted(names), n=n, cutoff=0.8)]


def institution_view(pf: Paperfind, slug: str, paging: Paging, sort: str = "date",
                     accepted: bool = False, since: int | None = None) -> dict[str, Any]:
    inst = pf.store().institution(slug, _listing(pf, paging, sort, accepted, since))
    if inst is None:
        close = closest_institutions(pf, slug)
        said = f"; did you mean {', '.join(repr(s) for s, _ in close)}?" if close else ""
        raise not_found(f"no institution {slug!r}{said}",
                        tuple((f"/institutions/{s}", name) for s, name in close))
    inst["per_year"] = [list(p) for p in inst["per_year"]]
    return _listed(pf, inst, paging, sort, accepted)


def venue_view(pf: Paperfind, slug: str, year: int | None, paging: Paging, sort: str = "date",
               accepted: bool = False, since: int | None = None) -> dict[str, Any]:
    venue = pf.store().venue(slug, year=year, listing=_listing(pf, paging, sort, accepted, since))
    if venue is None:
        raise not_found(f"no venue {slug!r}")
    venue["years"] = [list(y) for y in venue["years"]]
    if year is not None and year not in {y for y, _ in venue["years"]}:
        raise not_found(f"venue {slug!r} has no papers in {year}")
    return _listed(pf, venue, paging, sort, accepted)


def area_view(pf: Paperfind, name: str, paging: Paging) -> dict[str, Any]:
    area = pf.store().area(name, limit=paging.size, offset=paging.offset)
    if area is None:
        raise not_found(f"no area named {name!r}")
    area["paging"] = page_info(paging, area["total"])
    pf.searcher().name_cards(area["papers"])
    return area


def stats_view(pf: Paperfind) -> dict[str, Any]:
    """The counts, and which paperfind answers: its version and its backends."""
    semantic = pf.settings.semantic and (pf.settings.vector_dir / "CURRENT").exists()
    return {"version": __version__,
            "backend": {"store": "sqlite", "semantic": semantic, **pf.backend_status()},
            **pf.stats()}


def paper_count(pf: Paperfind) -> int:
    return pf.store().paper_count()


def home_view(pf: Paperfind, recent: int = 6) -> dict[str, Any]:
    """What the home page shows a newcomer: papers per venue and year, and the latest venue-years.

    Built from `Paperfind.stats`, which is recomputed only when an ingest commits (the store's
    data version moves), so the home page costs a dictionary walk, not a count of the database.
    """
    stats = pf.stats()
    cells = stats["venue_years"]
    years = sorted({c["year"] for c in cells if c["year"]})
    venues: dict[str, dict[str, Any]] = {}
    for c in cells:
        if not c["year"]:
            continue
        row = venues.setdefault(c["venue"], {"venue": c["venue"], "venue_name": c["venue_name"],
                                             "papers": 0, "years": {}})
        row["years"][c["year"]] = c["papers"]
        row["papers"] += c["papers"]
    largest = max((c["papers"] for c in cells), default=0)
    for row in venues.values():
        row["levels"] = {y: heat_level(n, largest) for y, n in row["years"].items()}
    latest = sorted((c for c in cells if c["year"]), key=lambda c: (-c["year"], -c["papers"],
                                                                    c["venue_name"]))[:recent]
    return {"papers": stats["papers"], "works": stats["works"], "years": years,
            "indexing": stats.get("indexing"),
            "venues": sorted(venues.values(), key=lambda v: v["venue_name"].lower()),
            "recent": [{"venue": c["venue"], "venue_name": c["venue_name"], "year": c["year"],
                        "papers": c["papers"]} for c in latest]}
