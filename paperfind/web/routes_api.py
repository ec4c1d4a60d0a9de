"""The JSON API: one route per page, each returning the dict its page renders.

Responses are built directly (not through FastAPI's response-model encoder): the dicts are
plain JSON already, and /api/search is the hot path under load. Each route still names its
response model (paperfind.web.schemas), its files' media types, its errors and its OpenAPI
links, so /openapi.json describes what the server really answers.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from paperfind.core import Paperfind
from paperfind.search.expert_results import ExpertsRequest
from paperfind.limits import MAX_EXPORT, MAX_PAGE_SIZE, MAX_SIMILAR_PER_REQUEST
from paperfind.web import export, schemas
from paperfind.web.api_examples import EXAMPLES
from paperfind.web.errors import error_body
from paperfind.web.fastjson import FastJSONResponse
from paperfind.web.experts import experts_params, experts_view
from paperfind.web.feeds import feed_url
from paperfind.web.params import (AspectParam, Format, IncludeParam, ListParams, Paging,
                                  SearchParams, YearParam, included, list_params, paging_params,
                                  reject_unknown_parameters, search_params)
from paperfind.web.search_route import SearchRoute
from paperfind.web.searching import search_view
from paperfind.web.twins import sent_on
from paperfind.web.views import (Paging as _Paging, area_view, author_view, institution_view,
                                 paper_view, renamed_author, renamed_institution, similar_view,
                                 stats_view, venue_view)

KeyPath = Annotated[str, Path(max_length=300, description="Paper key, `venue+year:id`.",
                              openapi_examples={"paper": {"value": EXAMPLES["paper"]}})]
AuthorPath = Annotated[str, Path(max_length=300, description="The person's public id (slug); an "
                                 "old numeric id is redirected (308) to it.",
                                 openapi_examples={"author": {"value": EXAMPLES["author"]}})]
InstitutionPath = Annotated[str, Path(max_length=300, description="Institution slug.",
                                      openapi_examples={"institution": {
                                          "value": EXAMPLES["institution"]}})]
VenuePath = Annotated[str, Path(max_length=300, description="Venue slug.",
                                openapi_examples={"venue": {"value": EXAMPLES["venue"]}})]
AreaPath = Annotated[str, Path(max_length=300, description="Area name, as on paper cards.",
                               openapi_examples={"area": {"value": EXAMPLES["area"]}})]

FILE_TYPES = {"bibtex": ("application/x-bibtex", "bib"), "csv": ("text/csv", "csv"),
              "jsonl": ("application/jsonl", "jsonl")}


def _error(description: str, status: int, code: str, message: str) -> dict[str, Any]:
    return {"description": description, "model": schemas.Error,
            "content": {"application/json": {"example": error_body(status, code, message)}}}


ERRORS: dict[int | str, dict[str, Any]] = {
    422: _error("A parameter is invalid (code invalid_parameter) or not one the operation takes "
                "(code unknown_parameter: `limit` is not the page size, `size` is); the message "
                "names it.", 422, "invalid_parameter",
                f"parameter 'size': Input should be less than or equal to {MAX_PAGE_SIZE} "
                f"(got '{MAX_PAGE_SIZE + 1}')"),
    503: _error("Not ready to answer (the index is being built); try again shortly.", 503,
                "unavailable", "the search index is being built"),
}
NOT_FOUND = {404: _error("No such paper, person, institution, venue or area.", 404, "not_found",
                         "no paper with key 'iclr2024:nope'")}
MOVED = {308: {"description": "An old numeric person id: sent on to the person's slug.",
               "headers": {"Location": {"schema": {"type": "string"},
                                        "description": "/api/authors/{slug}..."}}}}
INSTITUTION_MOVED = {308: {
    "description": "A slug that is no institution's but names one in words (stanford-university): "
                   "sent on to the institution's slug (stanford).",
    "headers": {"Location": {"schema": {"type": "string"},
                             "description": "the same address with the institution's slug"}}}}


def _files(*formats: str) -> dict[int | str, dict[str, Any]]:
    """A 200 that is a file in one of `formats` (the `format` parameter picks it)."""
    content: dict[str, Any] = {}
    for fmt in formats:
        media, _ = FILE_TYPES[fmt]
        content[media] = {"schema": {"type": "string"}} if fmt != "jsonl" else {
            "schema": {"type": "string", "description": "One PaperCard (with its abstract) "
                                                        "as JSON per line."}}
    return {200: {"description": "The file, as an attachment.", "content": content}}


def _links(**targets: tuple[str, dict[str, str]]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI links of a 200: where a value of this response leads (clients and schemathesis's
    stateful phase follow them)."""
    return {200: {"links": {name: {"operationId": op, "parameters": params}
                            for name, (op, params) in targets.items()}}}


def _pf(request: Request) -> Paperfind:
    return request.app.state.paperfind


def _file(text: str, filename: str, media_type: str) -> Response:
    """An attachment. Headers are Latin-1, so `filename` is the ASCII fallback and `filename*`
    (RFC 6266) the name itself: a Chinese query's export is named by its words."""
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in filename)
    disposition = f'attachment; filename="{ascii_name}"'
    if ascii_name != filename:
        disposition += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return Response(text, media_type=media_type, headers={"content-disposition": disposition})


def _export(pf: Paperfind, keys: list[str], fmt: str, stem: str, request: Request) -> Response:
    """The papers `keys` as a file: BibTeX and CSV from every stored field, JSON Lines as cards."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:80] or "papers"
    media, suffix = FILE_TYPES[fmt]
    if fmt == "jsonl":
        text = "".join(json.dumps(c, ensure_ascii=False) + "\n"
                       for c in pf.searcher().name_cards(pf.store().paper_cards(keys)))
    elif fmt == "csv":
        text = export.to_csv(pf.store().paper_records(keys), pf.settings.public_url)
    else:
        text = export.to_bibtex(pf.store().paper_records(keys))
    return _file(text, f"{safe}.{suffix}", f"{media}; charset=utf-8")


def _moved(request: Request, author_id: str) -> Response | None:
    """A 308 to the slug when `author_id` is an old numeric person id."""
    slug = renamed_author(_pf(request), author_id)
    if slug is None:
        return None
    path = request.url.path.replace(f"/{author_id}", f"/{quote(slug, safe='')}", 1)
    return sent_on(request, path)


def build_api_router(pf: Paperfind) -> APIRouter:
    router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS,
                       dependencies=[Depends(reject_unknown_parameters)])

    async def api_search(request: Request, params: SearchParams = Depends(search_params),
                         include: IncludeParam = None) -> JSONResponse:
        # async, so the local index answers in the event loop: a hop to the thread pool and
        # back cost more than the HTTP layer's own work (issue 33); a Milvus backend waits on
        # the network, so it answers from the pool and the loop serves others meanwhile
        pf = _pf(request)
        params = replace(params, include=included(include))
        if pf.settings.backend == "local":
            data = search_view(pf, params)
        else:
            data = await run_in_threadpool(search_view, pf, params)
        return FastJSONResponse({**data, "feed": feed_url(request)})

    # a SearchRoute: the plain requests (q, page, size, mode, sort, include) are read without
    # FastAPI's per-parameter resolution, the others as declared (paperfind.web.search_route)
    router.add_api_route("/search", api_search, methods=["GET"], summary="Search papers and people",
                         operation_id="search", response_model=schemas.SearchResponse,
                         route_class_override=SearchRoute, responses=_links(
                             paper=("getPaper", {"key": "$response.body#/results/0/key"}),
                             author=("getAuthor", {"author_id": "$response.body#/results/0/authors/0/id"}),
                             institution=("getInstitution",
                                          {"slug": "$response.body#/results/0/institutions/0"}),
                             person=("getAuthor", {"author_id": "$response.body#/authors/0/id"})))

    @router.get("/search/export", summary="Export a result list as BibTeX, CSV or JSON Lines",
                operation_id="exportSearch", response_class=Response,
                responses=_files("bibtex", "csv", "jsonl"))
    def api_search_export(request: Request, params: SearchParams = Depends(search_params),
                          format: Format = "bibtex",
                          limit: Annotated[int, Query(ge=1, le=MAX_EXPORT)] = 100) -> Response:
        big = replace(params, paging=_Paging(1, limit))
        keys = _search_for_export(_pf(request), big)
        return _export(_pf(request), keys, format, "paperfind-" + (params.q or "results"), request)

    @router.get("/papers/{key}", summary="One paper", operation_id="getPaper",
                response_model=schemas.Paper, responses={**NOT_FOUND, **_links(
                    similar=("getSimilar", {"key": "$response.body#/key"}),
                    bibtex=("getPaperBibtex", {"key": "$response.body#/key"}),
                    author=("getAuthor", {"author_id": "$response.body#/authors/0/id"}),
                    venue=("getVenue", {"slug": "$response.body#/venue"}))})
    def api_paper(request: Request, key: KeyPath) -> JSONResponse:
        return JSONResponse(paper_view(_pf(request), key))

    @router.get("/papers/{key}/bibtex", summary="One paper's BibTeX, as a file",
                operation_id="getPaperBibtex", response_class=Response,
                responses={**_files("bibtex"), **NOT_FOUND})
    def api_paper_bibtex(request: Request, key: KeyPath) -> Response:
        paper = paper_view(_pf(request), key)
        return _file(paper["bibtex_text"] + "\n", f"{key.replace(':', '-')}.bib",
                     "application/x-bibtex; charset=utf-8")

    @router.get("/papers/{key}/similar", summary="Papers similar to this one",
                operation_id="getSimilar", response_model=schemas.SimilarResponse,
                responses={**NOT_FOUND, **_links(
                    paper=("getPaper", {"key": "$response.body#/results/0/key"}))})
    def api_similar(request: Request, key: KeyPath,
                    limit: Annotated[int, Query(ge=1, le=MAX_SIMILAR_PER_REQUEST)] = 10,
                    aspect: AspectParam = None) -> JSONResponse:
        return JSONResponse(similar_view(_pf(request), key, limit, aspect=aspect))

    @router.get("/experts", summary="Who works on this: people by their papers' match to a topic, "
                "an abstract or a paper", operation_id="findExperts",
                response_model=schemas.ExpertsResponse, responses={**NOT_FOUND, **_links(
                    author=("getAuthor", {"author_id": "$response.body#/results/0/id"}),
                    paper=("getPaper", {"key": "$response.body#/results/0/evidence/0/key"}))})
    def api_experts(request: Request, params: ExpertsRequest = Depends(experts_params)) -> JSONResponse:
        return JSONResponse(experts_view(_pf(request), params))

    @router.get("/authors/{author_id}", summary="One author: works, co-authors, institutions",
                operation_id="getAuthor", response_model=schemas.AuthorPage,
                responses={**NOT_FOUND, **MOVED, **_links(
                    paper=("getPaper", {"key": "$response.body#/papers/0/key"}),
                    coauthor=("getAuthor", {"author_id": "$response.body#/coauthors/0/id"}),
                    institution=("getInstitution",
                                 {"slug": "$response.body#/institutions/0/slug"}))})
    def api_author(request: Request, author_id: AuthorPath,
                   listed: ListParams = Depends(list_params)) -> Response:
        moved = _moved(request, author_id)
        return moved or JSONResponse({**author_view(_pf(request), author_id, listed.paging,
                                                    listed.sort, listed.accepted, listed.since),
                                      "feed": feed_url(request)})

    @router.get("/authors/{author_id}/export",
                summary="An author's works as BibTeX, CSV or JSON Lines", operation_id="exportAuthor",
                response_class=Response, responses={**_files("bibtex", "csv", "jsonl"), **NOT_FOUND,
                                                    **MOVED})
    def api_author_export(request: Request, author_id: AuthorPath,
                          format: Format = "bibtex") -> Response:
        moved = _moved(request, author_id)
        if moved:
            return moved
        author = author_view(_pf(request), author_id, _Paging(1, 1_000_000))  # every work
        return _export(_pf(request), [p["key"] for p in author["papers"]], format, author["id"],
                       request)

    @router.get("/institutions/{slug}", summary="One institution: works, top authors",
                operation_id="getInstitution", response_model=schemas.InstitutionPage,
                responses={**NOT_FOUND, **INSTITUTION_MOVED, **_links(
                    paper=("getPaper", {"key": "$response.body#/papers/0/key"}),
                    author=("getAuthor", {"author_id": "$response.body#/top_authors/0/id"}))})
    def api_institution(request: Request, slug: InstitutionPath,
                        listed: ListParams = Depends(list_params)) -> Response:
        renamed = renamed_institution(_pf(request), slug)
        if renamed is not None:
            return sent_on(request, f"/api/institutions/{quote(renamed, safe='')}")
        return JSONResponse({**institution_view(_pf(request), slug, listed.paging, listed.sort,
                                                listed.accepted, listed.since),
                             "feed": feed_url(request)})

    @router.get("/venues/{slug}", summary="One venue, optionally one year", operation_id="getVenue",
                response_model=schemas.VenuePage, responses={**NOT_FOUND, **_links(
                    paper=("getPaper", {"key": "$response.body#/papers/0/key"}))})
    def api_venue(request: Request, slug: VenuePath, year: YearParam = None,
                  listed: ListParams = Depends(list_params)) -> JSONResponse:
        return JSONResponse({**venue_view(_pf(request), slug, year, listed.paging, listed.sort,
                                          listed.accepted, listed.since),
                             "feed": feed_url(request)})

    @router.get("/areas/{name:path}", summary="Papers of one area", operation_id="getArea",
                response_model=schemas.AreaPage, responses={**NOT_FOUND, **_links(
                    paper=("getPaper", {"key": "$response.body#/papers/0/key"}))})
    def api_area(request: Request, name: AreaPath,
                 paging: Paging = Depends(paging_params)) -> JSONResponse:
        return JSONResponse({**area_view(_pf(request), name, paging), "feed": feed_url(request)})

    @router.get("/stats", summary="Counts of papers, people, venues and years; version, backend",
                operation_id="getStats", response_model=schemas.Stats)
    def api_stats(request: Request) -> JSONResponse:
        return JSONResponse(stats_view(_pf(request)))

    return router


def _search_for_export(pf: Paperfind, params: SearchParams) -> list[str]:
    """The keys of a result list, in result order, a largest page at a time."""
    keys: list[str] = []
    page = 1
    while len(keys) < params.paging.size:
        chunk = replace(params, paging=_Paging(page, MAX_PAGE_SIZE), include=frozenset())
        results = search_view(pf, chunk)["results"]
        keys.extend(r["key"] for r in results)
        if len(results) < MAX_PAGE_SIZE:
            break
        page += 1
    return keys[:params.paging.size]
