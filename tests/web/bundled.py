"""A real server over a slice of the bundled corpus that holds the API schema's example values
(paperfind.web.api_examples) and both versions of a few works; for the contract and browser tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from paperfind.core import Paperfind
from paperfind.ingest.corpus import corpus_lines
from paperfind.settings import BUNDLED_CORPUS, Settings
from paperfind.text.fold import slugify
from paperfind.web.api_examples import EXAMPLES

STABLE_VENUE_YEARS = {("iclr", 2024), ("nips", 2017)}  # kept when the corpus gains older years


def _scan_bundled_corpus() -> tuple[list[str], dict[str, set]]:
    """The slice's records (JSON lines) and what the whole corpus holds of each example kind."""
    seen: dict[str, set] = {"paper": set(), "author": set(), "institution": set(), "venue": set(),
                            "area": set()}
    chosen: list[str] = []
    quota = {"area": 15, "nips": 10, "institution": 10}
    for line in corpus_lines(BUNDLED_CORPUS):
        record = json.loads(line)
        venue_year = (record["venue"], record["year"])
        slugs = {slugify(a["name"]) for a in record["authors"]}
        insts = {f["slug"] for a in record["authors"] for f in a["affiliations"]} | {
            f["slug"] for f in record.get("paper_affiliations", [])}
        seen["venue"].add(record["venue"])
        if venue_year in STABLE_VENUE_YEARS:
            seen["area"].add(record["area"])
        take = record["key"] == EXAMPLES["paper"] or EXAMPLES["author"] in slugs
        if record["key"] == EXAMPLES["paper"] and venue_year in STABLE_VENUE_YEARS:
            seen["paper"].add(record["key"])
        seen["author"] |= slugs & {EXAMPLES["author"]}
        seen["institution"] |= insts & {EXAMPLES["institution"]}
        for kind, wanted in (("area", venue_year == ("iclr", 2024) and record["area"] == EXAMPLES["area"]),
                             ("nips", venue_year == ("nips", 2017)),
                             ("institution", EXAMPLES["institution"] in insts)):
            if wanted and quota[kind] > 0 and not take:
                quota[kind] -= 1
                take = True
        if take:
            chosen.append(line)
    return chosen, seen


@dataclass
class BundledPortal:
    url: str
    paperfind: Paperfind


@pytest.fixture(scope="session")
def bundled_slice() -> tuple[list[str], dict[str, set]]:
    return _scan_bundled_corpus()


@pytest.fixture(scope="session")
def bundled_portal(bundled_slice, tmp_path_factory, web_milvus) -> BundledPortal:
    """A real server over a database built from the slice."""
    root: Path = tmp_path_factory.mktemp("contract")
    (root / "slice.jsonl").write_text("".join(bundled_slice[0]), "utf-8")
    settings = Settings(db_path=root / "slice.db", semantic=False)
    report = Paperfind(settings).ingest([root / "slice.jsonl"], progress=False)
    assert not report.failed
    from tests.web.conftest import portal_settings, serve  # conftest imports this module's fixtures

    with serve(Paperfind(portal_settings(settings.db_path, web_milvus))) as portal:
        yield BundledPortal(portal.url, portal.paperfind)


