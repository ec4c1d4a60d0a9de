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
        if path.endswith(("/export", "/bibtex")):
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
