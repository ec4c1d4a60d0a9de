"""What every response gets: security headers, the remembered language, and the catch-all.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware) so it costs almost nothing per
request and can still answer with the error shape when a route raised before responding.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperfind.web.errors import internal_error
from paperfind.web.i18n import COOKIE, LANGUAGES

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
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600


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
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            if started:
                raise
            response = internal_error(Request(scope), exc)
            await response(scope, receive, send_with_headers)
