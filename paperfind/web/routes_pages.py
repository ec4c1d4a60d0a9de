"""The HTML pages. Each calls the same view function as its JSON twin, whose address comes
from the page's row in `paperfind.web.twins.TWINS` (`Pages.page`)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, Response

from paperfind.core import Paperfind
from paperfind.search.aspects import ASPECTS as ASPECT_CHOICES
from paperfind.web.params import (AspectParam, ListParams, Paging, SearchParams, YearParam,
                                  list_params, paging_params,
                                  search_params)
from paperfind.search.expert_results import ExpertsRequest
from paperfind.web.examples import examples
from paperfind.web.experts import experts_params, experts_search_query, experts_view
from paperfind.web.render import Pages, request_language
from paperfind.web.searching import search_view
from paperfind.web.twins import HOME_TWIN, page_query, query_string, sent_on, twin_url
from paperfind.web.views import (area_view, author_view, home_view, institution_view, paper_count,
                                 paper_view, renamed_author, renamed_institution, similar_view,
                                 stats_view, venue_view)

SlugPath = Annotated[str, Path(max_length=300)]
SIMILAR_ON_PAGE = 8  # cards under a paper; its JSON link asks for as many


def build_page_router(pf: Paperfind, pages: Pages) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def app_pf(request: Request) -> Paperfind:
        return request.app.state.paperfind

    @router.get("/", response_class=HTMLResponse)
    def home(request: Request, params: SearchParams = Depends(search_params)) -> HTMLResponse:
        pf_ = app_pf(request)
        context = {"params": params, "count": paper_count(pf_)}
        if params.q or params.chosen:
            context["data"] = search_view(pf_, params)
            context["export_query"] = urlencode(page_query(request))
            return pages.page(request, "search.html", context)
        # a first visit: what is indexed and what to try
        context.update(home=home_view(pf_), examples=examples(request_language(request)))
        return pages.page(request, "search.html", context, HOME_TWIN)

    @router.get("/papers/{key}", response_class=HTMLResponse)
    def paper(request: Request, key: SlugPath, aspect: AspectParam = None) -> HTMLResponse:
        data = paper_view(app_pf(request), key)
        similar = similar_view(app_pf(request), key, SIMILAR_ON_PAGE, known=True, aspect=aspect)["results"]
        # the JSON link gives the very list the page shows
        similar_query = [("limit", SIMILAR_ON_PAGE), *([("aspect", aspect)] if aspect else [])]
        similar_url = twin_url(request) + "/similar" + query_string(similar_query)
        versions = app_pf(request).store().paper_cards([v["key"] for v in data["versions"]])
        return pages.page(request, "paper.html", {
            "paper": data, "version_cards": versions,
            "similar": similar, "similar_url": similar_url, "aspect": aspect,
            "aspects": ASPECT_CHOICES})

    @router.get("/authors/{author_id}", response_class=HTMLResponse)
    def author(request: Request, author_id: SlugPath,
               listed: ListParams = Depends(list_params)) -> Response:
        slug = renamed_author(app_pf(request), author_id)
        if slug is not None:
            return sent_on(request, f"/authors/{quote(slug, safe='')}")
        return pages.page(request, "author.html", {"author": author_view(
            app_pf(request), author_id, listed.paging, listed.sort, listed.accepted, listed.since)})

    @router.get("/institutions/{slug}", response_class=HTMLResponse)
    def institution(request: Request, slug: SlugPath,
                    listed: ListParams = Depends(list_params)) -> Response:
        renamed = renamed_institution(app_pf(request), slug)
        if renamed is not None:
            return sent_on(request, f"/institutions/{quote(renamed, safe='')}")
        data = institution_view(app_pf(request), slug, listed.paging, listed.sort, listed.accepted,
                                listed.since)
        return pages.page(request, "institution.html", {"inst": data})

    @router.get("/venues/{slug}", response_class=HTMLResponse)
    def venue(request: Request, slug: SlugPath, year: YearParam = None,
              listed: ListParams = Depends(list_params)) -> HTMLResponse:
        data = venue_view(app_pf(request), slug, year, listed.paging, listed.sort, listed.accepted,
                          listed.since)
        return pages.page(request, "venue.html", {"venue": data})

    # an area is the data's own text: "Vision / Robotics" is one area (its %2F arrives as /)
    @router.get("/areas/{name:path}", response_class=HTMLResponse)
    def area(request: Request, name: SlugPath,
             paging: Paging = Depends(paging_params)) -> HTMLResponse:
        data = area_view(app_pf(request), name, paging)
        return pages.page(request, "area.html", {"area": data})

    @router.get("/experts", response_class=HTMLResponse)
    def experts(request: Request, params: ExpertsRequest = Depends(experts_params)) -> HTMLResponse:
        # no query yet: the form alone (the API says what is missing, the page asks for it)
        data = experts_view(app_pf(request), params) if params.q.strip() or params.paper else None
        return pages.page(request, "experts.html", {
            "params": params, "data": data, "search_query": experts_search_query(params),
            "default_min_works": app_pf(request).settings.search.experts.min_works})

    @router.get("/stats", response_class=HTMLResponse)
    def stats(request: Request) -> HTMLResponse:
        return pages.page(request, "stats.html", {"stats": stats_view(app_pf(request))})

    return router

