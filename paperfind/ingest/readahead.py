"""Read source files ahead in worker processes while the ingest process writes, in file order.

Reading a file (JSON, LaTeX and entity cleaning, affiliation resolution) and serialising its
records is about half of ingest's CPU and needs no database, so it can run on the second core
while the one process that owns the database writes the file before it. The writer keeps
everything that touches the store: the unchanged-file check (an unchanged file is never sent
to be read), one transaction per file, the error report and the progress bar. A bounded
look-ahead keeps memory to a few files' records.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.readers import Reader, choose_reader
from paperfind.ingest.scrub import scrub_prepared
from paperfind.store.db import Prepared, prepare

# files read beyond the one being written, per worker: enough that the writer never waits,
# few enough that memory stays at a few files' records
AHEAD_PER_WORKER = 2
# fork: a worker starts at once and does not run the caller's main module again (spawn would,
# breaking scripts without a main guard); it only reads files, touching no lock or connection
# of the writer. Elsewhere spawn, the only safe choice there.
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"


@dataclass
class FileJob:
    """One file of an ingest run: where it is, how to read it, and whether it must be read."""

    path: Path
    reader: Reader
    source: str = ""  # the resolved path, the file's name in the store
    sha: str = ""
    size: int = 0
    needs_read: bool = False
    error: SourceError | None = None
    future: Future | None = None

    def prepared(self) -> Prepared:
        """The file's prepared records: from the worker that read it, else read here and now."""
        if self.future is not None:
            future, self.future = self.future, None  # the writer keeps no file it has written
            return future.result()
        return read_source(self.path, self.source, self.reader)


def read_source(path: Path | str, source: str, reader: Reader | None = None) -> Prepared:
    """Read one file and prepare its records; a file that cannot be read is a `SourceError`.

    Every reader's records pass through here, and through `scrub_prepared` on the way: no NUL,
    bidi or zero-width control reaches the store from any source.

    Runs in a worker process too, where the reader is chosen again from the path (only the
    path and the source name are sent).
    """
    path = Path(path)
    reader = reader or choose_reader(path)
    with gc_paused() if reader.acyclic else contextlib.nullcontext():
        try:
            items = list(reader.read(path))
        except SourceError:
            raise
        except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
            raise SourceError(str(path), f"cannot read file: {exc}") from None
        return scrub_prepared(prepare(items, source), str(path))


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a bulk step, then back as it was.

    Writing a file and resolving people make millions of rows, tuples and sets and no reference
    cycles, while a file's records are alive: each collection walked them all, about a sixth of
    ingest's CPU for nothing found. Reading makes cycles (pylatexenc's parser, hundreds of
    thousands a corpus) and keeps little alive, so it runs with the collector on, unless its
    reader says it makes none (`Reader.acyclic`: paperfind's own export).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def read_ahead(jobs: list[FileJob], workers: int) -> Iterator[Iterator[FileJob]]:
    """The jobs in their order, each file to read already submitted to a worker process.

    With `workers` <= 1, or fewer than two files to read, files are read in this process as
    they are written (no process is started). Leaving the block, by an error or Ctrl-C too,
    cancels what is not yet read; the writer's open transaction is its own to roll back.
    """
    to_read = [job for job in jobs if job.needs_read]
    if workers <= 1 or len(to_read) < 2:
        yield iter(jobs)
        return
    count = min(workers - 1, len(to_read))
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context(_START_METHOD),
                               initializer=_worker_start)
    ok = False
    try:
        yield _submitting(jobs, to_read, pool, AHEAD_PER_WORKER * count)
        ok = True
    finally:
        pool.shutdown(wait=ok, cancel_futures=True)


def _submitting(jobs: list[FileJob], to_read: list[FileJob], pool: ProcessPoolExecutor,
                ahead: int) -> Iterator[FileJob]:
    """Yield the jobs in order; when the n-th file to read comes up, files up to n + `ahead`
    are already with the workers."""
    submitted = reached = 0
    for job in jobs:
        if job.needs_read:
            reached += 1
            while submitted < min(len(to_read), reached + ahead):
                nxt = to_read[submitted]
                nxt.future = pool.submit(read_source, str(nxt.path), nxt.source)
                submitted += 1
        yield job


def _worker_start() -> None:
    """Ctrl-C is the writer's to handle (it cancels the rest); a worker whose writer died
    (killed, crashed) exits instead of waiting for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="paperfind-parent-watch", daemon=True).start()
