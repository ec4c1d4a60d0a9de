"""A query's trend: /api/search/trend (JSON, described in OpenAPI) and /trend (the chart as an
HTML fragment).

Both come from the search the results page runs (`trend_view`), and /api/search carries the
same object in its `trend` field.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse

from paperfind.core import Paperfind
from paperfind.web import schemas
from paperfind.web.params import SearchParams, reject_unknown_parameters, search_params
from paperfind.web.render import Pages
from paperfind.web.routes_api import ERRORS
from paperfind.web.searching import trend_view


def build_trend_router(pages: Pages) -> APIRouter:
    router = APIRouter(responses=ERRORS)

    def app_pf(request: Request) -> Paperfind:
        return request.app.state.paperfind

    @router.get("/api/search/trend", tags=["api"], summary="A query's matching works per year, "
                "as a share of each year's works, overall and per venue",
                response_model=schemas.TrendResponse, dependencies=[Depends(reject_unknown_parameters)])
    def api_trend(request: Request, params: SearchParams = Depends(search_params)) -> JSONResponse:
        return JSONResponse(trend_view(app_pf(request), params))

    @router.get("/trend", include_in_schema=False, response_class=HTMLResponse)
    def trend_fragment(request: Request, params: SearchParams = Depends(search_params)) -> HTMLResponse:
        return pages.page(request, "trend.html", {"data": trend_view(app_pf(request), params),
                                                  "params": params})

    return router
