"""The Atom feeds: one per list a user can see, with the list's own parameters.

Each feed is the first page of the list its page shows, read through the same view function
(paperfind.web.views, paperfind.web.searching), newest venue-year first; a search's feed orders
by `date` unless asked for another order. Like the API, a feed refuses parameters it does not
take; `lang` picks the language of its title only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Callable, Literal
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response

from paperfind.core import Paperfind
from paperfind.limits import MAX_QUERY_CHARS
from paperfind.web.api_examples import EXAMPLES
from paperfind.web.atom import ATOM_TYPE, FeedMeta, atom_document, newest_date
from paperfind.web.feeds import (base_url, entity_tag, feed_response, last_modified,
                                 not_modified)
from paperfind.web.i18n import Translator
from paperfind.web.params import (ListSortParam, Paging, SearchParams, SinceParam, YearParam,
                                  paging_params, reject_unknown_parameters, search_params)
from paperfind.web.render import request_language
from paperfind.web.routes_api import ERRORS, INSTITUTION_MOVED, MOVED, NOT_FOUND
from paperfind.web.searching import search_view
from paperfind.web.twins import LANGUAGE_PARAM, query_string, sent_on
from paperfind.web.views import (area_view, author_view, institution_view, renamed_author,
                                 renamed_institution, venue_view)

AUTHOR_FEED_ENTRIES = 50  # an author's list is not paged: their feed holds the newest 50 works
LangParam = Annotated[Literal["zh", "en"] | None, Query(description="The language of the feed's "
                                                                    "title (default: the "
                                                                    "request's, as pages).")]
FEED_OK = {200: {"description": "An Atom feed (RFC 4287), newest first. Carries an ETag and a "
                                "Last-Modified; a request repeating either gets 304.",
                 "content": {ATOM_TYPE: {"schema": {"type": "string"}}}},
           304: {"description": "Not modified: the client's copy (If-None-Match / "
                                "If-Modified-Since) is current; no body."}}


def _path(description: str, example: str) -> Any:
    return Annotated[str, Path(max_length=300, description=description,
                               openapi_examples={"example": {"value": example}})]


AuthorPath = _path("The person's public id (slug).", EXAMPLES["author"])
InstitutionPath = _path("Institution slug.", EXAMPLES["institution"])
VenuePath = _path("Venue slug.", EXAMPLES["venue"])
AreaPath = _path("Area name, as on paper cards.", EXAMPLES["area"])


def _pf(request: Request) -> Paperfind:
    return request.app.state.paperfind


def _page_url(base: str, path: str, request: Request, extra: list[tuple[str, str]] = ()) -> str:
    """The HTML page of the list: `path` with the feed's query but its language and order."""
    pairs = [(k, v) for k, v in request.query_params.multi_items()
             if k not in (LANGUAGE_PARAM, "sort", "page")] + list(extra)
    return base + path + query_string(pairs)


def _feed(request: Request, cards: list[dict[str, Any]], title: Callable[[Translator], str],
          page_path: str, page_extra: list[tuple[str, str]] = ()) -> Response:
    """The feed of `cards`, or a 304 when the client's validators say it has it."""
    pf, lang = _pf(request), request_language(request)
    keys = [c["key"] for c in cards]
    etag, modified = entity_tag(pf, request, lang, keys), last_modified(pf, newest_date(cards))
    if not_modified(request, etag, modified):
        return feed_response(request, etag, modified, None)
    base = base_url(pf, request)
    query = [(k, v) for k, v in request.query_params.multi_items() if k != LANGUAGE_PARAM]
    meta = FeedMeta(feed_id=base + request.url.path + query_string(query),
                    title=title(Translator(lang)),
                    self_url=base + request.url.path + query_string(request.query_params.multi_items()),
                    page_url=_page_url(base, page_path, request, page_extra), lang=lang)
    return feed_response(request, etag, modified, atom_document(meta, cards, base))


def _described(params: SearchParams) -> str:
    """A search as its query syntax writes it, for the feed's title."""
    words = [params.q[:MAX_QUERY_CHARS].strip()] if params.q.strip() else []
    words += [f"{name}:{value}" for name, values in params.chosen.items() for value in values]
    return " ".join(words)


def build_feed_router() -> APIRouter:
    router = APIRouter(prefix="/feeds", tags=["feeds"], responses={**ERRORS, **FEED_OK},
                       dependencies=[Depends(reject_unknown_parameters)])

    @router.get("/search.atom", summary="A search's feed", operation_id="searchFeed",
                response_class=Response)
    def search_feed(request: Request, params: SearchParams = Depends(search_params),
                    lang: LangParam = None) -> Response:
        params = replace(params, include=frozenset())  # a feed draws no facets, no trend
        if "sort" not in request.query_params:
            params = replace(params, sort="date")
        results = search_view(_pf(request), params)["results"]
        described = _described(params)
        sort = [("sort", params.sort)] if params.sort != "relevance" else []
        return _feed(request, results,
                     lambda t: t("feed_search", q=described) if described else t("feed_search_all"),
                     "/", sort)

    @router.get("/authors/{author_id}.atom", summary="An author's feed", operation_id="authorFeed",
                response_class=Response, responses={**NOT_FOUND, **MOVED})
    def author_feed(request: Request, author_id: AuthorPath, since: SinceParam = None,
                    sort: ListSortParam = "date", lang: LangParam = None) -> Response:
        slug = renamed_author(_pf(request), author_id)
        if slug is not None:
            return sent_on(request, f"/feeds/authors/{quote(slug, safe='')}.atom")
        author = author_view(_pf(request), author_id, since=since)
        return _feed(request, author["papers"][:AUTHOR_FEED_ENTRIES],
                     lambda t: t("feed_author", name=author["name"]),
                     "/authors/" + quote(author["id"], safe=""))

    @router.get("/institutions/{slug}.atom", summary="An institution's feed",
                operation_id="institutionFeed", response_class=Response,
                responses={**NOT_FOUND, **INSTITUTION_MOVED})
    def institution_feed(request: Request, slug: InstitutionPath,
                         paging: Paging = Depends(paging_params), since: SinceParam = None,
                         sort: ListSortParam = "date", lang: LangParam = None) -> Response:
        renamed = renamed_institution(_pf(request), slug)
        if renamed is not None:
            return sent_on(request, f"/feeds/institutions/{quote(renamed, safe='')}.atom")
        inst = institution_view(_pf(request), slug, paging, since=since)
        return _feed(request, inst["papers"], lambda t: t("feed_institution", name=inst["name"]),
                     "/institutions/" + quote(inst["slug"], safe=""))

    @router.get("/venues/{slug}.atom", summary="A venue's feed, or a venue-year's",
                operation_id="venueFeed", response_class=Response, responses=NOT_FOUND)
    def venue_feed(request: Request, slug: VenuePath, year: YearParam = None,
                   paging: Paging = Depends(paging_params), lang: LangParam = None) -> Response:
        venue = venue_view(_pf(request), slug, year, paging)
        name = f"{venue['name']} {year}" if year else venue["name"]
        return _feed(request, venue["papers"], lambda t: t("feed_venue", name=name),
                     "/venues/" + quote(venue["slug"], safe=""))

    @router.get("/areas/{name:path}.atom", summary="An area's feed", operation_id="areaFeed",
                response_class=Response, responses=NOT_FOUND)
    def area_feed(request: Request, name: AreaPath, paging: Paging = Depends(paging_params),
                  lang: LangParam = None) -> Response:
        area = area_view(_pf(request), name, paging)
        return _feed(request, area["papers"], lambda t: t("feed_area", name=area["name"]),
                     "/areas/" + quote(area["name"], safe=""))

    return router


