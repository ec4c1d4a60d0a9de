"""bench.index_build --people: each tree's people step over its own copy, the tables compared."""

from __future__ import annotations

from pathlib import Path

from bench.index_build import people_table
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from tests.realdata import PAPERLISTS

REPO = Path(__file__).resolve().parents[2]


def test_the_same_code_gives_the_same_tables_and_the_database_is_left_as_it_was(tmp_path):
    db = tmp_path / "slice.db"
    store = Store(db)
    ingest_paths(store, sorted((PAPERLISTS / "colt").glob("*.json.gz")), progress=False)
    store.close()
    before = db.read_bytes()
    table = people_table(db, REPO, REPO, rounds=1)
    rows = [line for line in table.splitlines() if line.startswith("| tree") or line.startswith("| base")]
    assert len(rows) == 2 and rows[1].endswith("| yes |")
    assert db.read_bytes() == before and not list(tmp_path.glob("people-*"))
