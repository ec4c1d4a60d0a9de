"""The SQLite store: one database file holds every record, paper, person and institution.

Writes happen one source file per transaction (`write_source`), so a crash, Ctrl-C or a bad
file never leaves part of a file behind. Readers use WAL snapshots and never block the writer.
A database built from nothing (`building=True`, the first start's) is written without WAL and
fsyncs under a name no reader opens, and is put in place whole (`finish_building`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from paperfind.model import BadRecord, Record, content_digest, content_key, paper_key
from paperfind.store import bulk
from paperfind.store import papers as paper_rows
from paperfind.store.read import BUSY_TIMEOUT_MS, ReadMixin
from paperfind.store.schema import migrate
from paperfind.store.transaction import immediate


@dataclass
class SourceSummary:
    """What writing one source file did, for the ingest report."""

    path: str
    records: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[BadRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unjoined: int = 0  # records of a join-only source that paired with no paper: not stored


class Store(ReadMixin):
    """A paperfind database file.

    One `Store` per thread: SQLite connections are not shared across threads here, so the
    web layer opens one per worker thread through `Paperfind.store`.
    """

    def __init__(self, path: str | Path, readonly: bool = False, building: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"no database at {self.path}")
            uri = f"file:{self.path.resolve()}?mode=ro"
            self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            if building:
                # a new file under a temporary name, renamed into place only when complete: the
                # WAL (every page written twice, then checkpointed: 3-5 s of a first start) and
                # the fsyncs protect nothing here; a rollback still works (journal in memory)
                self.conn.execute("PRAGMA journal_mode=MEMORY")
                self.conn.execute("PRAGMA synchronous=OFF")
            else:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            migrate(self.conn)
            bulk.restore_at_open(self.conn, self.path)  # a bulk load was killed: see `defer_indexes`
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # 8 MiB a connection: the web opens one per worker thread (up to 40), and a soak test
        # saw RSS grow by 1.5 GB with 64 MiB each; ingest asks for more (`use_large_cache`)
        self.conn.execute("PRAGMA cache_size=-8192")

    def use_large_cache(self) -> None:
        """A 128 MiB page cache for this connection: bulk writes touch every index page."""
        self.conn.execute("PRAGMA cache_size=-131072")

    def defer_indexes(self) -> list[str]:
        """Drop the indexes a bulk load would scatter inserts over (`bulk.DEFERRABLE`) until
        `restore_indexes`; worth it only into an empty or small store."""
        return bulk.defer_indexes(self.conn)

    def restore_indexes(self) -> list[str]:
        """Create the indexes `defer_indexes` dropped, each with one sort."""
        return bulk.restore_deferred(self.conn)

    def close(self) -> None:
        self.conn.close()

    def finish_building(self, final: str | Path) -> None:
        """Close this `building` store and move it to `final` as the WAL database every other
        `Store` expects, on disk first (fsync), replacing whatever was there.

        A kill before this leaves `final` as it was (absent, on a first start) and this file
        behind, which the next build starts over. The target's old -wal/-shm go first: SQLite
        would read another file's WAL into the new one."""
        self.conn.execute("PRAGMA journal_mode=WAL")  # recorded in the file's header
        self.conn.close()
        with open(self.path, "rb") as fh:
            os.fsync(fh.fileno())
        final = Path(final)
        for suffix in ("-wal", "-shm"):
            Path(f"{final}{suffix}").unlink(missing_ok=True)
        os.replace(self.path, final)
        directory = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bookkeeping -------------------------------------------------------------------

    def meta(self, key: str, default: str = "") -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Set one bookkeeping value, committed at once (not part of the papers' data version)."""
        with self.conn:
            self._set_meta(key, value)

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def data_version(self) -> int:
        """Grows on every committed change of papers, so derived indexes can tell they are stale."""
        return int(self.meta("data_version", "0"))

    def _bump_data_version(self) -> int:
        version = self.data_version() + 1
        self._set_meta("data_version", str(version))
        return version

    def source_is_current(self, path: str, sha256: str) -> bool:
        row = self.conn.execute("SELECT sha256 FROM sources WHERE path = ?", (path,)).fetchone()
        return bool(row) and row[0] == sha256

    def paper_count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    # -- writing -------------------------------------------------------------------------

    def write_source(self, path: str, sha256: str, size: int, reader: str,
                     items: "list[Record | BadRecord] | Prepared", priority: int = 0,
                     title_only: bool = False, join_only: bool = False) -> SourceSummary:
        """Replace everything this source file said with `items`, in one transaction.

        `items` may come already `prepare`d (by a reader process, off this one's core).
        A `join_only` (title-only) source only adds to papers already stored: a record that
        pairs with none is left out and told in the notes, not made a paper of its own.
        """
        summary = SourceSummary(path=path)
        prepared = items if isinstance(items, Prepared) else prepare(items, path)
        stored = prepared.stored
        summary.skipped.extend(prepared.skipped)
        summary.records = len(stored)
        conn = self.conn
        with immediate(conn):
            source_id = self._upsert_source(path, sha256, size, reader, len(stored),
                                            len(summary.skipped))
            old = {ident: (key, chash) for ident, key, chash in conn.execute(
                "SELECT ident, paper_key, content_hash FROM records WHERE source_id = ?",
                (source_id,))}
            affected: set[str] = set()
            in_memory: dict[str, tuple[Record, str]] = {}
            seen: set[str] = set()
            for record, content, chash in stored:
                ident = _record_ident(record, seen)
                seen.add(ident)
                key = self._assign_key(record, ident, title_only, summary, join_only)
                if key is None:  # join-only, and no paper to join: told in the notes
                    summary.unjoined += 1
                    continue
                record.key = key
                previous = old.pop(ident, None)
                if previous == (key, chash):
                    summary.unchanged += 1
                    continue
                if previous is None:
                    conn.execute("INSERT INTO records(source_id, ident, paper_key, priority, "
                                 "content_hash, data) VALUES (?, ?, ?, ?, ?, ?)",
                                 (source_id, ident, key, priority, chash, content))
                    summary.added += 1
                else:
                    conn.execute("UPDATE records SET paper_key = ?, priority = ?, content_hash = ?, "
                                 "data = ? WHERE source_id = ? AND ident = ?",
                                 (key, priority, chash, content, source_id, ident))
                    affected.add(previous[0])
                    summary.updated += 1
                affected.add(key)
                in_memory[key] = (record, chash)
            if summary.unjoined:
                summary.notes.append(f"{summary.unjoined} of {len(stored)} record(s) paired with "
                                     f"no paper and were not stored")
            if old and summary.skipped:
                # an unreadable record may be one of these: keep what the file said before
                summary.notes.append(f"{len(old)} record(s) of the previous version were kept, "
                                     f"since {len(summary.skipped)} record(s) could not be read")
                old = {}
            for ident, (key, _) in old.items():
                conn.execute("DELETE FROM records WHERE source_id = ? AND ident = ?",
                             (source_id, ident))
                affected.add(key)
                summary.removed += 1
            paper_rows.rebuild_papers(conn, sorted(affected), in_memory)
            if affected:
                self._bump_data_version()
        return summary

    def _upsert_source(self, path: str, sha256: str, size: int, reader: str, records: int,
                       skipped: int) -> int:
        from datetime import datetime, timezone
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.conn.execute(
            "INSERT INTO sources(path, sha256, size, reader, records, skipped, ingested_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, "
            "size = excluded.size, reader = excluded.reader, records = excluded.records, "
            "skipped = excluded.skipped, ingested_at = excluded.ingested_at",
            (path, sha256, size, reader, records, skipped, now))
        return self.conn.execute("SELECT id FROM sources WHERE path = ?", (path,)).fetchone()[0]

    def _assign_key(self, record: Record, ident: str, title_only: bool,
                    summary: SourceSummary, join_only: bool = False) -> str | None:
        """The paper this record describes: by its own key, its forum id, its id, or its title;
        None for a `join_only` record whose title pairs with no stored paper."""
        if record.key:
            return record.key
        if _url_safe(record.forum_id):
            return paper_key(record.venue, record.year, record.forum_id)
        if title_only:
            matched = paper_rows.match_title(self.conn, record, summary.notes, join_only)
            if matched or join_only:
                return matched
        if _url_safe(record.source_id) and ident == record.source_id:
            return paper_key(record.venue, record.year, record.source_id)
        if not _url_safe(ident):
            ident = content_key(record).split(":", 1)[1]
        return paper_key(record.venue, record.year, ident)


_UNSAFE = re.compile(r"[\s/?#%\\]")


def _url_safe(ident: str) -> bool:
    """Whether an id can stand in a paper key, which is a URL path segment."""
    return bool(ident) and len(ident) <= 200 and not _UNSAFE.search(ident)


@dataclass
class Prepared:
    """A source file's records ready for `write_source`: each with its `content_json` and hash.

    Plain data, so a reader process can prepare a file while this one writes the previous.
    """

    stored: list[tuple[Record, str, str]]
    skipped: list[BadRecord]


def prepare(items: Iterable[Record | BadRecord], source: str) -> Prepared:
    """Each record with its `content_json` and hash, computed once; records that cannot be
    stored go to `skipped` with the reason, in file order with the readers' own.

    A lone surrogate (from a `\\ud800` escape in a JSON source) cannot be written as UTF-8;
    caught here it costs one record with a message instead of the whole file.
    """
    stored: list[tuple[Record, str, str]] = []
    skipped: list[BadRecord] = []
    for item in items:
        if isinstance(item, BadRecord):
            skipped.append(item)
            continue
        item.source = source
        content = item.content_json()
        try:
            stored.append((item, content, content_digest(content)))
        except UnicodeEncodeError:
            skipped.append(BadRecord(source, item.source_index, _unencodable(item)))
    return Prepared(stored, skipped)


def _unencodable(record: Record) -> str:
    """The message for a record that cannot be encoded, naming the field (rare: slow is fine)."""
    for name, value in record.to_json().items():
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return f"field '{name}' contains an invalid character (a lone surrogate)"
    return "the record contains an invalid character (a lone surrogate)"


def _record_ident(record: Record, seen: set[str]) -> str:
    """The record's identity within its file: its id, else a key derived from its content.

    Ids repeat inside a few files and are missing in others; the first holder of an id keeps
    it, the others are told apart by content, and identical twins by their order.
    """
    if record.key and record.key not in seen:
        return record.key
    if record.source_id and record.source_id not in seen:
        return record.source_id
    base = content_key(record).split(":", 1)[1]
    ident, n = base, 1
    while ident in seen:
        n += 1
        ident = f"{base}-{n}"
    return ident
