"""One error shape for every failure: `{"error": {"status", "code", "message"}}`.

API clients get it as JSON whatever went wrong (unknown id, bad parameter, unknown route, a
bug); people get the same status, code and message on an HTML page in their language. A user's
mistake is a 4xx with a message naming the parameter; only our own bugs are 500s, and those
are logged with their traceback and answered without one.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from paperfind.milvus.client import MilvusError, MilvusUnavailable

# a search engine that cannot answer (a Milvus cluster down, unreachable, or without its
# collection): not the user's mistake and not a bug of ours
BackendUnavailable = (MilvusUnavailable, MilvusError)

log = logging.getLogger("paperfind.web")

STATUS_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed",
                406: "not_acceptable", 413: "too_large", 414: "uri_too_long", 422: "invalid_parameter",
                431: "headers_too_large",
                500: "internal_error", 503: "unavailable"}


class WebError(Exception):
    """A failure with a status and a message meant for the user (never a traceback); `links`
    are (path, label) pairs the HTML page offers as ways on (the message names them for JSON)."""

    def __init__(self, status: int, code: str, message: str,
                 links: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.links = links


def not_found(message: str, links: tuple[tuple[str, str], ...] = ()) -> WebError:
    return WebError(404, "not_found", message, links)


def error_body(status: int, code: str, message: str) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message}}


def wants_json(request: Request) -> bool:
    """API routes and feeds always answer JSON; pages answer HTML unless the client asks only
    for JSON."""
    path = request.url.path
    if path.startswith(("/api/", "/feeds/")) or path == "/api" or path.endswith(".json"):
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def validation_message(exc: RequestValidationError) -> str:
    """'size: must be ≤ 100' rather than pydantic's nested error list."""
    parts = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p not in ("query", "path", "body")]
        name = ".".join(loc) or "request"
        value = err.get("input")
        shown = f" (got {str(value)[:60]!r})" if isinstance(value, (str, int, float)) else ""
        parts.append(f"parameter '{name}': {err.get('msg', 'invalid value')}{shown}")
    return "; ".join(parts) or "invalid request"


ErrorPage = Callable[..., Response]  # (request, status, code, message, links=()) -> page


def install_error_handlers(app: FastAPI, error_page: ErrorPage) -> None:
    """Route every error through `respond`, which picks JSON or the HTML error page."""

    def respond(request: Request, status: int, code: str, message: str,
                links: tuple[tuple[str, str], ...] = ()) -> Response:
        if wants_json(request):
            return JSONResponse(error_body(status, code, message), status_code=status)
        return error_page(request, status, code, message, links)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> Response:
        return respond(request, exc.status, exc.code, exc.message, exc.links)

    async def _unavailable(request: Request, exc: Exception) -> Response:
        # the search engine (a Milvus cluster) is down or unreachable: the page says so, the API
        # answers 503, and a client may retry; nothing of ours is broken, so no traceback
        # what went wrong (the engine's own error text, its address) is for the log: a client
        # is told what it can do
        log.warning("search backend unavailable on %s: %s", request.url.path, exc)
        response = respond(request, 503, "unavailable",
                           "search is unavailable right now; try again in a moment")
        response.headers["Retry-After"] = "10"
        return response

    for exc_class in BackendUnavailable:
        app.add_exception_handler(exc_class, _unavailable)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        return respond(request, 422, "invalid_parameter", validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = STATUS_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path}"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed here; this site is read-only (GET only)"
        response = respond(request, exc.status_code, code, message)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    app.state.respond_error = respond


def internal_error(request: Request, exc: BaseException) -> Response:
    """The catch-all: log the bug with its traceback, answer with the error shape."""
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    respond = request.app.state.respond_error
    try:
        return respond(request, 500, "internal_error", "internal error; it has been logged")
    except Exception:  # the HTML error page itself failed: fall back to JSON
        return JSONResponse(error_body(500, "internal_error", "internal error; it has been logged"),
                            status_code=500)
