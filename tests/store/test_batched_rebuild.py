"""A source file's papers are written in one batch; the rows must be those that rebuilding
the papers one at a time gives, and the stored records must give back their provenance."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from paperfind.store.papers import load_records, rebuild_papers
from tests.realdata import load_paperlist, write_slice

TABLES = ("venues", "institutions", "papers", "paper_authors", "paper_affiliations", "keywords")


def rows(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    """The rows rebuilding writes (work ids and people come later, from the people pass)."""
    out = {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    out["papers"] = conn.execute("SELECT * FROM papers ORDER BY id").fetchall()
    work = [d[0] for d in conn.execute("SELECT * FROM papers LIMIT 0").description].index("work_id")
    out["papers"] = [r[:work] + r[work + 1:] for r in out["papers"]]
    out["paper_authors"] = [r[:6] for r in out["paper_authors"]]
    return out


def test_batched_papers_equal_papers_rebuilt_one_by_one(tmp_path: Path):
    # a real slice with many institutions shared across papers (CVPR 2019 lists affiliations)
    path = write_slice(tmp_path / "data", "cvpr", 2019, load_paperlist("cvpr", 2019)[:400])
    with Store(tmp_path / "batched.db") as store:
        ingest_paths(store, [path], progress=False)
        batched = rows(store.conn)
        keys = [k for (k,) in store.conn.execute("SELECT key FROM papers ORDER BY key")]
        conn = store.conn
        conn.execute("BEGIN IMMEDIATE")
        for table in TABLES:
            conn.execute(f"DELETE FROM {table}")
        for key in keys:  # one paper a call: the per-paper path, reading records back
            rebuild_papers(conn, [key])
        conn.execute("COMMIT")
        one_by_one = rows(conn)
    # ids follow key order and each institution keeps its first mention, as before batching
    assert len(batched["papers"]) == 400
    assert len(batched["institutions"]) > 50
    assert sum(1 for r in batched["paper_affiliations"] if r[4]) > 500
    for table in TABLES:
        assert batched[table] == one_by_one[table], table


def test_stored_records_hold_their_content_and_get_provenance_back(tmp_path: Path):
    path = write_slice(tmp_path / "data", "cvpr", 2019, load_paperlist("cvpr", 2019)[:20])
    with Store(tmp_path / "s.db") as store:
        ingest_paths(store, [path], progress=False)
        key, data, chash = store.conn.execute(
            "SELECT paper_key, data, content_hash FROM records ORDER BY id").fetchone()
        (record,) = load_records(store.conn, key)
    assert "source" not in json.loads(data) and "key" not in json.loads(data)
    assert record.key == key and record.source == str(path.resolve())
    assert record.content_json() == data and record.content_hash() == chash
