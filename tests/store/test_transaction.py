"""The store's one write transaction: whole or nothing, and the connection usable after."""

from __future__ import annotations

import sqlite3

import pytest

from paperfind.store.transaction import immediate


def _db(tmp_path) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("CREATE TABLE t(x INTEGER)")
    return conn


def test_a_transaction_that_ends_is_committed(tmp_path) -> None:
    conn = _db(tmp_path)
    with immediate(conn):
        assert conn.in_transaction
        conn.execute("INSERT INTO t VALUES (1)")
    assert not conn.in_transaction
    other = sqlite3.connect(tmp_path / "t.db")
    assert other.execute("SELECT x FROM t").fetchall() == [(1,)]


@pytest.mark.parametrize("raised", [ValueError, KeyboardInterrupt])
def test_an_interrupted_transaction_leaves_nothing_and_the_connection_usable(tmp_path, raised) -> None:
    conn = _db(tmp_path)
    with pytest.raises(raised):
        with immediate(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            raise raised()
    assert not conn.in_transaction
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    with immediate(conn):  # a later write is not refused for a transaction left open
        conn.execute("INSERT INTO t VALUES (2)")
    assert conn.execute("SELECT x FROM t").fetchall() == [(2,)]


def test_the_write_lock_is_taken_at_the_start(tmp_path) -> None:
    """IMMEDIATE: a second writer is refused at once, before the first has written anything."""
    conn = _db(tmp_path)
    other = sqlite3.connect(tmp_path / "t.db", isolation_level=None, timeout=0)
    with immediate(conn):
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
