"""Ingest files into a store: find the files, pick a reader for each, write each in one transaction.

A file that cannot be read is reported (one line: file and reason) and costs nothing else; a
bad record is reported with its index and the rest of its file still goes in.
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from paperfind.ingest.errors import SourceError
from paperfind.ingest.readahead import FileJob, gc_paused, read_ahead
from paperfind.ingest.readers import Reader, choose_reader
from paperfind.model import BadRecord
from paperfind.store import SourceSummary, Store
from paperfind.store.people import resolve_people
from paperfind.store.reviews import side_file_of, write_bundled

_DATA_SUFFIXES = (".json", ".json.gz", ".jsonl", ".jsonl.gz", ".csv", ".csv.gz", ".tsv",
                  ".tsv.gz", ".md.gz", ".yml", ".yml.gz", ".txt.gz", ".epub")
_NOT_DATA = {"MANIFEST.tsv"}


@dataclass
class IngestReport:
    files: int = 0
    unchanged_files: int = 0
    failed: list[SourceError] = field(default_factory=list)
    sources: list[SourceSummary] = field(default_factory=list)
    people: int | None = None
    # seconds spent: reading and preparing files (or waiting for a reader process), writing
    # them to the store, resolving people; `Paperfind.ingest` adds the index build
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def skipped(self) -> list[BadRecord]:
        return [bad for s in self.sources for bad in s.skipped]

    @property
    def changed(self) -> bool:
        return any(s.added or s.updated or s.removed for s in self.sources)


def discover(paths: list[Path]) -> list[Path]:
    """Every data file named or below a named folder, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and _is_data(p)))
        else:
            found.append(path)
    return found


def _is_data(path: Path) -> bool:
    return path.name not in _NOT_DATA and path.name.endswith(_DATA_SUFFIXES)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ingest_paths(store: Store, paths: list[Path], force: bool = False,
                 progress: bool | None = None, jobs: int = 1,
                 on_written: Callable[[], None] | None = None,
                 on_file: Callable[[Path], None] | None = None,
                 defer_indexes: bool | None = None) -> IngestReport:
    """Ingest files and folders; then re-resolve people if anything changed.

    With `jobs` > 1, `jobs - 1` worker processes read and prepare files ahead, in file order,
    while this process writes them (one transaction per file, as always). `on_written` is
    called once every file is committed, before people are resolved; `on_file(path)` after each
    file is committed (or found unchanged, or refused), so a caller can tell how far it is.
    `defer_indexes`: build the indexes that bulk inserts scatter once at the end
    (`Store.defer_indexes`); by default when the store holds no paper yet.
    """
    from tqdm import tqdm

    report = IngestReport()
    store.use_large_cache()
    files = discover(paths)
    report.files = len(files)
    planned: list[tuple[Path, Reader]] = []
    for path in files:
        try:
            if not path.exists():
                raise SourceError(str(path), "no such file or folder")
            planned.append((path, choose_reader(path)))
        except SourceError as exc:
            report.failed.append(exc)
    # sources with ids first, so title-only sources find the papers they describe
    planned.sort(key=lambda pr: (pr[1].title_only, -pr[1].priority, str(pr[0])))
    work = [_plan(store, path, reader, force) for path, reader in planned]
    show = sys.stderr.isatty() if progress is None else progress
    bar = tqdm(total=len(work), unit="file", disable=not show, file=sys.stderr)
    timings = report.timings
    # into an empty store, the indexes keyed by titles, names, institutions and keywords are
    # built once at the end instead of updated file by file (paperfind.store.bulk)
    if defer_indexes is None:
        defer_indexes = store.paper_count() == 0
    deferred = defer_indexes and any(job.needs_read for job in work)
    if deferred:
        store.defer_indexes()
    try:
        _write_files(store, work, jobs, force, report, bar, deferred, on_file)
    finally:
        if deferred:
            started = time.perf_counter()
            store.restore_indexes()
            timings["store writes"] = timings.get("store writes", 0.0) + time.perf_counter() - started
    bar.close()
    if on_written is not None:
        on_written()
    if report.changed or store.meta("people_version") != str(store.data_version()):
        started = time.perf_counter()
        with gc_paused():  # see there: the people pass is all tuples, sets and dicts
            report.people = resolve_people(store.conn)
        timings["people"] = time.perf_counter() - started
    return report


def _write_files(store: Store, work: list[FileJob], jobs: int, force: bool, report: IngestReport,
                 bar: Any, deferred: bool, on_file: Callable[[Path], None] | None) -> None:
    """Write each planned file, read ahead by the workers, into the report. With `deferred`
    indexes, they come back before the first title-only file, which looks papers up by them."""
    records = 0
    timings = report.timings
    with read_ahead(work, jobs) as ordered:
        for job in ordered:
            bar.set_description(job.path.name[:30])
            if deferred and job.reader.title_only:
                store.restore_indexes()
                deferred = False
            try:
                summary = _ingest_file(store, job, force, timings)
            except SourceError as exc:
                report.failed.append(exc)
            else:
                if summary is None:
                    report.unchanged_files += 1
                else:
                    report.sources.append(summary)
                    records += summary.records
            bar.set_postfix(records=records)
            bar.update(1)
            if on_file is not None:
                on_file(job.path)


def _plan(store: Store, path: Path, reader: Reader, force: bool) -> FileJob:
    """Hash a file and tell whether it must be read: an unchanged file is never read."""
    job = FileJob(path, reader, source=str(path.resolve()))
    try:
        job.sha = file_sha256(path)
        job.size = path.stat().st_size
    except OSError as exc:
        job.error = SourceError(str(path), f"cannot read file: {exc.strerror or exc}")
        return job
    job.needs_read = force or not store.source_is_current(job.source, job.sha)
    return job


def _ingest_file(store: Store, job: FileJob, force: bool,
                 timings: dict[str, float]) -> SourceSummary | None:
    if job.error is not None:
        raise job.error
    # asked again here: a file named twice was written since it was planned
    if not job.needs_read or (not force and store.source_is_current(job.source, job.sha)):
        return None
    started = time.perf_counter()
    prepared = job.prepared()  # reading (here or in a worker) makes cycles: collector on
    read = time.perf_counter()
    with gc_paused():
        summary = store.write_source(job.source, job.sha, job.size, job.reader.name, prepared,
                                     job.reader.priority, job.reader.title_only,
                                     job.reader.join_only)
    timings["corpus read"] = timings.get("corpus read", 0.0) + read - started
    timings["store writes"] = timings.get("store writes", 0.0) + time.perf_counter() - read
    side = side_file_of(job.path)
    if side is not None:  # a bundled shard's review scores, straight into their table
        written = time.perf_counter()
        try:
            write_bundled(store.conn, side)
        except (OSError, ValueError) as problem:
            summary.notes.append(f"review scores not read: {problem}")
        timings["reviews"] = timings.get("reviews", 0.0) + time.perf_counter() - written
    return summary
