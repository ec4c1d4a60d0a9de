"""A load into an empty store builds the scattered indexes once at the end (paperfind.store.bulk):
the database must be the one a load with every index in place writes, title-only sources of
the same load must find their papers, and a load killed half-way must leave every index."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from paperfind.ingest.readers import choose_reader
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from paperfind.store.bulk import DEFERRABLE, DEFERRED_META
from tests.realdata import EXTRA, PAPERLISTS


def tables(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    """Every table's rows in primary-key (row) order, times of ingest left out."""
    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                        "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    out = {}
    for name in names:
        if name == "migrations":
            out[name] = conn.execute("SELECT id, name FROM migrations ORDER BY id").fetchall()
        elif name == "sources":
            out[name] = conn.execute("SELECT id, path, sha256, size, reader, records, skipped "
                                     "FROM sources ORDER BY id").fetchall()
        else:
            order = "paper_key, origin" if name == "reviews" else "key" if name == "meta" else "rowid"
            out[name] = conn.execute(f"SELECT * FROM {name} ORDER BY {order}").fetchall()
    return out


def indexes(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                             "AND sql IS NOT NULL"))


def test_a_bulk_load_writes_the_database_a_load_with_every_index_writes(tmp_path: Path):
    # the paper lists and the extra sources, title-only and join-only ones among them, at once
    paths = [PAPERLISTS, EXTRA]
    with Store(tmp_path / "bulk.db") as bulk, Store(tmp_path / "indexed.db") as indexed:
        during: dict[str, set[str]] = {}  # the indexes there as each file is written
        bulk_report = ingest_paths(bulk, paths, progress=False, on_file=lambda path: during.setdefault(
            choose_reader(path).name, set()).update(indexes(bulk.conn)))
        indexed_report = ingest_paths(indexed, paths, progress=False, defer_indexes=False)
        assert [(s.path, s.added, s.updated, s.unjoined, s.notes) for s in bulk_report.sources] == \
            [(s.path, s.added, s.updated, s.unjoined, s.notes) for s in indexed_report.sources]
        # the bulk load did go without them, and gave them back to the title-only sources
        assert not set(DEFERRABLE) & during["paperlists"]
        assert set(DEFERRABLE) <= during["rajatmodi62-abstract-generator"]
        assert any("paired with no paper" in note for s in bulk_report.sources for note in s.notes)
        joined = bulk.conn.execute(
            "SELECT COUNT(*) FROM (SELECT paper_key FROM records r JOIN sources s ON s.id = "
            "r.source_id WHERE s.reader = 'rajatmodi62-abstract-generator')").fetchone()[0]
        assert joined > 0  # title-only records that found their papers
        assert tables(bulk.conn) == tables(indexed.conn)
        assert indexes(bulk.conn) == indexes(indexed.conn)
        assert set(DEFERRABLE) <= set(indexes(bulk.conn))
        assert bulk.meta(DEFERRED_META) == ""


def test_a_load_into_a_store_with_papers_keeps_its_indexes(tmp_path: Path):
    first, *rest = sorted(p for p in PAPERLISTS.rglob("*.json*"))
    with Store(tmp_path / "db") as store:
        ingest_paths(store, [first], progress=False)
        seen: list[set[str]] = []
        ingest_paths(store, rest, progress=False,
                     on_file=lambda _: seen.append(set(indexes(store.conn))))
        assert seen and all(set(DEFERRABLE) <= names for names in seen)


def test_the_indexes_are_back_when_a_bulk_load_was_killed(tmp_path: Path):
    db = tmp_path / "db"
    with Store(db) as store:
        expected = indexes(store.conn)
        assert store.defer_indexes() == sorted(DEFERRABLE)
        # a load that dies here (killed, power cut) has committed files without these indexes
        ingest_paths(store, [PAPERLISTS], progress=False, defer_indexes=False)
        assert not set(DEFERRABLE) & set(indexes(store.conn))
    with Store(db, readonly=True) as reader:  # a reader cannot create them, and need not fail
        assert reader.paper_count() > 0
    with Store(db) as store:  # the next writer does
        assert indexes(store.conn) == expected
        assert store.meta(DEFERRED_META) == ""
        plan = store.conn.execute("EXPLAIN QUERY PLAN SELECT paper_id FROM keywords "
                                  "WHERE keyword = 'x'").fetchall()
        assert "keywords_keyword" in str(plan)


def test_deferring_twice_keeps_the_first_record(tmp_path: Path):
    with Store(tmp_path / "db") as store:
        expected = indexes(store.conn)
        store.defer_indexes()
        assert store.defer_indexes() == []  # nothing left to drop; the definitions are kept
        assert sorted(store.restore_indexes()) == sorted(DEFERRABLE)
        assert indexes(store.conn) == expected
        assert store.restore_indexes() == []


def _killed_load(db: Path) -> dict[str, str]:
    """A database a bulk load left without its deferred indexes; the indexes it should have."""
    with Store(db) as store:
        expected = indexes(store.conn)
        store.defer_indexes()
    return expected


def test_a_load_under_way_keeps_the_indexes_to_itself(tmp_path: Path):
    # a writer opening while another connection holds the write lock (a load) must not fail,
    # nor wait: the load creates the indexes when it is done
    db = tmp_path / "db"
    expected = _killed_load(db)
    load = sqlite3.connect(db, isolation_level=None)
    load.execute("BEGIN IMMEDIATE")
    try:
        with Store(db) as store:
            assert not set(DEFERRABLE) & set(indexes(store.conn))
            assert store.meta(DEFERRED_META)
    finally:
        load.execute("ROLLBACK")
        load.close()
    with Store(db) as store:
        assert indexes(store.conn) == expected


def test_an_index_that_cannot_be_created_again_is_an_error_that_names_the_database(tmp_path: Path):
    # before, any OperationalError was taken for "locked" and the store opened without the
    # indexes, silently; a full disk or a definition gone wrong must be said, and change nothing
    db = tmp_path / "db"
    _killed_load(db)
    conn = sqlite3.connect(db, isolation_level=None)
    record = json.loads(conn.execute("SELECT value FROM meta WHERE key = ?", (DEFERRED_META,)).fetchone()[0])
    record["keywords_keyword"] = "CREATE INDEX keywords_keyword ON keywords(no_such_column)"
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(record), DEFERRED_META))
    conn.close()
    with pytest.raises(sqlite3.OperationalError, match=f"{re.escape(str(db))}: the indexes a stopped bulk load"):
        Store(db)
    conn = sqlite3.connect(db)
    assert not set(DEFERRABLE) & set(indexes(conn))  # the ones before it in the record were rolled back
    assert json.loads(conn.execute("SELECT value FROM meta WHERE key = ?", (DEFERRED_META,)).fetchone()[0]) == record
    conn.close()
