"""bench.corpus.copy_database: the copy a tree-against-tree bench serves each side from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench.corpus import copy_database


def test_a_database_is_copied_with_what_lies_beside_it(tmp_path: Path):
    db = tmp_path / "src" / "x.db"
    db.parent.mkdir()
    sqlite3.connect(db).execute("CREATE TABLE t (a)").connection.commit()
    (tmp_path / "src" / "x.db.index").mkdir()
    (tmp_path / "src" / "x.db.index" / "CURRENT").write_text("v1")
    copy = copy_database(db, tmp_path / "side")
    assert copy == tmp_path / "side" / "x.db"
    assert (tmp_path / "side" / "x.db.index" / "CURRENT").read_text() == "v1"
    assert sqlite3.connect(copy).execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]


def test_a_database_that_is_not_there_is_refused_not_copied_empty(tmp_path: Path):
    # a relative --db that does not exist in the working directory made bench.modes_quality
    # score every set 0.000 for both trees: each side searched an empty database
    with pytest.raises(SystemExit, match="default.db: no such database"):
        copy_database(Path("default.db"), tmp_path / "side")
    assert not (tmp_path / "side").exists()
