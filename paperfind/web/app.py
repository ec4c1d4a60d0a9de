"""The web application: `create_app(paperfind)` builds the FastAPI app around one `Paperfind`.

Nothing is opened at import time; the app holds its `Paperfind` in `app.state`, so two apps
over two databases can live in one process (the tests do this).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.telemetry import TelemetryConfig
from starlette.types import Receive, Scope, Send

from paperfind import __version__
from paperfind.core import Paperfind
from paperfind.web.apidocs import build_docs_router
from paperfind.web.collector import settle_after_start_up
from paperfind.web.errors import install_error_handlers
from paperfind.web.middleware import PLAIN_TRIED, PortalMiddleware, answer_plain_search
from paperfind.web.render import STATIC_DIR, Pages
from paperfind.web.routes_api import build_api_router
from paperfind.web.routes_feeds import build_feed_router
from paperfind.web.routes_pages import build_page_router
from paperfind.web.routes_trend import build_trend_router
from paperfind.web.search_route import SEARCH_PATH

DESCRIPTION = """Search academic papers by title, author or keyword (中文 / English).

Every page of the portal has a JSON twin here. Every list of papers is made of one card
(`PaperCard`: key, title, authors with their ids, institutions, venue, year, status, track, area,
citations, links, versions), plus what a list adds (a search result's `score` and
`highlights`, a similar paper's `reasons`). A person's id is their slug (`huishuai-zhang`); a
work with several versions is shown by its best one. All errors have one shape:
`{"error": {"status": 404, "code": "not_found", "message": "..."}}`. Read-only: GET only."""


# requests the start-up makes of the app itself, in-process (the page and its JSON twin); the
# home page first, whose venue-year grid counts the corpus (0.45 s on a first visit otherwise)
WARM_UP_PATHS = ("/", "/?q=graph+neural+networks", "/api/search?q=%E8%81%94%E9%82%A6%E5%AD%A6%E4%B9%A0",
                 "/?q=venue%3Aiclr+year%3A2023", "/api/search?q=Yann+LeCun")


async def _get(app: FastAPI, path: str) -> int:
    """GET `path` of `app` through ASGI, without a socket; the response's status."""
    route, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": route, "raw_path": route.encode(), "root_path": "",
             "query_string": query.encode(), "headers": [(b"host", b"localhost")],
             "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 80)}
    status = 0

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


# FastAPI's own OpenTelemetry instrumentation, off unless the settings ask for it
TELEMETRY_OFF: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


class PortalApp(FastAPI):
    """The portal's FastAPI app, which answers a plain search (paperfind.web.search_route)
    before its own layers when its telemetry is off (`Settings.telemetry`, the default). Every
    request went through FastAPI's telemetry check (are OpenTelemetry providers configured?
    ~30 µs), Starlette's app and its error middleware before the portal's middleware answered
    it (issue 33, web35). With telemetry on, the middleware answers it, inside the telemetry's
    span. A request it leaves (not plain, refused, an error) goes every layer's way as before."""

    plain_first = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.plain_first and scope["type"] == "http" and scope["path"] == SEARCH_PATH:
            scope["app"] = self
            if await answer_plain_search(scope, send):
                return
            scope[PLAIN_TRIED] = True
        await super().__call__(scope, receive, send)


def create_app(paperfind: Paperfind, on_ready: Callable[[float], None] | None = None) -> FastAPI:
    """The app; its start-up (the ASGI lifespan, which uvicorn completes before it opens the
    port) warms everything the first queries need, then calls `on_ready(seconds it took)`."""
    pages = Pages()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # blocking on purpose: nothing is served before this returns, which is the point
        started = time.perf_counter()
        app.state.warm = paperfind.warm_up()
        for name in pages.env.list_templates():  # compiling a page's template took ~50 ms
            pages.env.get_template(name)
        # and the web's own first time (a request thread's database connection, parameter
        # validation, rendering): the very first request took 100-200 ms more than the next
        app.state.warm_requests = {path: await _get(app, path) for path in WARM_UP_PATHS}
        # what is loaded now lives as long as the server (index, vectors, model, dictionaries):
        # frozen, the collector's full passes skip it, instead of one walking it all during
        # some early request; and the young generation collected every young_threshold
        # allocations, not Python's 700: a search's objects die with its answer (lat33g). The
        # passes themselves are run between answers (paperfind.web.collector, the middleware)
        settle_after_start_up(paperfind.settings.collector.young_threshold)
        app.state.experts_warming = paperfind.warm_experts_in_background()
        if on_ready is not None:
            on_ready(time.perf_counter() - started)
        yield

    telemetry = paperfind.settings.telemetry
    app = PortalApp(title="paperfind", version=__version__, description=DESCRIPTION,
                    docs_url=None, redoc_url=None, openapi_url="/openapi.json", lifespan=lifespan,
                    telemetry=None if telemetry else TELEMETRY_OFF)
    app.plain_first = not telemetry
    app.state.paperfind = paperfind
    app.state.warm, app.state.warm_requests = {}, {}
    app.state.pages = pages
    install_error_handlers(app, pages.error_page)
    app.include_router(build_api_router(paperfind))
    app.include_router(build_feed_router())
    app.include_router(build_page_router(paperfind, pages))
    app.include_router(build_trend_router(pages))
    app.include_router(build_docs_router(app, pages))
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(PortalMiddleware)
    return app
