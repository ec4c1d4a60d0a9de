"""/api/search reads its plain requests without FastAPI's parameter resolution (issue 33: the
HTTP layer's cost) and answers them, and every other request, as the declared parameters do."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Coroutine, get_args

import pytest

from paperfind.limits import MAX_PAGE, MAX_PAGE_SIZE
from paperfind.web.params import Mode, Part, Sort
from paperfind.web.search_route import MAX_PARTS, plain_search_query
from tests.web.test_api import assert_error

SAME = ("query", "total", "results", "authors", "facets", "suggestion", "mode", "trend", "counts",
        "understood", "with_citations", "paging", "filters", "sort")


def test_plain_requests_are_read_and_the_others_left_to_fastapi():
    assert plain_search_query([("q", "attention is all you need"), ("size", "20"), ("page", "3"),
                               ("mode", "lexical"), ("sort", "date"), ("include", "facets"),
                               ("include", "trend")]) == (
        {"q": "attention is all you need", "size": 20, "page": 3, "mode": "lexical", "sort": "date"},
        ["facets", "trend"])
    assert plain_search_query([]) == ({}, None)
    assert plain_search_query([("q", "")]) == ({"q": ""}, None)
    for pairs in ([("q", "a"), ("q", "b")], [("limit", "5")], [("venue", "iclr")],
                  [("size", "0")], [("size", "101")], [("size", "020")], [("size", " 2")],
                  [("size", "+2")], [("page", "10001")], [("mode", "fast")], [("sort", "")],
                  [("include", "authors")], [("include", "none")] * 4):
        assert plain_search_query(pairs) is None, pairs


@pytest.mark.parametrize("plain", [
    {"q": "learning", "size": 5, "mode": "lexical"},
    {"q": "learning", "page": 2, "size": 3, "sort": "date", "include": ["facets"]},
    {"q": "author:levine robot", "size": 4, "include": ["none"]},
    {"q": "", "size": 2},
])
def test_a_plain_request_answers_as_the_declared_parameters_do(portal, plain):
    """The same search asked with `q` twice (the last one counts) goes FastAPI's way."""
    fast = portal.get("/api/search", params=plain)
    declared = portal.get("/api/search", params=[("q", "not this one"), *(
        (k, v) for k, vs in plain.items() for v in (vs if isinstance(vs, list) else [vs]))])
    assert fast.status_code == declared.status_code == 200
    assert {k: fast.json()[k] for k in SAME} == {k: declared.json()[k] for k in SAME}


def test_invalid_and_unknown_parameters_are_refused_as_before(portal):
    get = portal.get
    assert_error(get("/api/search", params={"q": "x", "size": 0}), 422, "invalid_parameter", "'size'")
    assert_error(get("/api/search", params={"q": "x", "size": 101}), 422, "invalid_parameter", "'size'")
    assert_error(get("/api/search", params={"q": "x", "mode": "fast"}), 422, "invalid_parameter", "'mode'")
    assert_error(get("/api/search", params={"q": "x", "limit": 5}), 422, "unknown_parameter", "'size'")
    assert_error(get("/api/search", params={"q": "x", "include": ["facets"] * 4}), 422,
                 "invalid_parameter", "'include'")


def test_the_parameters_read_directly_are_declared_as_the_route_reads_them(portal):
    """The plain reading mirrors the declared constraints of q, page, size, mode, sort and
    include: a constraint added to one of them in `search_params` (a length, a pattern, a new
    choice) must be added to `plain_search_query` too, or its plain requests would skip it.
    This fails on such a change and names the parameter."""
    declared = {p["name"]: p["schema"] for p in
                portal.get("/openapi.json").json()["paths"]["/api/search"]["get"]["parameters"]}
    mirrored = {"q": {"type": "string", "default": ""},
                "page": {"type": "integer", "maximum": MAX_PAGE, "minimum": 1, "default": 1},
                "size": {"type": "integer", "maximum": MAX_PAGE_SIZE, "minimum": 1, "default": 20},
                "sort": {"enum": sorted(get_args(Sort))},
                "mode": {"enum": sorted(get_args(Mode))},
                "include": {"enum": sorted(get_args(Part)), "maxItems": MAX_PARTS}}
    for name, expected in mirrored.items():
        schema = json.dumps(declared[name], sort_keys=True)
        for key, value in expected.items():
            found = _find(declared[name], key)
            assert found is not None, (name, key, schema)
            assert (sorted(found) if isinstance(value, list) else found) == value, (name, key, schema)
        for key in ("maxLength", "minLength", "pattern"):
            assert _find(declared[name], key) is None, (name, key, schema)


def _find(schema, key):
    """The first value of `key` anywhere in a JSON schema (anyOf, items, ... included)."""
    if isinstance(schema, dict):
        if key in schema:
            return schema[key]
        schema = list(schema.values())
    if isinstance(schema, list):
        for part in schema:
            if (found := _find(part, key)) is not None:
                return found
    return None


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """`coroutine` run to its end on an event loop of its own thread: a test of the same xdist
    worker may have left its thread's loop running (Playwright's sync API does), and
    `asyncio.run` refuses to start under a running loop."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def _asgi_get(app, path: str, method: str = "GET"):
    """(status, headers, body) of `path` asked of `app` through ASGI, without a socket."""

    route, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": route, "raw_path": route.encode(), "root_path": "",
             "query_string": query.encode(), "headers": [(b"host", b"localhost")],
             "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 80), "app": app}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    _run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], start["headers"], b"".join(m.get("body", b"") for m in sent
                                                      if m["type"] == "http.response.body")


def test_a_plain_search_is_answered_from_the_scope_as_the_route_answers_it(portal):
    """`plain_search_answer` makes the body of a plain GET of /api/search itself (the middleware
    sends it without FastAPI's layers); the same search sent FastAPI's way (with `explain=false`,
    its default, which a plain request does not carry) has the same headers and body, to the
    byte but for the search's time. Served from Milvus (CI's second run), the route answers
    every search: nothing is made from the scope, and the two ways still agree."""
    from paperfind.web.app import create_app
    from paperfind.web.search_route import plain_search_answer

    app = create_app(portal.paperfind)
    local = portal.paperfind.settings.backend == "local"
    written_as_urlencode = ("q=learning&size=5&mode=lexical", "q=%E5%AD%A6%E4%B9%A0&include=none",
                            "q=author%3Alevine+robot&page=2&size=3&sort=date&include=facets", "q=")
    # kept in the feed as urlencode writes them, not as sent: ~ escaped, an escape in small
    # letters, * unescaped, a space as %20, a name escaped (the route reads that one)
    written_otherwise = ("q=a%7Eb&size=3", "q=%e5%ad%a6&mode=lexical", "size=2&q=x*y", "q=deep%20nets",
                         "%71=learning&size=2")
    for query in written_as_urlencode + written_otherwise:
        scope = {"type": "http", "method": "GET", "path": "/api/search",
                 "query_string": query.encode(), "app": app}
        leftovers: list = []
        body = _run(plain_search_answer(scope, leftovers))
        if local and not query.startswith("%"):
            assert body is not None and leftovers, query
        else:
            assert body is None and not leftovers, query
        status, headers, fast = _asgi_get(app, f"/api/search?{query}")
        declared = _asgi_get(app, f"/api/search?{query}&explain=false")
        assert status == declared[0] == 200
        answers = [json.loads(b) for b in (fast, declared[2], body or fast)]
        fast_json, declared_json, body_json = answers
        for answer in answers:
            answer.pop("took_ms")
        assert fast_json == declared_json == body_json, query
        if query in written_as_urlencode:
            assert fast_json["feed"] == "/feeds/search.atom?" + "&".join(
                p for p in query.split("&") if p.split("=")[0] in ("q", "size", "mode")), query
        assert [h for h in headers if h[0] != b"content-length"] == \
            [h for h in declared[1] if h[0] != b"content-length"]
        assert dict(headers)[b"content-length"] == str(len(fast)).encode()


def test_other_requests_are_left_to_the_route(portal):
    """Not answered from the scope: another path, a HEAD, a parameter the plain reading leaves
    to FastAPI (an unknown one, a filter, `lang`, a bad value). Those still answer as before."""
    from paperfind.web.app import create_app
    from paperfind.web.search_route import plain_search_answer

    app = create_app(portal.paperfind)
    for method, path, query in (("GET", "/api/search", "q=x&limit=5"), ("GET", "/api/search", "q=x&venue=colm"),
                                ("GET", "/api/search", "q=x&lang=zh"), ("GET", "/api/search", "q=x&size=0"),
                                ("HEAD", "/api/search", "q=x"), ("GET", "/search", "q=x"),
                                ("GET", "/api/search/export", "q=x")):
        scope = {"type": "http", "method": method, "path": path, "query_string": query.encode(), "app": app}
        assert _run(plain_search_answer(scope, [])) is None, (method, path, query)
    status, headers, body = _asgi_get(app, "/api/search?q=learning", method="HEAD")
    assert status == 200 and body == b"" and (b"x-frame-options", b"DENY") in headers
    assert _asgi_get(app, "/api/search?q=learning&limit=5")[0] == 422


def test_a_plain_query_string_is_read_as_parse_qsl_reads_it():
    """`plain_segments` takes a query string whose names are written plainly; the pairs the
    plain answer reads from it are `parse_qsl`'s, and its feed's query is what `urlencode`
    writes of them, reused as written only when it is written so."""
    import random
    from urllib.parse import parse_qsl, quote, unquote_plus, urlencode

    from paperfind.web.feeds import search_feed_url
    from paperfind.web.search_route import plain_segments

    assert plain_segments("q=a+b&&size=3&") == ["q=a+b", "size=3"]
    assert plain_segments("") == []
    for query in ("q", "q=a&size", "%71=a", "Q=a", "q=a&venue=iclr", "q=a&lang=zh"):
        assert plain_segments(query) is None, query
    rng = random.Random(33)
    alphabet = "ab Z09_.-~+*%&=?/:#!'()\"<>@$,;中文éü"
    checked = 0
    for _ in range(3000):
        q = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        for query in (urlencode({"q": q, "size": 20, "mode": "lexical"}), "q=" + quote(q, safe="") + "&size=20",
                      "size=5&q=" + quote(q, safe="~*").replace("%7E", "%7e") + "&page=2"):
            written = plain_segments(query)
            pairs = parse_qsl(query, keep_blank_values=True)
            assert written is not None, query
            read = [(n, unquote_plus(v) if n == "q" else v) for n, _, v in (w.partition("=") for w in written)]
            assert read == pairs, query
            assert search_feed_url(pairs, written) == search_feed_url(pairs), query
            checked += 1
    assert checked == 9000


@pytest.mark.parametrize("args, include", [
    ({}, None), ({"q": "graph"}, ["none"]), ({"q": "x", "page": 3, "size": 7}, ["facets", "trend"]),
    ({"q": "x", "sort": "date", "mode": "hybrid"}, ["trend"]), ({"mode": "lexical"}, None),
])
def test_a_plain_search_has_the_parameters_search_params_makes(args, include):
    from dataclasses import replace

    from paperfind.web.params import included, plain_search_params, search_params

    declared = replace(_run(search_params(**args)), include=included(include))
    assert plain_search_params(args, include) == declared
