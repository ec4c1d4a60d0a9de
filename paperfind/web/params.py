"""Query parameters, declared once with their limits, for the pages and the API alike.

FastAPI validates them and our error handler turns a violation into a 422 naming the
parameter; the free-text query is the one exception: too long is cut, not refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Query

from paperfind.limits import MAX_PAGE, MAX_PAGE_SIZE
from paperfind.search.filters import Filters
from paperfind.web.views import Paging

YEAR_PATTERN = r"^\s*\d{4}\s*(\.\.\s*\d{4}\s*)?$"

PageParam = Annotated[int, Query(ge=1, le=MAX_PAGE, description="1-based page number.")]
SizeParam = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE,
                                  description=f"Results per page (at most {MAX_PAGE_SIZE}).")]
YearParam = Annotated[int | None, Query(ge=1900, le=2100, description="Only this year.")]
Sort = Literal["relevance", "newest", "citations", "influence"]
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
    explain: bool = False

    @property
    def chosen(self) -> dict[str, list[str]]:
        """The facet filters that are set, by parameter name, as written (for links that
        toggle them, and the response's `filters`)."""
        f = self.filters
        chosen = {"venue": list(f.venues), "status": list(f.statuses), "area": list(f.areas),
                  "inst": list(f.insts)}
        if self.year:
            chosen["year"] = [self.year]
        return {k: v for k, v in chosen.items() if v}


def search_params(
    q: Annotated[str, Query(description="Words, \"phrases\", author:, venue:, year:2017..2019, "
                                        "inst:, area:, status:, -excluded, OR.",
                            openapi_examples={"title": {"value": "vision transformers need registers"},
                                              "author": {"value": "Huishuai Zhang"},
                                              "filter": {"value": "venue:iclr year:2024"}})] = "",
    page: PageParam = 1,
    size: SizeParam = 20,
    sort: Annotated[Sort, Query(description="Result order: relevance, newest first, most cited, or "
                                            "influence (the papers' standing: later papers naming "
                                            "them, citations where known).")] = "relevance",
    mode: Annotated[Mode | None, Query(description="Retrieval mode (default: the best available).")] = None,
    venue: Annotated[list[str], Query(max_length=20, description="Venue slug (repeatable).")] = [],  # noqa: B006
    year: Annotated[str | None, Query(pattern=YEAR_PATTERN, description="2024 or 2017..2019.")] = None,
    status: Annotated[list[str], Query(max_length=20, description="Oral, Poster, ... (repeatable).")] = [],  # noqa: B006
    area: Annotated[list[str], Query(max_length=20, description="Area (repeatable).")] = [],  # noqa: B006
    inst: Annotated[list[str], Query(max_length=20, description="Institution slug (repeatable).")] = [],  # noqa: B006
    institution: Annotated[list[str], Query(max_length=20, description="The same as `inst` "
                                                                       "(repeatable).")] = [],  # noqa: B006
    explain: Annotated[bool, Query(description="Results the learned model ordered name the "
                                               "features that placed them (`ranking`).")] = False,
) -> SearchParams:
    year = year.replace(" ", "") if year else None
    low, _, high = (year or "").partition("..")
    filters = Filters(venues=_clean(venue), year_from=int(low) if low else None,
                      year_to=int(high or low) if low else None, insts=_clean(inst + institution),
                      areas=_clean(area), statuses=_clean(status))
    return SearchParams(q=q, paging=Paging(page, size), sort=sort, mode=mode, filters=filters,
                        year=year, explain=explain)


def _clean(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip()[:200] for v in values if v.strip())


def paging_params(page: PageParam = 1, size: SizeParam = 50) -> Paging:
    return Paging(page, size)
