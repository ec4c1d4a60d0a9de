"""What every response gets: security headers, the remembered language, and the catch-all.

It is also where request size is bounded, before any route runs: the portal is read-only, so
a request with a body is refused (413), as are a query string or headers far beyond what any
page or client sends (414, 431; paperfind.web.protocol bounds them before parsing) and a
parameter whose %-escapes are not UTF-8 (422).

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware) so it costs almost nothing per
request and can still answer with the error shape when a route raised before responding. A
plain search (paperfind.web.search_route) is answered here, without the layers under it, when
FastAPI's telemetry is on; with it off (the default) the app answers it before any layer
(`answer_plain_search`, paperfind.web.app.PortalApp).
"""

from __future__ import annotations

from urllib.parse import parse_qs, unquote_to_bytes

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperfind.settings import CollectorSettings
from paperfind.web.errors import WebError, internal_error
from paperfind.web.i18n import COOKIE, LANGUAGES
from paperfind.web.search_route import SEARCH_PATH, plain_search_answer
from paperfind.web.tidy import tidy_after_answer

# No inline script anywhere (script-src 'self'); inline SVG charts need no style attributes.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                           "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
# the same headers as bytes, for an answer sent without a response object (`send_json`)
RAW_SECURITY_HEADERS = [(name.encode("latin-1"), value.encode("latin-1"))
                        for name, value in SECURITY_HEADERS.items()]
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600
# in a request's scope once the app has tried it as a plain search before its layers
# (paperfind.web.app.PortalApp): the middleware does not try it again
PLAIN_TRIED = "paperfind.plain_tried"
# 2,000 Chinese characters percent-encoded are 18,000 bytes; filters add a few hundred more.
MAX_QUERY_STRING_BYTES = 32_768
MAX_HEADER_BYTES = 32_768


def undecodable_parameter(query: bytes) -> WebError | None:
    """The error for a parameter whose %-escapes do not decode to UTF-8 (`q=%E4%B8`, half a
    character), or None. Decoded leniently it would be searched as U+FFFD, a query no one typed.

    The whole query string is decoded first, once (a few µs of every request, against that for
    each parameter apart): when it is UTF-8, each parameter is, since `&` and `=` are ASCII and
    a %-escape cannot span them; only otherwise is the culprit looked for."""
    try:
        unquote_to_bytes(query.replace(b"+", b" ")).decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    for pair in query.split(b"&"):
        for part in pair.partition(b"=")[::2]:
            try:
                unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError:
                name = unquote_to_bytes(pair.partition(b"=")[0]).decode("utf-8", "replace")[:60]
                shown = pair.decode("latin-1")[:80]
                return WebError(422, "invalid_parameter",
                                f"parameter '{name}': its %-escapes are not UTF-8 text (got {shown!r})")
    return None


def request_refused(scope: Scope) -> WebError | None:
    """The error for a request beyond our limits or not decodable, or None."""
    if len(scope.get("query_string", b"")) > MAX_QUERY_STRING_BYTES:
        return WebError(414, "uri_too_long",
                        f"the query string is longer than {MAX_QUERY_STRING_BYTES:,} bytes")
    headers = scope.get("headers", [])
    if sum(len(k) + len(v) for k, v in headers) > MAX_HEADER_BYTES:
        return WebError(431, "headers_too_large",
                        f"the request headers are longer than {MAX_HEADER_BYTES:,} bytes")
    for name, value in headers:
        if (name == b"content-length" and value.strip() not in (b"", b"0")) or name == b"transfer-encoding":
            return WebError(413, "too_large", "requests carry no body here; this site is read-only")
    return undecodable_parameter(scope.get("query_string", b""))


def requested_language(scope: Scope) -> str | None:
    """The `?lang=` of this request when it names one of our languages."""
    query = scope.get("query_string", b"").decode("latin-1")
    if "lang=" not in query:
        return None
    values = parse_qs(query).get("lang", [])
    return values[-1] if values and values[-1] in LANGUAGES else None


class PortalMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        remember = requested_language(scope)
        started = False
        head = scope.get("method") == "HEAD"
        if head:  # a HEAD is the GET without its body (monitors and link checkers send it)
            scope = {**scope, "method": "GET"}

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if remember:
                    headers.append("set-cookie", f"{COOKIE}={remember}; Path=/; "
                                   f"Max-Age={LANGUAGE_COOKIE_SECONDS}; SameSite=Lax")
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        refused = request_refused(scope)
        if refused is not None:
            request = Request(scope)
            response = request.app.state.respond_error(request, refused.status, refused.code,
                                                       refused.message)
            response.headers["connection"] = "close"
            await response(scope, receive, send_with_headers)
            return
        if scope["path"] == SEARCH_PATH and not head and not remember and PLAIN_TRIED not in scope:
            if await answer_plain_search(scope, send, checked=True):
                return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            if started:
                raise
            response = internal_error(Request(scope), exc)
            await response(scope, receive, send_with_headers)
        tidy_after_answer(serving_collector(scope))


async def answer_plain_search(scope: Scope, send: Send, checked: bool = False) -> bool:
    """Answer a plain search (paperfind.web.search_route) of a GET that is not refused and asks
    for no language (`checked`: the caller has seen to both), and say whether it was answered:
    anything else, and any exception while answering, is left to the route, which answers it
    with the error it makes. The search's leftovers are freed once the answer is written
    (paperfind.web.tidy)."""
    if not checked and (scope["method"] != "GET" or requested_language(scope)
                        or request_refused(scope) is not None):
        return False
    leftovers: list = []
    try:
        body = await plain_search_answer(scope, leftovers)
    except Exception:
        body = None
    if body is None:
        return False
    await send_json(send, body)
    tidy_after_answer(serving_collector(scope), leftovers)  # once it is read
    return True


def serving_collector(scope: Scope) -> CollectorSettings | None:
    """How the server collects after an answer (`Settings.collector`: paperfind.web.collector,
    paperfind.web.tidy); None for an app without a `Paperfind`."""
    paperfind = getattr(scope["app"].state, "paperfind", None) if "app" in scope else None
    return paperfind.settings.collector if paperfind is not None else None


async def send_json(send: Send, body: bytes) -> None:
    """A 200 of JSON `body`, with the headers a `FastJSONResponse` of it gets through this
    middleware (its length and type, then the security headers)."""
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode("latin-1")),
                            (b"content-type", b"application/json"), *RAW_SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})
