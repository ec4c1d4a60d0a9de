"""One write transaction of the store: taken at once, committed whole or not at all.

Why IMMEDIATE: a deferred transaction that reads first and writes later can fail with SQLITE_BUSY
mid-way when another writer got there between; taking the write lock at BEGIN makes a writer wait
(busy_timeout) before it has done anything. Why BaseException: a Ctrl-C or a killed reader
process must not leave a transaction open on a connection that is used again. A Ctrl-C during
COMMIT is raised once COMMIT is done, when nothing is left to undo, hence the check.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """`BEGIN IMMEDIATE` ... `COMMIT`, rolled back on any exception, which is raised again."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
