"""The paperlists reader on slices of real files, and on broken files."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from paperfind.catalog.venues import display_name, normalize_status
from paperfind.ingest.errors import SourceError
from paperfind.ingest.paperlists import read_paperlists, venue_year_from_path
from paperfind.model import BadRecord, Record
from tests.realdata import PAPERLISTS, REAL_PAPERLISTS, write_slice


def _read(path: Path, venue: str = "x", year: int = 2020) -> list:
    return list(read_paperlists(path, venue, year))


def test_venue_and_year_from_path():
    assert venue_year_from_path(PAPERLISTS / "nips" / "nips2018.json.gz") == ("nips", 2018)
    assert venue_year_from_path("data/3dv/3dv2025.json") == ("3dv", 2025)
    with pytest.raises(SourceError, match="cannot tell venue and year"):
        venue_year_from_path("papers.json.gz")


@pytest.mark.realdata
def test_a_whole_real_file_reads_cleanly():
    records = _read(REAL_PAPERLISTS / "3dv" / "3dv2025.json.gz", "3dv", 2025)
    assert len(records) == 142 and all(isinstance(r, Record) for r in records)
    assert all(r.title and r.venue == "3dv" and r.year == 2025 and r.key == "" for r in records)


def test_openreview_record_with_several_affiliations_per_author(raw_record, tmp_path):
    path = write_slice(tmp_path, "3dv", 2025, [raw_record("3dv", 2025, "05T81ScPFb")])
    [record] = _read(path, "3dv", 2025)
    first, second, last = record.authors[0], record.authors[1], record.authors[-1]
    assert first.name == "Stanislaw Szymanowicz" and first.profile_id == "~Stanislaw_Szymanowicz1"
    assert [(a.raw, a.slug) for a in first.affiliations] == [("University of Oxford", "oxford"),
                                                              ("Google", "google")]
    assert first.affiliations[0].country == "United Kingdom"
    assert [a.slug for a in last.affiliations] == ["oxford", "meta"]
    assert second.affiliations[0].raw == "Independent Researcher" and second.affiliations[0].slug == ""
    assert record.forum_id == record.source_id == "05T81ScPFb"
    assert record.links == {"site": "https://openreview.net/forum?id=05T81ScPFb"}
    assert record.keywords == ["Novel View Synthesis", "3D Gaussian Splatting", "Monocular 3D Reconstruction"]
    assert record.status == "Poster" and record.citations is None  # gs_citation is -1
    assert record.source == str(path) and record.source_index == 0


def test_doubled_author_lists_are_halved(raw_record, tmp_path):
    path = write_slice(tmp_path, "icra", 2020, [raw_record("icra", 2020, "9196883")])
    [record] = _read(path, "icra", 2020)
    assert [a.name for a in record.authors][:2] == ["Ryo Terasawa", "Yuka Ariki"]
    assert len(record.authors) == 5
    assert all(a.affiliations[0].name == "Sony Corporation" for a in record.authors)
    assert record.citations == 31 and record.forum_id == ""


def test_markdown_badges_and_emails_are_not_links_or_profiles(raw_record, tmp_path):
    path = write_slice(tmp_path, "iclr", 2018, [raw_record("iclr", 2018, "B14TlG-RW")])
    [record] = _read(path, "iclr", 2018)
    assert "code" not in record.links  # a paperswithcode badge
    assert all(a.profile_id == "" for a in record.authors)  # authorids are e-mail addresses here
    assert record.tldr.startswith("A simple architecture")


def test_bad_records_name_the_field(raw_record, tmp_path):
    good = raw_record("3dv", 2025, "05T81ScPFb")
    untitled = {k: v for k, v in good.items() if k != "title"}
    records = [good, untitled, {**good, "title": "  "}, {**good, "title": ["x"]}, "not a record",
               {**good, "author": {"a": 1}}, {**good, "gs_citation": "12", "keywords": None, "id": 7}]
    path = write_slice(tmp_path, "3dv", 2025, records)
    result = _read(path, "3dv", 2025)
    reasons = [r.reason if isinstance(r, BadRecord) else None for r in result]
    assert reasons == [None, "missing field 'title'", "field 'title' is empty",
                       "field 'title' is a list, expected a string", "record is a string, expected an object",
                       "field 'author' is an object, expected a string", None]
    assert str(result[1]) == f"{path}: record 1: missing field 'title'"
    assert result[-1].citations == 12 and result[-1].keywords == [] and result[-1].source_id == "7"


def test_truncated_gzip(tmp_path):
    blob = (PAPERLISTS / "3dv" / "3dv2025.json.gz").read_bytes()
    path = tmp_path / "3dv2025.json.gz"
    path.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(SourceError, match="truncated or corrupt gzip"):
        _read(path)


def test_not_json_names_line_and_column(tmp_path):
    path = tmp_path / "x2020.json"
    path.write_text('[{"title": "ok"},\n {"title": oops}]', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        _read(path)
    assert caught.value.path == str(path)
    assert "not valid JSON" in caught.value.reason and "line 2, column 12" in caught.value.reason


def test_not_a_list_empty_and_not_utf8(tmp_path):
    path = tmp_path / "x2020.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"title": "a paper"}).encode()))
    with pytest.raises(SourceError, match="expected a JSON list of paper records, found an object"):
        _read(path)
    path.write_bytes(b"")
    with pytest.raises(SourceError, match="file is empty"):
        _read(path)
    path.write_bytes(b'[{"title": "caf\xe9"}]')
    with pytest.raises(SourceError, match="not valid UTF-8"):
        _read(path)
    with pytest.raises(SourceError, match="file not found"):
        _read(tmp_path / "missing2020.json")


def test_venue_names_and_statuses():
    assert display_name("nips") == "NeurIPS" and display_name("corl") == "CoRL" and display_name("foo") == "FOO"
    assert normalize_status("Long") == normalize_status("Main") == "Accept"
    assert normalize_status("Poster Workshop") == normalize_status("Poster", "Workshop") == "Workshop"
    assert normalize_status("Accept (Oral)") == "Oral" and normalize_status("Withdrawn") == "Withdraw"
    assert normalize_status("Active") == "Under Review" and normalize_status(None) == ""
    assert normalize_status("System Demonstrations") == "Demo"


@pytest.mark.realdata
def test_every_real_paperlists_file_reads_with_its_manifest_count(data_dir):
    """All 213 files of ../shared/data/paperlists, each with the record count of MANIFEST.tsv:
    a reader change that drops or breaks records of some venue shows here, not on the slices."""
    root = data_dir / "paperlists"
    with open(root / "MANIFEST.tsv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert len(rows) == 213
    wrong, bad = [], []
    for row in rows:
        venue, year = row["venue"], int(row["year"])
        items = _read(root / row["file"], venue, year)
        bad += [(row["file"], b.index, b.reason) for b in items if isinstance(b, BadRecord)]
        good = [r for r in items if isinstance(r, Record)]
        if len(items) != int(row["records"]) or not all(
                r.title and (r.venue, r.year) == (venue, year) for r in good):
            wrong.append((row["file"], len(items), row["records"]))
    assert wrong == []
    assert bad == [("iclr/iclr2017.json.gz", 302, "field 'title' is empty")]  # the source's one untitled record
