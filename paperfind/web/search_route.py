"""/api/search's route: the requests a search box and the portal's pages send read directly.

FastAPI resolves a route's parameters by validating each declared one against its field
(sixteen for a search, with the router's check for unknown names): ~0.45 ms a request, half of
what the HTTP layer spent beyond the searcher at the bundled corpus (issue 33). Nearly every
search is `q` with a page, a size, a mode, a sort and `include=`, whose valid values are plain:
for those the route reads them here and calls the same `search_params` and the same endpoint.
Anything else (another parameter, a repeated one, a value that is not plainly valid) goes the
whole FastAPI way, so its answer, and every error, is what it was. The route's declared
parameters are unchanged, and with them the OpenAPI document.

A plain request is answered before any of that, too: FastAPI's and Starlette's layers between
the portal's middleware and the endpoint (the exception middleware, the exit stack, the
router's matching, the route's handler, a `Request`, the response object and its headers
rewritten by a send wrapper) were ~0.2 ms of the ~0.4 ms a request spent in process beyond its
search (bench/RESULTS.md, issue 33, web33i). `plain_search_answer` gives the body of the same
answer from the scope alone, and the middleware sends it (paperfind.web.middleware). The
search's working objects and the answer's dict are freed after it is sent, not before: freeing
them took ~0.1 ms of a fresh query (`Searcher.search`'s `leftovers`).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Coroutine, get_args
from urllib.parse import unquote_plus

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.types import Scope

from paperfind.limits import MAX_PAGE, MAX_PAGE_SIZE
from paperfind.web.fastjson import dumps
from paperfind.web.feeds import search_feed_url
from paperfind.web.params import Mode, Part, Sort, plain_search_params, search_params
from paperfind.web.searching import search_view

_NUMBER = re.compile(r"[1-9][0-9]{0,5}")  # no sign, space or leading zero: those go FastAPI's way
_CHOICES = {"mode": frozenset(get_args(Mode)), "sort": frozenset(get_args(Sort))}
_PARTS = frozenset(get_args(Part))
_BOUNDS = {"page": MAX_PAGE, "size": MAX_PAGE_SIZE}
MAX_PARTS = 3  # include= is declared with max_length=3
SEARCH_PATH = "/api/search"
PLAIN_NAMES = frozenset({"q", "page", "size", "mode", "sort", "include"})


def plain_search_query(pairs: list[tuple[str, str]]) -> tuple[dict[str, Any], list[str] | None] | None:
    """(the arguments of `search_params`, the `include` list) of a query string's pairs when
    each is one `search_params` would take as it is; None when any needs FastAPI's validation
    (an unknown or repeated parameter, a number out of bounds, a value not among the choices)."""
    args: dict[str, Any] = {}
    include: list[str] | None = None
    for name, value in pairs:
        if name == "include":
            include = (include or []) + [value]
            if value not in _PARTS or len(include) > MAX_PARTS:
                return None
            continue
        if name in args:
            return None
        if name == "q":
            args["q"] = value
        elif name in _BOUNDS:
            if not _NUMBER.fullmatch(value) or int(value) > _BOUNDS[name]:
                return None
            args[name] = int(value)
        elif name in _CHOICES and value in _CHOICES[name]:
            args[name] = value
        else:
            return None
    return args, include


class SearchRoute(APIRoute):
    """An APIRoute whose plain requests skip FastAPI's parameter resolution (module doc); its
    endpoint takes (request, params, include) as the declared dependencies give them."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        declared = super().get_route_handler()
        endpoint = self.endpoint

        async def handler(request: Request) -> Response:
            plain = plain_search_query(request.query_params.multi_items())
            if plain is None:
                return await declared(request)
            args, include = plain
            return await endpoint(request, params=await search_params(**args), include=include)

        return handler


async def plain_search_answer(scope: Scope, leftovers: list) -> bytes | None:
    """The JSON body of /api/search's answer to the GET of `scope` when its parameters are
    plain (`plain_search_query`) and the search is local: what the route's endpoint answers
    (the same `search_params`, `search_view`, feed and encoder), read from the scope alone.
    None for any other request, which the route answers; an exception (a search unavailable)
    is the caller's to hand to the route too, which answers it with its error. What the
    search worked with, and the answer's dict, are put in `leftovers` for the caller to free
    once it has sent the body."""
    if scope["path"] != SEARCH_PATH or scope["method"] != "GET":
        return None
    written = plain_segments(scope["query_string"].decode("latin-1"))
    if written is None:
        return None
    pairs = [(name, unquote_plus(value) if name == "q" else value)
             for name, _, value in (segment.partition("=") for segment in written)]
    plain = plain_search_query(pairs)
    pf = scope["app"].state.paperfind
    if plain is None or pf.settings.backend != "local":  # Milvus answers from the thread pool
        return None
    data = search_view(pf, plain_search_params(*plain), leftovers)
    leftovers.append(data)
    return dumps({**data, "feed": search_feed_url(pairs, written)})


def plain_segments(query: str) -> list[str] | None:
    """The `name=value` segments of a query string whose names are written plainly and are
    among those a plain search takes, or None (a name escaped, or without `=`: the route reads
    those, with the same answer). Only `q`'s value is then decoded, as `parse_qsl` decodes it:
    any other value is taken only when it is a plain number or word (`plain_search_query`),
    which no escape writes, so each pair is the one `parse_qsl` makes, read with less work."""
    written = [segment for segment in query.split("&") if segment]
    for segment in written:
        name, equals, _ = segment.partition("=")
        if not equals or name not in PLAIN_NAMES:
            return None
    return written
