"""Malformed records through a real file: ingest stores each record completely or reports it.

Hypothesis takes real records of the paper lists and breaks their fields (wrong types, huge
numbers, NaN, lone surrogates, control characters, separators in odd places, missing fields),
writes them as a real `.json` paper list and a `.jsonl` export, ingests both into a real
database, and checks: every record is either reported (file and index) or stored whole (its
paper, its author slots), the store exports it again, the export reads back without loss, and
the index builds and answers a search for it.
"""

from __future__ import annotations

import json
import math
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paperfind.index.manager import build_index
from paperfind.ingest.jsonl import read_export
from paperfind.ingest.paperlists import read_paperlists
from paperfind.ingest.run import ingest_paths
from paperfind.ingest.scrub import scrub_record
from paperfind.model import BadRecord, Record
from paperfind.search.engine import Searcher, SearchRequest
from paperfind.store import Store
from paperfind.store.export import iter_export
from tests.realdata import load_paperlist

BASES = (load_paperlist("colm", 2024)[:3] + load_paperlist("icra", 2020)[:2]
         + load_paperlist("iclr", 2018)[:2])
FIELDS = ["id", "title", "abstract", "tldr", "author", "authorids", "or_profile", "aff",
          "aff_unique_norm", "aff_unique_abbr", "aff_unique_index", "aff_country_unique",
          "aff_country_unique_index", "keywords", "primary_area", "status", "track", "site", "pdf",
          "oa", "openreview", "github", "project", "arxiv", "bibtex", "gs_citation"]

ODD_TEXT = st.text(st.characters(codec=None, categories=("L", "N", "P", "S", "Z", "Cc", "Cs", "Co")),
                   max_size=30)
SEPARATED = st.lists(st.sampled_from(["0", "1", "7", "+", ";", "; ", ", ", "~Ann_Lee1", "", "x",
                                      "\\emph{", "$", "&amp;", "<b>", "[a](https://x.org)"]),
                     max_size=8).map("".join)
NASTY = st.sampled_from(["\ud800", "a\udfffb", "\x00", "\u202e", "x" * 100_001, 10**30, -1, 2024.5,
                         "javascript:alert(1)", "<script>alert(1)</script>", "iclr2024:a b/c"])
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), ODD_TEXT,
                 SEPARATED, NASTY)
VALUE = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["name", "raw", "x", ""]), inner, max_size=3),
                     max_leaves=6)


@st.composite
def broken_record(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 15)) == 0:
        return draw(VALUE)  # not an object at all
    record = dict(draw(st.sampled_from(BASES)))
    for name in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=5, unique=True)):
        if draw(st.booleans()):
            record[name] = draw(VALUE)
        else:
            record.pop(name, None)
    return record


def _dump(items: list[Any]) -> str:
    """JSON as a careless producer writes it: NaN, huge integers and lone surrogates included."""
    return json.dumps(items, allow_nan=True)


def _check_stored(store: Store, records: list[Record]) -> None:
    """Each record has its row in `records` and its paper with every author slot."""
    conn = store.conn
    for record in records:
        card = store.paper(record.key)
        assert card is not None, f"record {record.source_index}: paper {record.key} missing"
        count = conn.execute("SELECT COUNT(*) FROM records WHERE paper_key = ?", (record.key,)).fetchone()[0]
        if count == 1:  # the paper is this record alone: all of it must be there
            assert card["title"] == record.title
            assert [a["name"] for a in card["authors"]] == [a.name for a in record.authors]


def _check_export_roundtrip(store: Store, folder: Path) -> None:
    exported = list(iter_export(store.conn))
    if not exported:
        return
    path = folder / "roundtrip.jsonl"
    path.write_text("".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in exported),
                    encoding="utf-8")
    back = list(read_export(path))
    bad = [b for b in back if isinstance(b, BadRecord)]
    assert not bad, f"the store exported records its own reader refuses: {bad[:3]}"
    assert [r.to_json() for r in back] == [r.to_json() for r in exported]


def _ingest_and_check(folder: Path, path: Path, items: list[Any], reread) -> list[Record]:
    db = folder / "fuzz.db"
    with Store(db) as store:
        store.conn.execute("PRAGMA synchronous=OFF")  # no fsync per example; same SQL, same file
        report = ingest_paths(store, [path], progress=False)
        assert not report.failed, report.failed
        # as the ingest sees them: every reader's records pass the scrub step (no NUL is stored,
        # a title of NUL alone is refused), so the reader's own records would disagree
        read = [scrub_record(r, str(path)) if isinstance(r, Record) else r for r in reread(path)]
        reported = {b.index for b in report.skipped}
        stored = [r for r in read if isinstance(r, Record)]
        assert reported == {b.index for b in read if isinstance(b, BadRecord)}
        assert all(str(path) in str(b) for b in report.skipped)
        assert not reported & {r.source_index for r in stored}
        assert len(reported) + len(stored) == len(items), "a record was neither stored nor reported"
        for record in stored:  # the key the store gave it, found by its content
            row = store.conn.execute("SELECT paper_key FROM records WHERE content_hash = ?",
                                     (record.content_hash(),)).fetchone()
            assert row, f"record {record.source_index} ({record.title[:40]!r}) has no row"
            record.key = row[0]
        _check_stored(store, stored)
        _check_export_roundtrip(store, folder)
        integrity = store.conn.execute("PRAGMA integrity_check").fetchone()[0]
        assert integrity == "ok"
    return stored


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(broken_record(), min_size=1, max_size=4))
def test_paperlists_records_stored_whole_or_reported(items: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "colm2024.json"
        path.write_text(_dump(items), encoding="utf-8")
        _ingest_and_check(folder, path, items,
                          lambda p: read_paperlists(p, "colm", 2024))


EXPORT_FIELDS = ["venue", "year", "source_id", "title", "abstract", "tldr", "authors",
                 "authors_ordered", "paper_affiliations", "keywords", "status", "track", "area",
                 "links", "bibtex", "citations", "forum_id", "key"]


@st.composite
def broken_export_line(draw: st.DrawFn) -> Any:
    base = Record(venue="colm", year=2024, source_id=f"id{draw(st.integers(0, 3))}",
                  title="Exported paper", abstract="An abstract.").to_json()
    base["authors"] = [{"name": "Ann Lee", "profile_id": "~Ann_Lee1", "alias_profile_id": "",
                        "affiliations": [{"raw": "MIT", "slug": "mit", "name": "", "country": ""}]}]
    for name in draw(st.lists(st.sampled_from(EXPORT_FIELDS), min_size=1, max_size=4, unique=True)):
        if draw(st.booleans()):
            base[name] = draw(VALUE)
        else:
            base.pop(name, None)
    return base


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(broken_export_line(), min_size=1, max_size=5))
def test_export_lines_stored_whole_or_reported(items: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "mine.jsonl"
        path.write_text("".join(json.dumps(item, allow_nan=True) + "\n" for item in items),
                        encoding="utf-8")
        _ingest_and_check(folder, path, items, read_export)
