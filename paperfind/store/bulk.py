"""A bulk load into an empty store, without the secondary indexes that its inserts scatter.

Each paper adds entries to indexes keyed by what is spread over the whole corpus (normalised
title, author name, institution, keyword): every source file's transaction then dirties a page
per entry, at random places in indexes of several GB at 1M papers, and the cost of a file grows
with the corpus (issue 33: 840 s of store writes at 1M). Dropped before the load and created
after, each such index is built by one sort. The indexes whose entries a venue-year file adds
in one place (venue and year first, or NULL until people are resolved) stay: they cost little
and the load's own lookups (a paper's records, a venue-year's titles) need them.

Crash safety: the indexes' definitions are recorded in `meta` in the transaction that drops
them, and every writing `Store` that opens a database with that record creates them again
(`restore_deferred`), so a load killed half-way leaves a database with every index, as if
the files it committed had been written one by one.
"""

from __future__ import annotations

import json
import sqlite3

from paperfind.store.transaction import immediate

# indexes whose entries land all over the index, file after file; none is read by a load of
# sources with ids (title-only sources look papers up by author name: `match_title`)
DEFERRABLE = ("papers_title_norm", "paper_authors_fold", "paper_affiliations_inst",
              "keywords_keyword")
DEFERRED_META = "deferred_indexes"


def defer_indexes(conn: sqlite3.Connection) -> list[str]:
    """Drop the `DEFERRABLE` indexes, recording their definitions; the names dropped."""
    with immediate(conn):
        found = dict(conn.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN "
            f"({','.join('?' * len(DEFERRABLE))})", DEFERRABLE).fetchall())
        known = json.loads(_meta(conn) or "{}")
        known.update(found)
        conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                     "SET value = excluded.value", (DEFERRED_META, json.dumps(known, sort_keys=True)))
        for name in found:
            conn.execute(f'DROP INDEX "{name}"')
    return sorted(found)


def restore_deferred(conn: sqlite3.Connection) -> list[str]:
    """Create the indexes `defer_indexes` dropped (each sorted once) and forget the record;
    the names created. Nothing to do (one lookup) when no index is deferred."""
    recorded = _meta(conn)
    if recorded is None:
        return []
    with immediate(conn):
        created = []
        for name, sql in sorted(json.loads(recorded).items()):
            exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                                  (name,)).fetchone()
            if not exists:
                conn.execute(sql)
                created.append(name)
        conn.execute("DELETE FROM meta WHERE key = ?", (DEFERRED_META,))
    return created


def restore_at_open(conn: sqlite3.Connection, path: object) -> list[str]:
    """`restore_deferred` as a writing `Store` opens: a load under way holds the write lock
    and creates the indexes itself when it is done, so a busy or locked database is left to
    it; any other failure (a full disk, an I/O error, a definition that no longer applies)
    is raised with the database's name, since searches would otherwise run without the
    indexes, unnoticed, until some later writer's open."""
    try:
        return restore_deferred(conn)
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            return []
        raise sqlite3.OperationalError(
            f"{path}: the indexes a stopped bulk load left out could not be created again "
            f"({exc}); the database is unchanged") from exc


def _meta(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (DEFERRED_META,)).fetchone()
    return row[0] if row else None
