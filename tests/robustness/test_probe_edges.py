"""What an outside probe of hostile requests found (issue 34), each answered: links that stay
on the site, request lines bounded before they are parsed, the parser's own refusals in the
portal's shape, malformed %-escapes refused, exports that neither run formulas nor trust the
Host header, and an area whose name has a slash reachable from its link."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest

from paperfind.web.middleware import SECURITY_HEADERS
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import LivePortal, live_portal, raw_response, run_cli

SLASHED = {"venue": "colm", "year": 2024, "source_id": "slash1", "title": "Robots that see with slashes",
           "area": "Vision / Robotics", "authors": [{"name": "Ann Slash"}],
           "keywords": [" =HYPERLINK(\"http://evil.test\")", "\t=1+1", " @SUM(A1)", "plain"]}


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> LivePortal:
    root = tmp_path_factory.mktemp("edges")
    write_slice(root / "data", "colm", 2024, load_paperlist("colm", 2024)[:10])
    crafted = dict(SLASHED, title=" =HYPERLINK(\"http://evil.test\",\"click\")")
    (root / "data" / "crafted.jsonl").write_text(
        json.dumps(SLASHED) + "\n" + json.dumps(dict(crafted, source_id="formula1")) + "\n", encoding="utf-8")
    result = run_cli("ingest", "--db", root / "pf.db", root / "data")
    assert result.code == 0, result.stderr
    with live_portal(root / "pf.db") as live:
        yield live


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [v for k, v in attrs if k in ("href", "src", "action") and v]


@pytest.mark.parametrize("path", [b"//evil.example/x", b"/%09/evil.example/x", b"/%0a/evil.example/x",
                                  b"/%0d%0a/evil.example/x", b"/\\evil.example/x", b"/%5C/evil.example/x",
                                  b"///evil.example/x"])
def test_every_link_of_a_404_page_stays_on_the_site(portal: LivePortal, path: bytes) -> None:
    status, headers, body = raw_response(portal.url, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n"
                                         b"Accept: text/html\r\nConnection: close\r\n\r\n")
    assert status.split()[1] in (b"404", b"400"), status
    if status.split()[1] == b"400":
        return  # the parser refused it: nothing rendered
    links = _Links()
    links.feed(body.decode("utf-8"))
    assert links.hrefs
    for href in (h for h in links.hrefs if h != "data:,"):  # the empty favicon
        # a browser drops tabs and newlines and reads \ as / before resolving an href
        seen = re.sub(r"[\t\n\r]", "", href).replace("\\", "/")
        assert seen.startswith("/") and not seen.startswith("//"), href


@pytest.mark.parametrize("size", [65_536, 65_536 + 7, 1 << 20])
def test_a_query_string_beyond_the_limit_is_refused_not_cut(portal: LivePortal, size: int) -> None:
    """The parser keeps URL offsets in 16 bits: 65,536 bytes of query string once reached the app
    as none at all (a 200 for an empty search)."""
    target = b"/api/search?q=" + b"a" * (size - 2)
    status, headers, body = raw_response(portal.url, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status.split()[1] == b"414", status
    error = json.loads(body)["error"]
    assert error["status"] == 414 and error["code"] == "uri_too_long" and "bytes" in error["message"]
    for name, value in SECURITY_HEADERS.items():
        assert headers[name] == value


def test_a_padded_path_is_refused_not_seen_shorter(portal: LivePortal) -> None:
    status, _, _ = raw_response(portal.url, b"GET /papers/" + b"a" * 65_540 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status.split()[1] == b"414", status


def test_huge_headers_are_refused_before_they_are_read_in_full(portal: LivePortal) -> None:
    head = b"GET /api/stats HTTP/1.1\r\nHost: x\r\nX-Filler: " + b"a" * (8 << 20) + b"\r\n\r\n"
    status, headers, body = raw_response(portal.url, head)
    assert status.split()[1] == b"431", status
    assert json.loads(body)["error"]["code"] == "headers_too_large"
    assert headers["content-security-policy"] == SECURITY_HEADERS["content-security-policy"]
    assert portal.client.get("/api/stats").status_code == 200  # and the server goes on


@pytest.mark.parametrize("line", [b"GET /\xff\xfe HTTP/1.1", b"GET /api/search?q=\xe4\xb8 HTTP/1.1",
                                  b"GET / HTTP/9.9", b"NOT A REQUEST"])
def test_what_the_parser_refuses_is_answered_in_the_portal_shape(portal: LivePortal, line: bytes) -> None:
    status, headers, body = raw_response(portal.url, line + b"\r\nHost: x\r\n\r\n")
    code = int(status.split()[1])
    assert 400 <= code < 500, status
    assert json.loads(body)["error"]["status"] == code
    for name, value in SECURITY_HEADERS.items():
        assert headers[name] == value, name


@pytest.mark.parametrize("query", ["q=%E4%B8", "q=ok&venue=%FF", "q=%C3%28", "%E4%B8=x"])
def test_malformed_percent_encoding_is_a_422_naming_the_parameter(portal: LivePortal, query: str) -> None:
    for path in ("/api/search", "/"):
        response = portal.client.get(f"{path}?{query}", headers={"accept": "application/json"})
        assert response.status_code == 422, (path, query, response.text[:200])
        assert "not UTF-8" in response.json()["error"]["message"]
    assert portal.client.get("/api/search?q=%E4%B8%AD").status_code == 200  # 中, whole


def test_csv_export_guards_formulas_behind_spaces_and_ignores_the_host_header(portal: LivePortal) -> None:
    response = portal.client.get("/api/search/export", params={"q": "HYPERLINK slashes", "format": "csv"},
                                 headers={"host": "evil.test"})
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) >= 1
    for row in rows:
        for value in row.values():
            assert not value.lstrip().startswith(("=", "+", "@")) or value.startswith("'"), value
        assert "evil.test" not in row["url"] and row["url"].startswith("/papers/")
    formula = next(r for r in rows if r["key"].endswith("formula1"))
    assert formula["title"].startswith("' =HYPERLINK")


def test_an_export_links_to_the_configured_public_url(tmp_path: Path, portal: LivePortal) -> None:
    from paperfind.settings import Settings

    settings = Settings.from_env({"PAPERFIND_DB": str(portal.paperfind.settings.db_path),
                                  "PAPERFIND_PUBLIC_URL": "https://papers.example.org/"})
    assert settings.public_url == "https://papers.example.org"
    with pytest.raises(ValueError, match="PAPERFIND_PUBLIC_URL must be an http"):
        Settings.from_env({"PAPERFIND_PUBLIC_URL": "javascript:alert(1)"})
    from paperfind.web.export import to_csv

    row = next(csv.DictReader(io.StringIO(to_csv([{"key": "colm2024:x", "title": "t"}], settings.public_url))))
    assert row["url"] == "https://papers.example.org/papers/colm2024:x"


def test_an_area_with_a_slash_is_reached_from_its_link(portal: LivePortal) -> None:
    card = portal.client.get("/api/search", params={"q": "robots slashes"}).json()["results"][0]
    assert card["area"] == "Vision / Robotics"
    link = "/areas/" + quote(card["area"], safe="")
    page = portal.client.get(link)
    assert page.status_code == 200 and "Vision / Robotics" in page.text
    api = portal.client.get("/api" + link)
    keys = {p["key"] for p in api.json()["papers"]}
    assert api.status_code == 200 and keys == {"colm2024:slash1", "colm2024:formula1"}
