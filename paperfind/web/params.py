"""Query parameters, declared once with their limits, for the pages and the API alike.

FastAPI validates them and our error handler turns a violation into a 422 naming the
parameter; the free-text query is the one exception: too long is cut, not refused. A parameter
an API operation does not declare is refused too (`reject_unknown_parameters`).

The dependencies are `async def` although they await nothing: FastAPI runs a plain `def`
dependency in its thread pool, and each such hop cost a search request more than the
dependency's own work (issue 33: three hops a request where one, the route's, is needed).
"""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Query, Request
from fastapi.routing import APIRoute

from paperfind.limits import MAX_PAGE, MAX_PAGE_SIZE
from paperfind.search.filters import RATING_PATTERN, Filters, rating_range
from paperfind.search.response import PARTS
from paperfind.web.errors import WebError
from paperfind.web.views import Paging

# spaces only around the years: \s took in newlines and vertical tabs (year=%0A5831%0B was
# accepted and echoed back in `filters`)
YEAR_PATTERN = r"^ *(19|20)\d\d *(\.\. *(19|20)\d\d *)?$"

PageParam = Annotated[int, Query(ge=1, le=MAX_PAGE, description="1-based page number.")]
SizeParam = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE,
                                  description=f"Results per page (at most {MAX_PAGE_SIZE}). There is "
                                              "no `limit`: it, like any parameter an operation "
                                              "does not take, is refused (422 unknown_parameter).")]
YearParam = Annotated[int | None, Query(ge=1900, le=2100, description="Only this year.")]
Sort = Literal["relevance", "date", "newest", "citations", "influence", "rating"]
FeedSort = Literal["date"]  # a person's or an institution's feed: newest venue-year first
SinceParam = Annotated[int | None, Query(ge=1900, le=2100, description="New since: only papers of "
                                         "this year or later (with `year`, the later first year "
                                         "wins).")]
ListSortParam = Annotated[FeedSort, Query(description="The list's order: `date`, newest venue-year "
                                                      "first (the only one; the same as its feed).")]
Mode = Literal["lexical", "semantic", "hybrid"]
Format = Literal["bibtex", "csv", "jsonl"]
Aspect = Literal["background", "method", "result"]  # paperfind.search.aspects.ASPECTS
AspectParam = Annotated[Aspect | None, Query(description="Similar in this respect only: the paper's "
                                                         "background, method or result sentences.")]


@dataclass(frozen=True)
class SearchParams:
    q: str = ""
    paging: Paging = Paging()
    sort: str = "relevance"
    mode: str | None = None
    filters: Filters = Filters()  # what the searcher is given
    year: str | None = None  # the year filter as written (2024, 2017..2019), for links
    rating: str | None = None  # the review score filter as written (6.., 5..7), for links
    explain: bool = False
    include: frozenset[str] = frozenset(PARTS)  # facets and trend: the page draws both

    @property
    def chosen(self) -> dict[str, list[str]]:
        """The facet filters that are set, by parameter name, as written (for links that
        toggle them, and the response's `filters`)."""
        f = self.filters
        chosen = {"venue": list(f.venues), "status": list(f.statuses), "area": list(f.areas),
                  "inst": list(f.insts)}
        if self.year:
            chosen["year"] = [self.year]
        if f.since is not None:
            chosen["since"] = [str(f.since)]
        if self.rating:
            chosen["rating"] = [self.rating]
        return {k: v for k, v in chosen.items() if v}


async def search_params(
    q: Annotated[str, Query(description="Words, \"phrases\", author:, venue:, year:2017..2019, "
                                        "inst:, area:, status:, -excluded, OR.",
                            openapi_examples={"title": {"value": "vision transformers need registers"},
                                              "author": {"value": "Huishuai Zhang"},
                                              "filter": {"value": "venue:iclr year:2024"}})] = "",
    page: PageParam = 1,
    size: SizeParam = 20,
    sort: Annotated[Sort, Query(description="Result order: relevance, date (newest venue-year "
                                            "first; `newest` is its older name), most cited, or "
                                            "influence (the papers' standing: later papers naming "
                                            "them, citations where known), or rating (highest "
                                            "mean review score first; papers without review "
                                            "scores last).")] = "relevance",
    mode: Annotated[Mode | None, Query(description="Retrieval mode (default: the best available).")] = None,
    venue: Annotated[list[str], Query(max_length=20, description="Venue slug (repeatable).")] = [],  # noqa: B006
    year: Annotated[str | None, Query(pattern=YEAR_PATTERN, description="2024 or 2017..2019 "
                                                                        "(years 1900 to 2099).")] = None,
    status: Annotated[list[str], Query(max_length=20, description="Oral, Poster, ... (repeatable).")] = [],  # noqa: B006
    area: Annotated[list[str], Query(max_length=20, description="Area (repeatable).")] = [],  # noqa: B006
    inst: Annotated[list[str], Query(max_length=20, description="Institution slug (repeatable).")] = [],  # noqa: B006
    institution: Annotated[list[str], Query(max_length=20, description="The same as `inst` "
                                                                       "(repeatable).")] = [],  # noqa: B006
    explain: Annotated[bool, Query(description="Results the learned model ordered name the "
                                               "features that placed them (`ranking`).")] = False,
    since: SinceParam = None,
    rating: Annotated[str | None, Query(pattern=RATING_PATTERN, description=(
        "Mean review score: 6.. (at least 6), 5..7, ..4, or 6 (exactly). Papers without "
        "review scores (most venue-years: OpenReview's ICLR, NeurIPS 2021-2023, CoRL and COLM "
        "have them) are left out by any range."),
        openapi_examples={"at least 6": {"value": "6.."}})] = None,
) -> SearchParams:
    year, year_from, year_to = year_range(year)
    rating = rating.replace(" ", "") or None if rating else None
    rating_from, rating_to = rating_range(rating)
    filters = Filters(venues=clean_values(venue), year_from=year_from, year_to=year_to,
                      insts=clean_values(inst + institution), areas=clean_values(area),
                      statuses=clean_values(status), since=since,
                      rating_from=rating_from, rating_to=rating_to)
    return SearchParams(q=q, paging=Paging(page, size), sort=sort, mode=mode, filters=filters,
                        year=year, explain=explain, rating=rating)


# search_params's defaults, read from its signature: a plain search's parameters (below) are
# made with the same values, not a copy of them
SEARCH_DEFAULTS = {name: p.default for name, p in inspect.signature(search_params).parameters.items()}


def plain_search_params(args: dict[str, Any], include: list[str] | None) -> SearchParams:
    """`search_params(**args)` with `include=` set, for the few arguments a plain search carries
    (q, page, size, sort, mode: paperfind.web.search_route): no filters, so the empty `Filters()`
    it would make, without its filter work and a dataclass `replace` (~25 µs of a request's HTTP
    layer of ~1 ms: issue 33, web35)."""
    return SearchParams(q=args.get("q", SEARCH_DEFAULTS["q"]),
                        paging=Paging(args.get("page", SEARCH_DEFAULTS["page"]),
                                      args.get("size", SEARCH_DEFAULTS["size"])),
                        sort=args.get("sort", SEARCH_DEFAULTS["sort"]),
                        mode=args.get("mode", SEARCH_DEFAULTS["mode"]), include=included(include))


Part = Literal["facets", "trend", "none"]
IncludeParam = Annotated[list[Part] | None, Query(
    max_length=3, description="What to count beside the results (repeatable): `facets`, `trend`, "
                              "or `none` for neither; without it, both. Each is a pass over every "
                              "match: a client that draws neither answers faster. One left out is "
                              "`{}` (facets) or `null` (trend).")]


def included(parts: list[str] | None) -> frozenset[str]:
    """The parts of `include=` (both when it is absent, none for `none`)."""
    return frozenset(PARTS) if parts is None else frozenset(parts) - {"none"}


def clean_values(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip()[:200] for v in values if v.strip())


def year_range(year: str | None) -> tuple[str | None, int | None, int | None]:
    """A year filter as written (2024, 2017..2019; spaces dropped, for links) and its first and
    last year."""
    year = year.replace(" ", "") if year else None
    low, _, high = (year or "").partition("..")
    return year, int(low) if low else None, int(high or low) if low else None


async def paging_params(page: PageParam = 1, size: SizeParam = 50) -> Paging:
    return Paging(page, size)


ListSort = Literal["date", "newest", "citations", "rating"]  # paperfind.store.read.LIST_SORTS


@dataclass(frozen=True)
class ListParams:
    """A page of a person's, an institution's or a venue's works: which page, in which order,
    of all works or the accepted ones."""

    paging: Paging = Paging(1, 50)
    sort: str = "date"
    accepted: bool = False
    since: int | None = None


async def list_params(page: PageParam = 1, size: SizeParam = 50,
                      sort: Annotated[ListSort, Query(description="date: newest venue-year first (as the "
                                                                  "list's feed; `newest` is the same), or "
                                                                  "citations: the papers' standing "
                                                                  "(citations where counted, later papers "
                                                                  "naming them otherwise), as search's "
                                                                  "sort=citations; or rating: the highest "
                                                                  "mean review score first, works without "
                                                                  "scores last.")] = "date",
                      accepted: Annotated[bool, Query(description="Accepted works only (not rejected, "
                                                                  "withdrawn, under review or without "
                                                                  "a decision in the data).")] = False,
                      since: SinceParam = None) -> ListParams:
    return ListParams(Paging(page, size), sort, accepted, since)


# what clients of other APIs send, and the parameter that does it here
SYNONYMS = {"limit": ("size", "the page size"), "per_page": ("size", "the page size"),
            "page_size": ("size", "the page size"), "pagesize": ("size", "the page size"),
            "rows": ("size", "the page size"), "count": ("size", "the page size"),
            "n": ("size", "the page size"), "offset": ("page", "the page number"),
            "start": ("page", "the page number"), "query": ("q", "the query"),
            "search": ("q", "the query"), "text": ("q", "the query"), "order": ("sort", "the order"),
            "sort_by": ("sort", "the order"), "orderby": ("sort", "the order"),
            "venues": ("venue", "a venue"), "years": ("year", "the year"),
            "institutions": ("inst", "an institution"), "affiliation": ("inst", "an institution")}


def known_parameters(route: APIRoute) -> frozenset[str]:
    """The query parameters `route` declares (its own and its dependencies'): a walk of a few
    nodes, so done per request rather than cached (a route is not hashable)."""
    names, todo = set(), [route.dependant]
    while todo:
        dependant = todo.pop()
        names.update(p.alias for p in dependant.query_params)
        todo.extend(dependant.dependencies)
    return frozenset(names)


def unknown_parameter_message(name: str, known: frozenset[str]) -> str:
    """'unknown parameter `limit`; the page size is `size`': the nearest known one named."""
    head = f"unknown parameter '{name[:60]}'"
    synonym = SYNONYMS.get(name.casefold())
    if synonym and synonym[0] in known:
        return f"{head}; {synonym[1]} is '{synonym[0]}'"
    close = difflib.get_close_matches(name.casefold(), sorted(known | SYNONYMS.keys()), n=1, cutoff=0.6)
    if close and close[0] in known:
        return f"{head}; did you mean '{close[0]}'?"
    if close and SYNONYMS[close[0]][0] in known:  # limt: a misspelt limit
        return f"{head}; {SYNONYMS[close[0]][1]} is '{SYNONYMS[close[0]][0]}'"
    return f"{head}; this operation takes {', '.join(sorted(known))}" if known else \
        f"{head}; this operation takes no query parameters"


async def reject_unknown_parameters(request: Request) -> None:
    """The API's every operation refuses a parameter it does not know (a 422 naming it), as it
    refuses a bad value: a client still sending a renamed parameter (`limit` for `size`) was
    answered as if it had not sent it. Pages stay lenient (`page_query` drops what they do not
    know, so tracking parameters never reach a link or a twin)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    known = known_parameters(route)
    for name in dict.fromkeys(request.query_params.keys()):
        if name not in known:
            raise WebError(422, "unknown_parameter", unknown_parameter_message(name, known))
