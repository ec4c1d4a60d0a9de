"""A query's trend: /api/search/trend (JSON, described in OpenAPI) and /trend (the chart as an
HTML fragment, which the search-as-you-type script puts over the results it redraws).

Both come from the search the results page runs (`trend_view`), and /api/search carries the
same object in its `trend` field.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

from paperfind.core import Paperfind
from paperfind.web.params import SearchParams, search_params
from paperfind.web.render import Pages
from paperfind.web.searching import trend_view


class TrendPoint(BaseModel):
    year: int
    works: int = Field(description="Matching works with a version in this year (the year facet's count)")
    of: int = Field(description="All works of the corpus in this year (of this venue, in a venue's line)")
    share: float | None = Field(description="works / of, rounded to 6 decimals; null when `of` is 0")


class VenueTrend(BaseModel):
    venue: str = Field(description="Venue slug, as in the venue facet")
    venue_name: str
    years: list[TrendPoint] = Field(description="The venue's own years within the query's range")


class Trend(BaseModel):
    unit: Literal["works"] = Field(description="A work with several versions counts once a year")
    years: list[TrendPoint] = Field(description="Every year of the corpus in the query's year range")
    venues: list[VenueTrend] = Field(description="The venues with the most matching works, most first")


class TrendResponse(BaseModel):
    query: str
    total: int = Field(description="Matching works, as /api/search counts them")
    filters: dict[str, list[str]]
    trend: Trend | None = Field(description="null when there is no index yet")


def build_trend_router(pages: Pages) -> APIRouter:
    router = APIRouter()

    def app_pf(request: Request) -> Paperfind:
        return request.app.state.paperfind

    @router.get("/api/search/trend", tags=["api"], summary="A query's matching works per year, "
                "as a share of each year's works, overall and per venue",
                responses={200: {"model": TrendResponse}})
    def api_trend(request: Request, params: SearchParams = Depends(search_params)) -> JSONResponse:
        return JSONResponse(trend_view(app_pf(request), params))

    @router.get("/trend", include_in_schema=False, response_class=HTMLResponse)
    def trend_fragment(request: Request, params: SearchParams = Depends(search_params)) -> HTMLResponse:
        return pages.render(request, "trend.html", {"data": trend_view(app_pf(request), params),
                                                    "params": params})

    return router
