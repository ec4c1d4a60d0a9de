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

from paperfind.core import Paperfind
from paperfind.web.apidocs import build_docs_router
from paperfind.web.errors import install_error_handlers
from paperfind.web.middleware import PortalMiddleware
from paperfind.web.render import STATIC_DIR, Pages
from paperfind.web.routes_api import build_api_router
from paperfind.web.routes_pages import build_page_router

DESCRIPTION = """Search academic papers by title, author or keyword (中文 / English).

Every page of the portal has a JSON twin here. All errors have one shape:
`{"error": {"status": 404, "code": "not_found", "message": "..."}}`. Read-only: GET only."""


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
        if on_ready is not None:
            on_ready(time.perf_counter() - started)
        yield

    app = FastAPI(title="paperfind", version="0.1.0", description=DESCRIPTION,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json", lifespan=lifespan)
    app.state.paperfind = paperfind
    app.state.warm = {}
    app.state.pages = pages
    install_error_handlers(app, pages.error_page)
    app.include_router(build_api_router(paperfind))
    app.include_router(build_page_router(paperfind, pages))
    app.include_router(build_docs_router(app, pages))
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(PortalMiddleware)
    return app
