"""The scale corpus generator of bench.scale, on a bundled-format corpus made from the test
slices: deterministic, the counts asked for, unique keys, copies that differ from their
originals, and a corpus paperfind's own ingest reads whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.scale_corpus import (ensure_corpus, grow, parse_size, read_origins, read_records)
from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.store.export import write_shards

SLICES = Path(__file__).resolve().parents[1] / "data" / "slices" / "paperlists"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The slices of three venue-years, ingested and exported as the bundled corpus's shards."""
    tmp = tmp_path_factory.mktemp("scale")
    app = Paperfind(Settings(db_path=tmp / "src.db"))
    app.ingest([SLICES / "iclr" / "iclr2018.json.gz", SLICES / "nips" / "nips2017.json.gz",
                SLICES / "nips" / "nips2018.json.gz"], progress=False, build_index=False, vectors=False)
    write_shards(app.store().conn, tmp / "corpus")
    app.store().close()
    return tmp / "corpus"


def test_sizes_read_as_the_bench_names_them():
    assert [parse_size(s) for s in ("250k", "500k", "1m", "1M", "12000", "2.5k")] == [
        250_000, 500_000, 1_000_000, 1_000_000, 12_000, 2_500]


def test_the_count_asked_for_every_original_kept_as_it_is_and_keys_unique(corpus):
    records = read_records(corpus)
    size = 3 * len(records) + 7  # three rounds of copies and part of a fourth
    rows = list(grow(records, size, seed=5))
    assert len(rows) == size
    assert [r for r, _ in rows[:len(records)]] == records
    keys = [r["key"] for r, _ in rows]
    assert len(set(keys)) == size
    with pytest.raises(ValueError):
        list(grow(records, len(records) - 1, seed=5))


def test_the_same_seed_makes_the_same_corpus_and_a_smaller_size_is_its_prefix(corpus):
    records = read_records(corpus)
    big = list(grow(records, 3 * len(records), seed=5))
    assert list(grow(records, 3 * len(records), seed=5)) == big
    assert list(grow(records, 2 * len(records) + 3, seed=5)) == big[:2 * len(records) + 3]
    other = list(grow(records, 3 * len(records), seed=6))
    assert [r["key"] for r, _ in other[len(records):]] != [r["key"] for r, _ in big[len(records):]]


def test_copies_differ_from_their_original_in_title_key_and_abstract_but_keep_its_field(corpus):
    records = read_records(corpus)
    by_key = {r["key"]: r for r in records}
    copies = list(grow(records, 3 * len(records), seed=5))[len(records):]
    years = {}
    for r in records:
        years.setdefault(r["venue"], set()).add(r["year"])
    for copy, origin in copies:
        original = by_key[origin]
        assert copy["key"] != original["key"] and copy["title"] != original["title"]
        assert copy["key"].startswith(f"{copy['venue']}{copy['year']}:")
        assert copy["venue"] == original["venue"] and copy["year"] in years[original["venue"]]
        assert copy["keywords"] == original["keywords"]
        assert len(copy["authors"]) == len(original["authors"])
        if len(original["abstract"].split(". ")) > 2:
            assert copy["abstract"] != original["abstract"]
    # authors are drawn from real people: every name a copy has is on some original
    names = {a["name"] for r in records for a in r["authors"]}
    assert {a["name"] for c, _ in copies for a in c["authors"]} <= names


def test_the_written_corpus_is_reused_by_its_manifest_and_ingested_whole(corpus, tmp_path):
    records = read_records(corpus)
    size = 2 * len(records) + 5
    out, made = ensure_corpus(corpus, size, 9, tmp_path / "grown")
    assert made and ensure_corpus(corpus, size, 9, tmp_path / "grown") == (out, False)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert (manifest["originals"], manifest["copies"]) == (len(records), size - len(records))
    origins = read_origins(out)
    assert len(origins) == size - len(records) and set(origins.values()) <= {r["key"] for r in records}
    assert ensure_corpus(corpus, size + 1, 9, tmp_path / "grown")[1]  # another size: made again
    app = Paperfind(Settings(db_path=tmp_path / "grown.db"))
    report = app.ingest([out / "shards"], progress=False, build_index=False, vectors=False)
    assert not report.failed and not report.skipped
    assert app.store().paper_count() == size + 1
