"""Every page's JSON twin, addressed from the page's own request (datasette's `path_with_format`).

Page routes build no URL: `Pages.page` looks the matched route up in `TWINS`, and the twin's URL
is the request path under the twin's prefix, with the page's query when the twin takes one. The
page names it twice, in its `<link rel="alternate">` and in a `Link` header, so a client finds
the data without parsing HTML. `lang` picks a page's interface language only: no twin carries
it, and the page's own links drop it."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode

from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute
from starlette.requests import Request

LANGUAGE_PARAM = "lang"


@dataclass(frozen=True)
class Twin:
    """Where a page's data is: `path` (default: `/api` + the page's own path), and whether the
    twin is asked the page's query (paging, filters) or is the same whatever the query."""

    path: str | None = None
    query: bool = True


# page route -> its twin; every HTML page is in this table
TWINS: dict[str, Twin] = {
    "/": Twin("/api/search"),  # the results; a first visit shows HOME_TWIN's data instead
    "/papers/{key}": Twin(query=False),  # ?aspect= picks the similar list, which has its own link
    "/authors/{author_id}": Twin(),  # since, sort
    "/institutions/{slug}": Twin(),
    "/venues/{slug}": Twin(),
    "/areas/{name:path}": Twin(),
    "/stats": Twin(query=False),
    "/docs": Twin("/openapi.json", query=False),
    "/trend": Twin("/api/search/trend"),
    "/experts": Twin("/api/experts"),  # who works on this: the same parameters  # the chart alone, as an HTML fragment
}
HOME_TWIN = Twin("/api/stats", query=False)  # the home page without a query: what is indexed


def page_query(request: Request) -> list[tuple[str, str]]:
    """The request's query parameters the page's route knows, in order and repeated ones kept,
    without `lang`: a parameter it does not know (utm_source=...) opens the page but is carried
    into none of its links, so its JSON twin (which refuses unknown parameters) opens too."""
    from paperfind.web.params import known_parameters

    route = request.scope.get("route")
    known = known_parameters(route) if isinstance(route, APIRoute) else None
    return [(k, v) for k, v in request.query_params.multi_items()
            if k != LANGUAGE_PARAM and (known is None or k in known)]


def query_string(pairs: list[tuple[str, object]]) -> str:
    """`?a=1&b=2`, or "" for no parameters."""
    return "?" + urlencode(pairs) if pairs else ""


def twin_url(request: Request, twin: Twin | None = None) -> str:
    """The URL of the JSON twin of the page `request` asks for (its row of `TWINS` unless
    `twin` is given): path parameters quoted as the portal's own links quote them."""
    if twin is None:
        twin = TWINS[request.scope["route"].path]
    path = twin.path or "/api" + quote(request.url.path, safe="/:")
    return path + (query_string(page_query(request)) if twin.query else "")


def link_header(url: str) -> str:
    return f'<{url}>; rel="alternate"; type="application/json"'


def sent_on(request: Request, path: str) -> RedirectResponse:
    """A 308 to `path` with the request's query as it came: an address that names a thing by
    another of its names (an old numeric person id, an institution's name written out) is sent
    on to the thing's one address, its paging and filters kept."""
    query = request.url.query
    return RedirectResponse(path + ("?" + query if query else ""), status_code=308)
