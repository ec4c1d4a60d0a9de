"""The API as a contract: /openapi.json says what the server answers, and schemathesis checks it.

The server runs on a slice of the bundled corpus that holds the schema's example values, so
the generated requests reach real papers, people and institutions (and follow the schema's
links from there) instead of collecting 404s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from urllib.parse import quote

import httpx

from paperfind import __version__
from paperfind.web.api_examples import EXAMPLES
from tests.web.bundled import BundledPortal

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


def test_the_schema_examples_are_in_the_bundled_corpus(bundled_slice):
    _, seen = bundled_slice
    assert seen["paper"] == {EXAMPLES["paper"]}, "the example paper is not in a stable venue-year"
    assert seen["author"] == {EXAMPLES["author"]}  # a printed name with that slug: it is taken
    assert EXAMPLES["institution"] in seen["institution"]
    assert EXAMPLES["venue"] in seen["venue"]
    assert EXAMPLES["area"] in seen["area"], "the example area is no area of ICLR 2024 / NeurIPS 2017"


def test_every_example_answers_with_its_own_data(bundled_portal: BundledPortal):
    with httpx.Client(base_url=bundled_portal.url) as client:
        paper = client.get(f"/api/papers/{EXAMPLES['paper']}").json()
        assert paper["key"] == EXAMPLES["paper"] and paper["venue"] == EXAMPLES["venue"]
        author = client.get(f"/api/authors/{EXAMPLES['author']}").json()
        assert author["id"] == EXAMPLES["author"] and author["papers"]
        inst = client.get(f"/api/institutions/{EXAMPLES['institution']}").json()
        assert inst["slug"] == EXAMPLES["institution"] and inst["papers"]
        venue = client.get(f"/api/venues/{EXAMPLES['venue']}", params={"year": 2024}).json()
        assert venue["total"] > 0
        area = client.get(f"/api/areas/{EXAMPLES['area']}").json()
        assert area["total"] > 0 and {p["area"] for p in area["papers"]} == {EXAMPLES["area"]}


def test_the_schema_documents_every_operation(bundled_portal: BundledPortal):
    schema = httpx.get(f"{bundled_portal.url}/openapi.json").json()
    assert schema["info"]["version"] == __version__
    for path, methods in schema["paths"].items():
        op = methods["get"]
        ok = op["responses"]["200"]["content"]
        assert set(op["responses"]) >= {"200", "422", "503"}, path
        if "{" in path:
            assert "404" in op["responses"], path
            assert all(p.get("examples") for p in op["parameters"] if p["in"] == "path"), path
        if path.endswith(".atom"):  # a feed: Atom, or a 304 to a poll with its validators
            assert set(ok) == {"application/atom+xml"} and "304" in op["responses"], path
        elif path.endswith(("/export", "/bibtex")):
            assert "application/json" not in ok and "application/x-bibtex" in ok, path
        else:
            assert "$ref" in ok["application/json"]["schema"], path  # a model, not a bare object
    links = schema["paths"]["/api/search"]["get"]["responses"]["200"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"getPaper", "getAuthor",
                                                                "getInstitution"}
    paper_links = schema["paths"]["/api/papers/{key}"]["get"]["responses"]["200"]["links"]
    assert {link["operationId"] for link in paper_links.values()} >= {"getSimilar", "getPaperBibtex"}
    stats = httpx.get(f"{bundled_portal.url}/api/stats").json()
    assert stats["version"] == __version__ and stats["backend"]["store"] == "sqlite"


def test_schemathesis_finds_no_contract_failure(bundled_portal: BundledPortal, tmp_path):
    """Every operation, with its examples, generated cases and the links between them:
    no 5xx, only documented status codes and media types, bodies that match their models."""
    cli = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    run = subprocess.run(
        [cli, "run", f"{bundled_portal.url}/openapi.json", "--checks", CHECKS,
         "--max-examples", "8", "--seed", "18", "--workers", "1",
         "--phases", "examples,coverage,fuzzing,stateful", "--request-timeout", "20",
         "--report", "junit", "--report-junit-path", str(tmp_path / "schemathesis.xml")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_HOOKS": ""})
    summary = run.stdout[run.stdout.rfind("SUMMARY"):]
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    operations = sum(len(m) for m in httpx.get(f"{bundled_portal.url}/openapi.json").json()["paths"].values())
    assert f"Tested: {operations}" in summary, summary  # every operation was exercised
    # and reached: an operation answering 404 to every case (no example that resolves) is a
    # warning, as is one whose every case was refused
    assert "warning" not in run.stdout.lower(), run.stdout[run.stdout.lower().find("warning") - 200:][:3000]


def _example_url(path: str, op: dict) -> str:
    """`path` with each path parameter replaced by its schema example."""
    for p in op.get("parameters", []):
        if p["in"] == "path":
            example = next(iter(p["examples"].values()))["value"]
            path = path.replace("{" + p["name"] + "}", quote(str(example), safe=""))
    return path


def test_every_operation_refuses_a_parameter_it_does_not_take(bundled_portal: BundledPortal):
    """A client still sending a renamed parameter (`limit` for `size`) was answered as if it had
    not: 20 results and no word of why. Every operation of the schema now names it in a 422."""
    schema = httpx.get(f"{bundled_portal.url}/openapi.json").json()
    with httpx.Client(base_url=bundled_portal.url) as client:
        for path, methods in schema["paths"].items():
            op = methods["get"]
            url = _example_url(path, op)
            assert client.get(url).status_code in (200, 308), url  # the examples resolve
            takes = {p["name"] for p in op.get("parameters", [])}
            for unknown in {"limit", "utm_source", "qq"} - takes:
                r = client.get(url, params={unknown: "5"})
                assert r.status_code == 422, (url, unknown)
                error = r.json()["error"]
                assert error["code"] == "unknown_parameter" and f"'{unknown}'" in error["message"], error
        known = {p["name"] for p in schema["paths"]["/api/search"]["get"]["parameters"]}
        assert "limit" not in known and "size" in known
        said = client.get("/api/search", params={"q": "x", "limit": 5}).json()["error"]["message"]
        assert said == "unknown parameter 'limit'; the page size is 'size'"
        assert "did you mean 'venue'" in client.get("/api/search", params={"venu": "iclr"}).json()["error"]["message"]
        assert client.get("/api/search", params={"q": "x", "size": 5}).json()["paging"]["size"] == 5
        # the export's own `limit` (papers in the file) is a parameter it takes
        assert client.get("/api/search/export", params={"q": "x", "limit": 3, "format": "csv"}).status_code == 200


def test_pages_open_with_parameters_they_do_not_know_but_carry_them_nowhere(bundled_portal: BundledPortal):
    with httpx.Client(base_url=bundled_portal.url) as client:
        for page in ("/?q=transformers&utm_source=mail&fbclid=x", f"/authors/{EXAMPLES['author']}?utm_source=x",
                     f"/venues/{EXAMPLES['venue']}?year=2024&ref=tw"):
            r = client.get(page, headers={"accept": "text/html"})
            assert r.status_code == 200, page
            assert "utm_source" not in r.text and "fbclid" not in r.text and "ref=tw" not in r.text, page
            twin = r.headers["link"][1:r.headers["link"].index(">")]
            assert client.get(twin).status_code == 200, twin


def test_a_year_with_control_characters_is_refused_not_echoed(bundled_portal: BundledPortal):
    with httpx.Client(base_url=bundled_portal.url) as client:
        for year in ("\n5831\x0b", "2024\n", "\t2024", "5831", "2017..\n2019", "0000"):
            r = client.get("/api/search", params={"q": "x", "year": year})
            assert r.status_code == 422, repr(year)
            assert r.json()["error"]["code"] == "invalid_parameter"
        ok = client.get("/api/search", params={"q": "x", "year": " 2017 .. 2019 "}).json()
        assert ok["filters"]["year"] == ["2017..2019"]
