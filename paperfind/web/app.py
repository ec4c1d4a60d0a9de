"""The web application: `create_app(paperfind)` builds the FastAPI app around one `Paperfind`.

Nothing is opened at import time; the app holds its `Paperfind` in `app.state`, so two apps
over two databases can live in one process (the tests do this).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from paperfind import __version__
from paperfind.core import Paperfind
from paperfind.web.apidocs import build_docs_router
from paperfind.web.errors import install_error_handlers
from paperfind.web.middleware import PortalMiddleware
from paperfind.web.render import STATIC_DIR, Pages
from paperfind.web.routes_api import build_api_router
from paperfind.web.routes_pages import build_page_router
from paperfind.web.routes_trend import build_trend_router

DESCRIPTION = """Search academic papers by title, author or keyword (中文 / English).

Every page of the portal has a JSON twin here. Every list of papers is made of one card
(`PaperCard`: key, title, authors with their ids, institutions, venue, year, status, track, area,
citations, links, versions), plus what a list adds (a search result's `score` and
`highlights`, a similar paper's `reasons`). A person's id is their slug (`huishuai-zhang`); a
work with several versions is shown by its best one. All errors have one shape:
`{"error": {"status": 404, "code": "not_found", "message": "..."}}`. Read-only: GET only."""


def create_app(paperfind: Paperfind) -> FastAPI:
    app = FastAPI(title="paperfind", version=__version__, description=DESCRIPTION,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.state.paperfind = paperfind
    pages = Pages()
    app.state.pages = pages
    install_error_handlers(app, pages.error_page)
    app.include_router(build_api_router(paperfind))
    app.include_router(build_page_router(paperfind, pages))
    app.include_router(build_trend_router(pages))
    app.include_router(build_docs_router(app, pages))
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(PortalMiddleware)
    return app
