"""The portal cannot be made to run a script: crafted records are shown as text on every page,
security headers are on every response, requests are bounded, nothing is listed, it binds to
loopback by default, and there is no administrative route."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import REPO, LivePortal, free_port, live_portal, raw_request, run_cli

EVIL_KEY = "colm2024:evil1"
EVIL = {
    "venue": "colm", "year": 2024, "source_id": "evil1",
    "title": "<script>alert('title')</script> Evilness <img src=x onerror=alert(1)> attack",
    "abstract": "Evilness studied: </p><script>alert('abstract')</script> and "
                "<a href=\"javascript:alert(2)\">a link</a> with \"quotes\" & ampersands.",
    "tldr": "<svg onload=alert(3)>",
    "authors": [{"name": "<b onmouseover=alert(4)>Mallory</b> Evilness", "profile_id": "~Mallory_Evil1",
                 "affiliations": [{"raw": "<iframe src=//evil.example>Evil U</iframe>"}]},
                {"name": "Ann \"Quote\" O'Neil & <i>co</i>"}],
    "keywords": ["<script>kw</script>", "evil\"><svg/onload=alert(5)>"],
    "status": "<u>Oral</u>", "track": "</title><script>alert(6)</script>",
    "area": "Evilness <style>*{display:none}</style>",
    "bibtex": "@inproceedings{x, title={</pre><script>alert(7)</script>}}",
    "links": {"pdf": "https://example.org/a.pdf\"><script>alert(8)</script>"},
}
JS_LINK = {"venue": "colm", "year": 2024, "source_id": "evil2", "title": "A javascript link",
           "links": {"code": "javascript:alert(9)"}}


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_no_active_content(html: str, where: str) -> str:
    """No script but our own file and JSON data, no event handlers, no javascript: URLs."""
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        if tag == "script":
            assert (attrs.get("src") or "").startswith("/static/") or attrs.get("type") == "application/json", \
                f"{where}: {tag} {attrs}"
        assert tag not in {"iframe", "object", "embed", "style", "base", "u", "b", "i"}, f"{where}: <{tag}>"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"{where}: <{tag} {name}={value!r}>"
            if name in {"href", "src", "action", "formaction"} and value:
                assert not value.strip().lower().startswith(("javascript:", "data:text")), \
                    f"{where}: <{tag} {name}={value!r}>"
    return "".join(parser.text)


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> LivePortal:
    root = tmp_path_factory.mktemp("evil")
    write_slice(root / "data", "colm", 2024, load_paperlist("colm", 2024)[:10])
    (root / "data" / "crafted.jsonl").write_text(
        json.dumps(EVIL) + "\n" + json.dumps(JS_LINK) + "\n", encoding="utf-8")
    result = run_cli("ingest", "--db", root / "pf.db", root / "data")
    assert result.code == 0, result.stderr
    assert "record 2: field 'links.code' must be an http(s) URL" in result.stderr
    with live_portal(root / "pf.db") as live:
        yield live


def _pages(portal: LivePortal) -> list[str]:
    paper = portal.client.get(f"/api/papers/{EVIL_KEY}").json()
    mallory = next(a for a in paper["authors"] if "Mallory" in a["name"])
    return ["/?q=Evilness", "/?q=Mallory", "/?q=" + quote("<script>alert(1)</script>"),
            f"/papers/{EVIL_KEY}", f"/authors/{quote(mallory['id'], safe='')}",
            f"/areas/{quote(EVIL['area'], safe='')}", "/venues/colm?year=2024", "/stats",
            "/papers/" + quote("<script>alert(1)</script>", safe=""), "/no/<b>such</b>"]


def test_crafted_record_is_shown_as_text_on_every_page(portal: LivePortal) -> None:
    for url in _pages(portal):
        for lang in ("en", "zh"):
            page = portal.client.get(url, params={"lang": lang})
            assert page.status_code in (200, 404), url
            assert page.headers["content-type"].startswith("text/html")
            assert_no_active_content(page.text, f"{url} ({lang})")
    text = assert_no_active_content(portal.client.get(f"/papers/{EVIL_KEY}").text, "paper")
    for shown in ("<script>alert('title')</script> Evilness", "<b onmouseover=alert(4)>Mallory</b>",
                  "</p><script>alert('abstract')</script>", "<script>kw</script>"):
        assert shown in text, shown  # the markup is there, as text for the reader to see


def test_json_and_exports_are_never_html(portal: LivePortal) -> None:
    for url, kind in ((f"/api/papers/{EVIL_KEY}", "application/json"),
                      ("/api/search?q=Evilness", "application/json"),
                      (f"/api/papers/{EVIL_KEY}/bibtex", "application/x-bibtex"),
                      ("/api/search/export?q=Evilness&format=csv", "text/csv")):
        response = portal.client.get(url)
        assert response.status_code == 200 and response.headers["content-type"].startswith(kind), url
        assert response.headers["x-content-type-options"] == "nosniff"
    data = portal.client.get("/api/search", params={"q": "Evilness"}).json()
    hit = next(r for r in data["results"] if r["key"] == EVIL_KEY)
    for text in hit.get("highlights", {}).values():  # marks only; the data itself escaped
        assert not re.search(r"<(?!/?mark>)", text or ""), text


@pytest.mark.parametrize("url", ["/", f"/papers/{EVIL_KEY}", "/api/search?q=x", "/static/style.css",
                                 "/papers/nope", "/api/nope", f"/api/papers/{EVIL_KEY}/bibtex",
                                 "/openapi.json", "/docs"])
def test_security_headers_on_every_kind_of_response(portal: LivePortal, url: str) -> None:
    headers = portal.client.get(url).headers
    csp = headers["content-security-policy"]
    script_src = re.search(r"script-src ([^;]*)", csp).group(1).split()
    assert script_src == ["'self'"] and "unsafe" not in csp and "object-src 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] in ("same-origin", "no-referrer", "strict-origin-when-cross-origin")
    assert headers["x-frame-options"] == "DENY"


def test_request_size_and_parameter_limits(portal: LivePortal) -> None:
    get = portal.client.get
    assert 0 < len(get("/api/search", params={"q": "x" * 30_000}).json()["query"]) <= 2000  # cut, not refused
    for response, status in (
        (get("/api/search", params={"q": "a" * 40_000}), 414),
        (get("/api/search", headers={"x-filler": "a" * 40_000}), 431),
        (portal.client.request("GET", "/api/search", content=b"x" * 100_000), 413),
        (portal.client.post("/api/search", content=b"{}"), 413),
        (portal.client.post("/api/search"), 405),
        (portal.client.request("DELETE", f"/api/papers/{EVIL_KEY}"), 405),
        (get("/api/search", params=[("venue", f"v{i}") for i in range(21)]), 422),
        (get("/api/search", params={"size": 101}), 422),
        (get("/api/search", params={"page": 10_001}), 422),
        (get("/api/search", params={"year": "1; DROP TABLE papers"}), 422),
        (get("/api/papers/" + "k" * 301), 422),
        (get("/api/search/export", params={"q": "x", "limit": 1001}), 422),
    ):
        assert response.status_code == status, (response.request.url, response.text[:200])
        assert response.json()["error"]["status"] == status
    # beyond what the HTTP parser takes: refused before the app, connection still answered
    status = raw_request(portal.url, b"GET /?q=" + b"a" * 2_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 4"), status
    assert portal.client.head("/").status_code == 200 and portal.client.head("/").content == b""
    assert get("/api/stats").status_code == 200  # and the server is still fine


def test_no_directory_listing_or_files_outside_static(portal: LivePortal) -> None:
    for url in ("/static/", "/static", "/static/../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml",
                "/static/..%2f..%2fsettings.py", "/.git/config", "/paperfind.db", "/templates/base.html"):
        response = portal.client.get(url, headers={"accept": "application/json"}, follow_redirects=True)
        assert response.status_code == 404, url
        assert "Index of" not in response.text and "[project]" not in response.text


def test_every_route_is_read_only_and_there_is_no_admin_route(tmp_path: Path) -> None:
    app = create_app(Paperfind(Settings(db_path=tmp_path / "none.db", semantic=False)))
    routes = list(_all_routes(app.routes))
    assert len(routes) > 15
    for route in routes:
        methods = getattr(route, "methods", None) or {"GET"}
        assert methods <= {"GET", "HEAD"}, (route.path, methods)
        assert "admin" not in route.path.lower(), route.path  # would need a token from the environment


def _all_routes(routes: list) -> Iterator:
    for route in routes:
        included = getattr(route, "original_router", None)
        yield from _all_routes(included.routes) if included is not None else [route]


def _listening(port: int) -> set[str]:
    """Local addresses listening on `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def test_serve_binds_to_loopback_unless_told_otherwise(portal: LivePortal) -> None:
    assert Settings.from_env({}).host == "127.0.0.1"
    assert Settings.from_env({"PAPERFIND_HOST": "0.0.0.0"}).host == "0.0.0.0"
    port = free_port()
    env = {k: v for k, v in __import__("os").environ.items() if k != "PAPERFIND_HOST"}
    env["PAPERFIND_SEMANTIC"] = "0"
    process = subprocess.Popen([sys.executable, "-m", "paperfind.cli", "serve", "--db",
                                str(portal.paperfind.settings.db_path), "--port", str(port)],
                               cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not _listening(port):
            assert process.poll() is None, process.stderr.read().decode()
            time.sleep(0.05)
        assert _listening(port) == {"0100007F"}  # 127.0.0.1, nothing else
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
