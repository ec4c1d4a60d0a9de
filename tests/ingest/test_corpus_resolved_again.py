"""The bundled corpus read with today's resolver (issue 29): its lines carry the slugs of the
resolver that wrote them, and some of its strings are escapes a source kept as text."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from paperfind.ingest.run import ingest_paths
from paperfind.store import Store

CORPUS = Path(__file__).resolve().parents[2] / "paperfind" / "data" / "corpus"
# real lines of the shipped shards, each holding one class of error
LINES = {
    "nips-2014": "nips2014:4618",  # GANs: "Universit u00e9 de Montr u00eal", slug university-of-montrel
    "icml-2013": "icml2013:e0aa2eb7cb",  # "Université de Rouen. 768000 Saint Etienne du Rouvray"
    "acl-2021": "acl2021:2021.acl-long.519",  # canadian-institute-for-advanced-research
    "iclr-2024": "iclr2024:0GZ1Bq4Tfr",  # quebec-artificial-intelligence-institute
}
MICROSOFT_INDIA = ("acl-2021", "acl2021:2021.acl-long.131")  # the corpus's first Microsoft Research slot


def _lines(shard: str, keys: set[str]) -> list[str]:
    with gzip.open(CORPUS / f"{shard}.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [line for line in fh if json.loads(line)["key"] in keys]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    tmp = tmp_path_factory.mktemp("corpus")
    lines = _lines(MICROSOFT_INDIA[0], {MICROSOFT_INDIA[1], LINES["acl-2021"]})
    for shard, key in LINES.items():
        if shard != "acl-2021":
            lines += _lines(shard, {key})
    assert len(lines) == 5
    path = tmp / "lines.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    store = Store(tmp / "p.db")
    ingest_paths(store, [path], progress=False)
    return store


def _slugs(store: Store, key: str) -> set[str]:
    return {slug for (slug,) in store.conn.execute(
        "SELECT pa.institution FROM paper_affiliations pa JOIN papers p ON p.id = pa.paper_id "
        "WHERE p.key = ? AND pa.institution IS NOT NULL", (key,))}


def test_a_mangled_escape_resolves_to_its_institution(store):
    assert "udem" in _slugs(store, "nips2014:4618")
    names = [n for (n,) in store.conn.execute("SELECT name FROM institutions")]
    assert not [n for n in names if "u00" in n]
    assert store.conn.execute("SELECT 1 FROM institutions WHERE slug = 'university-of-montrel'").fetchone() is None


def test_an_alternative_name_is_the_institution_it_names(store):
    assert "cifar" in _slugs(store, "acl2021:2021.acl-long.519")
    assert "canadian-institute-for-advanced-research" not in _slugs(store, "acl2021:2021.acl-long.519")
    assert "mila" in _slugs(store, "iclr2024:0GZ1Bq4Tfr")
    assert "quebec-artificial-intelligence-institute" not in _slugs(store, "iclr2024:0GZ1Bq4Tfr")


def test_a_postcode_is_not_part_of_an_institution(store):
    slugs = _slugs(store, "icml2013:e0aa2eb7cb")
    assert "university-of-rouen" in slugs
    assert not [s for s in slugs if any(c.isdigit() for c in s)]


def test_a_curated_institution_has_the_catalog_country(store):
    row = store.conn.execute("SELECT name, country FROM institutions WHERE slug = 'microsoft-research'").fetchone()
    assert row == ("Microsoft Research", "United States")
