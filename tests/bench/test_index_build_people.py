"""bench.index_build --people and --bm25: each tree's people step (own copy) and BM25F matrix, compared."""

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


def test_the_bm25f_matrix_of_a_built_index_is_the_same_by_the_same_code(tmp_path):
    from bench.index_build import bm25_table
    from paperfind.index.manager import build_index

    store = Store(tmp_path / "slice.db")
    ingest_paths(store, sorted((PAPERLISTS / "colt").glob("*.json.gz")), progress=False)
    root = build_index(store, tmp_path / "slice.db.index")
    table = bm25_table(root, REPO, REPO, rounds=1)
    assert table.splitlines()[-1].endswith("| yes |") and "entries" in table
