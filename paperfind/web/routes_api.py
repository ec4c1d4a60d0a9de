"""The JSON API: one route per page, each returning the dict its page renders.

Responses are built directly (not through FastAPI's response-model encoder): the dicts are
plain JSON already, and /api/search is the hot path under load.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from paperfind.core import Paperfind
from paperfind.web import export
from paperfind.web.errors import error_body
from paperfind.web.params import (MAX_EXPORT, AspectParam, Format, Paging, SearchParams, YearParam,
                                  paging_params, search_params)
from paperfind.web.searching import search_view
from paperfind.web.views import (Paging as _Paging, area_view, author_view, institution_view,
                                 paper_view, similar_view, stats_view,
                                 venue_view)

ERROR_SCHEMA = {"application/json": {"example": error_body(404, "not_found", "no paper with key 'x'")}}
ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "Unknown id", "content": ERROR_SCHEMA},
    422: {"description": "Invalid parameter", "content": {"application/json": {
        "example": error_body(422, "invalid_parameter", "parameter 'size': ...")}}},
}
KeyPath = Annotated[str, Path(max_length=300, description="Paper key, e.g. iclr2024:abc")]
SlugPath = Annotated[str, Path(max_length=300)]


def _pf(request: Request) -> Paperfind:
    return request.app.state.paperfind


def _file(text: str, filename: str, media_type: str) -> Response:
    return Response(text, media_type=media_type,
                    headers={"content-disposition": f'attachment; filename="{filename}"'})


def _export(papers: list[dict[str, Any]], fmt: str, stem: str, request: Request) -> Response:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:80] or "papers"
    if fmt == "csv":
        base = str(request.base_url).rstrip("/")
        return _file(export.to_csv(papers, base), f"{safe}.csv", "text/csv; charset=utf-8")
    return _file(export.to_bibtex(papers), f"{safe}.bib", "application/x-bibtex; charset=utf-8")


def build_api_router(pf: Paperfind) -> APIRouter:
    router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)

    @router.get("/search", summary="Search papers and people")
    def api_search(request: Request, params: SearchParams = Depends(search_params)) -> JSONResponse:
        return JSONResponse(search_view(_pf(request), params))

    @router.get("/search/export", summary="Export a result list as BibTeX or CSV")
    def api_search_export(request: Request, params: SearchParams = Depends(search_params),
                          format: Format = "bibtex",
                          limit: Annotated[int, Query(ge=1, le=MAX_EXPORT)] = 100) -> Response:
        big = SearchParams(**{**params.__dict__, "paging": _Paging(1, limit)})
        data = _search_for_export(_pf(request), big)
        return _export(data, format, "paperfind-" + (params.q or "results"), request)

    @router.get("/papers/{key}", summary="One paper")
    def api_paper(request: Request, key: KeyPath) -> JSONResponse:
        return JSONResponse(paper_view(_pf(request), key))

    @router.get("/papers/{key}/bibtex", summary="One paper's BibTeX, as a file")
    def api_paper_bibtex(request: Request, key: KeyPath) -> Response:
        paper = paper_view(_pf(request), key)
        return _file(export.bibtex_entry(paper) + "\n", f"{key.replace(':', '-')}.bib",
                     "application/x-bibtex; charset=utf-8")

    @router.get("/papers/{key}/similar", summary="Papers similar to this one")
    def api_similar(request: Request, key: KeyPath,
                    limit: Annotated[int, Query(ge=1, le=50)] = 10,
                    aspect: AspectParam = None) -> JSONResponse:
        return JSONResponse(similar_view(_pf(request), key, limit, aspect=aspect))

    @router.get("/authors/{author_id}", summary="One author: papers, co-authors, institutions")
    def api_author(request: Request, author_id: SlugPath) -> JSONResponse:
        return JSONResponse(author_view(_pf(request), author_id))

    @router.get("/authors/{author_id}/export", summary="An author's papers as BibTeX or CSV")
    def api_author_export(request: Request, author_id: SlugPath,
                          format: Format = "bibtex") -> Response:
        author = author_view(_pf(request), author_id)
        return _export(author["papers"], format, author["id"], request)

    @router.get("/institutions/{slug}", summary="One institution: papers, top authors")
    def api_institution(request: Request, slug: SlugPath,
                        paging: Paging = Depends(paging_params)) -> JSONResponse:
        return JSONResponse(institution_view(_pf(request), slug, paging))

    @router.get("/venues/{slug}", summary="One venue, optionally one year")
    def api_venue(request: Request, slug: SlugPath, year: YearParam = None,
                  paging: Paging = Depends(paging_params)) -> JSONResponse:
        return JSONResponse(venue_view(_pf(request), slug, year, paging))

    @router.get("/areas/{name}", summary="Papers of one area")
    def api_area(request: Request, name: SlugPath,
                 paging: Paging = Depends(paging_params)) -> JSONResponse:
        return JSONResponse(area_view(_pf(request), name, paging))

    @router.get("/stats", summary="Counts of papers, people, venues and years")
    def api_stats(request: Request) -> JSONResponse:
        return JSONResponse(stats_view(_pf(request)))

    return router


def _search_for_export(pf: Paperfind, params: SearchParams) -> list[dict[str, Any]]:
    """The full store cards of a result list, in result order (exports need every field)."""
    keys: list[str] = []
    page = 1
    while len(keys) < params.paging.size:
        chunk = SearchParams(**{**params.__dict__, "paging": _Paging(page, 100)})
        results = search_view(pf, chunk)["results"]
        keys.extend(r["key"] for r in results)
        if len(results) < 100:
            break
        page += 1
    return pf.store().paper_cards(keys[:params.paging.size])
