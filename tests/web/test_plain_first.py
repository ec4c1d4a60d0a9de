"""A plain search is answered before FastAPI's layers when its telemetry is off (the default:
`Settings.telemetry`), and inside them when it is on; every other request goes through them
(issue 33, web35: FastAPI's telemetry check alone was ~30 µs of every request's HTTP layer).
A real uvicorn server with the portal's options over the tests' database."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from fastapi import FastAPI

from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.web.conftest import serve


@pytest.fixture
def fastapi_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The query strings of the requests that went through FastAPI's own `__call__` (its
    telemetry check, Starlette's app and middlewares), counted on the way through."""
    calls: list[str] = []
    through = FastAPI.__call__

    async def counted(self, scope, receive, send):
        if scope["type"] == "http":
            calls.append(scope["query_string"].decode())
        await through(self, scope, receive, send)

    monkeypatch.setattr(FastAPI, "__call__", counted)
    return calls


def _answer(response) -> dict:
    assert response.status_code == 200, response.text
    answer = response.json()
    answer.pop("took_ms")
    return answer


def test_a_plain_search_skips_fastapis_layers_with_telemetry_off(portal_db, fastapi_calls):
    pf = Paperfind(Settings(db_path=portal_db, semantic=False))
    assert pf.settings.telemetry is False
    with serve(pf) as portal:
        plain = _answer(portal.get("/api/search", params={"q": "learning", "size": 5, "mode": "lexical"}))
        assert fastapi_calls == []
        assert plain["results"] and plain["feed"] == "/feeds/search.atom?q=learning&size=5&mode=lexical"
        # a filter, a refused value, a language, a HEAD: FastAPI's way, as before
        assert portal.get("/api/search", params={"q": "learning", "venue": "colm"}).status_code == 200
        assert portal.get("/api/search", params={"q": "learning", "size": 0}).status_code == 422
        assert portal.get("/api/search", params={"q": "learning", "lang": "zh"}).status_code == 422  # unknown to the API
        assert portal.client.head("/api/search", params={"q": "learning"}).status_code == 200
        assert len(fastapi_calls) == 4, fastapi_calls
        # asked FastAPI's way (`explain=false`, its default, is not a plain parameter): the same
        declared = _answer(portal.get("/api/search", params={"q": "learning", "size": 5, "mode": "lexical",
                                                             "explain": "false"}))
        assert declared == plain


def test_with_telemetry_on_a_plain_search_is_answered_inside_fastapis_layers(portal_db, fastapi_calls):
    off = Paperfind(Settings(db_path=portal_db, semantic=False))
    on = Paperfind(replace(off.settings, telemetry=True))
    params = {"q": "learning", "size": 5, "mode": "lexical"}
    with serve(off) as portal:
        quick = _answer(portal.get("/api/search", params=params))
    with serve(on) as portal:
        inside = _answer(portal.get("/api/search", params=params))
    assert fastapi_calls == ["q=learning&size=5&mode=lexical"]
    assert inside == quick


def test_a_served_request_makes_no_access_line(portal_db, monkeypatch):
    """uvicorn's access log is off in the portal's options: it logs at warnings only, and uvicorn
    still made each request's line (the client's address, the path quoted again) before its
    logger dropped it."""
    import uvicorn.protocols.http.httptools_impl as httptools_impl

    made: list[object] = []
    quoted = httptools_impl.get_path_with_query_string
    monkeypatch.setattr(httptools_impl, "get_path_with_query_string",
                        lambda scope: made.append(scope) or quoted(scope))
    with serve(Paperfind(Settings(db_path=portal_db, semantic=False))) as portal:
        assert portal.get("/api/search", params={"q": "learning"}).status_code == 200
        assert portal.get("/api/stats").status_code == 200
    assert made == []
    assert not logging.getLogger("uvicorn.access").handlers
