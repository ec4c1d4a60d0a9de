"""The HTTP connection as uvicorn parses it, with the request's size bounded before parsing.

uvicorn's httptools parser keeps the offsets of a URL's parts in 16 bits: a query string of
65,536 bytes reached the app as an empty one (a 200 for what should be refused), and a path
padded the same way was seen shorter by the app than by a proxy in front. The middleware's
limits (paperfind.web.middleware) only see what the parser made of the request, so the request
line and the head are bounded here, as the bytes arrive: a target longer than any the portal
links to is a 414 before it is parsed, a head longer than its limits a 431 before it is read in
full (an 8 MB header was read before). A request the parser refuses (invalid bytes in the
request line) gets the same JSON error shape and security headers as every other answer.
"""

from __future__ import annotations

import json

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from paperfind.web.errors import STATUS_CODES, error_body
from paperfind.web.middleware import MAX_HEADER_BYTES, MAX_QUERY_STRING_BYTES, SECURITY_HEADERS

MAX_PATH_BYTES = 8192  # the longest of the portal's paths is a few hundred bytes
MAX_TARGET_BYTES = MAX_PATH_BYTES + MAX_QUERY_STRING_BYTES
# the request line and the headers together; a read of pipelined requests is at most 64 KiB
MAX_HEAD_BYTES = MAX_TARGET_BYTES + MAX_HEADER_BYTES + 16_384
REASONS = {400: "Bad Request", 414: "URI Too Long", 431: "Request Header Fields Too Large"}


class Refused(Exception):
    """Raised inside a parser callback to stop parsing a request that is refused."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def refusal(status: int, message: str) -> bytes:
    """The whole HTTP response refusing a request: the portal's JSON error shape and headers."""
    body = json.dumps(error_body(status, STATUS_CODES.get(status, "error"), message)).encode()
    lines = [f"HTTP/1.1 {status} {REASONS[status]}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close"]
    lines += [f"{name}: {value}" for name, value in SECURITY_HEADERS.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class PortalHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the request line and head bounded (`http=` of uvicorn)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._in_body = False
        self._head_ended = False  # a head ended in the bytes being parsed

    def data_received(self, data: bytes) -> None:
        # what the parser is fed is one read (at most 256 KiB): fed first, so a long target is
        # named as such (414) before the head's length is (431)
        counted = not self._in_body
        self._head_ended = False
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:  # as uvicorn handles it (no websockets here)
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        except httptools.HttpParserError as exc:
            cause = exc.__context__
            self._refuse(cause if isinstance(cause, Refused) else
                         Refused(400, "malformed HTTP request (the request line or a header is not "
                                      "valid HTTP, or the path is not ASCII)"))
            return
        # bytes whose head ended are not head bytes beyond it: a small request whose head, body
        # and end arrive in one read (a 100 KB body) was counted whole and answered 431
        if counted and not self._in_body and not self._head_ended:
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse(Refused(431, f"the request line and headers are longer than "
                                          f"{MAX_HEAD_BYTES:,} bytes"))

    def _refuse(self, refused: Refused) -> None:
        self.logger.info("refused a request before parsing it: %s", refused.message)
        if not self.transport.is_closing():
            self.transport.write(refusal(refused.status, refused.message))
            self.transport.close()

    def on_url(self, url: bytes) -> None:
        if len(self.url) + len(url) > MAX_TARGET_BYTES:
            raise Refused(414, f"the request target (path and query string) is longer than "
                               f"{MAX_TARGET_BYTES:,} bytes")
        super().on_url(url)

    def on_headers_complete(self) -> None:
        self._in_body, self._head_bytes, self._head_ended = True, 0, True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_body = False
        super().on_message_complete()
