"""Analyse a corpus file's texts in a second process while the first writes the store.

A first start builds the database from one file: reading it, writing the store and resolving
people keep one core busy for half a minute while the other has nothing to do. The index's
costliest part, cutting every title, abstract and keyword into terms, needs only the texts,
so a worker reads them from the same file and analyses them meanwhile. The builder takes a
paper's terms from here only when the paper's texts in the store are exactly the ones
analysed (`paperfind.index.analysis.text_digest`), and analyses any other paper itself: the
index is the same as without this, only sooner.

Once the store holds the corpus, the worker can also write the index's text files itself
(`build_text_files`: they need no resolved people) while this process resolves people and
writes the other files; the index is again the same.
"""

from __future__ import annotations

import gzip
import io
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from paperfind.index.analysis import TextTerms, analyze_texts
from paperfind.index.builder import build_name_files, build_paper_files, build_text_files, index_docs
from paperfind.ingest.readahead import gc_paused

# fork: the worker starts at once with the modules already imported (as ingest's readers do)
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"


class _Ahead:
    """A worker process of a first start's build and the pipe to it: the answers it sends are
    an optimisation only, so a worker that fails or dies is said on stderr and the build does
    the work itself."""

    failure = "work not done ahead ({why})"  # the line said when it fails

    def __init__(self, target, args: tuple, name: str) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        self._conn, child_end = context.Pipe(duplex=True)
        self._process: multiprocessing.process.BaseProcess | None = context.Process(
            target=target, args=(*args, child_end), name=name, daemon=True)
        self._process.start()
        child_end.close()
        self.waited = 0.0  # seconds spent waiting for the worker's answers
        self._failed = False

    def _last(self):
        """The worker's last answer: its value, or None once it failed (said, and stopped) or
        when there is no worker (closed)."""
        if self._process is None or self._failed:
            return None
        try:
            outcome, value = self._receive()
        finally:
            self.close()
        if outcome != "ok":
            self._fail(value)
            return None
        return value

    def _send(self, *request: str) -> bool:
        try:
            self._conn.send(request)
        except OSError as exc:  # the worker died before it was asked
            self._fail(f"the worker ended ({exc})")
            return False
        return True

    def _receive(self) -> tuple[str, object]:
        started = time.perf_counter()
        try:
            return self._conn.recv()
        except (EOFError, OSError) as exc:  # the worker died without a word
            return "error", f"the worker ended ({exc or 'no result'})"
        finally:
            self.waited += time.perf_counter() - started

    def _fail(self, why: object) -> None:  # an optimisation only: say why, build without it
        self._failed = True
        self.close()
        print(f"paperfind: {self.failure.format(why=why)}", file=sys.stderr)

    def close(self) -> None:
        """Stop the worker if it is still at work (the build no longer wants it)."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._process = None
            self._conn.close()


class TextsAhead(_Ahead):
    """The analysed texts of JSON Lines exports (one file, or a corpus's shards in the order
    they are ingested), being made in a worker process."""

    failure = "texts not analysed ahead ({why}); the index builds without them"

    def __init__(self, path: Path | Sequence[Path], names: bool = True) -> None:
        """`names`: whether the text files include the papers' names and standing (a first start
        whose other files follow in the background leaves them to the index made then)."""
        paths = [path] if isinstance(path, (str, Path)) else list(path)
        super().__init__(_work, (tuple(str(p) for p in paths), names), "paperfind-texts-ahead")

    def result(self) -> TextTerms | None:
        """The analysis, waiting for it if needed; None if the worker failed (the builder then
        analyses every paper itself)."""
        if self._process is None or not self._send("terms"):
            return None
        return self._last()

    def build_text_files(self, db: Path, target: Path) -> None:
        """Have the worker write the text files of the index (`builder.build_text_files`) of the
        store `db` into the index directory `target`, once its analysis is done. The store must
        be in WAL mode: the worker reads it while this process resolves people."""
        if self._process is not None:
            self._send("files", str(db), str(target))

    def store_read(self) -> None:
        """Wait until the worker has read the store and closed it (it no longer holds the file)."""
        if self._process is None or self._failed:
            return
        outcome, value = self._receive()
        if outcome != "read":
            self._fail(value)

    def text_files(self) -> int | None:
        """The vocabulary size of the text files the worker wrote, once they are written; None
        if it failed (the caller then writes them itself, over whatever it left)."""
        return self._last()


class PeopleFilesAhead:
    """The files of the index that name people (`builder.build_people_files`), written from
    the store `db` into the index directory `target` once people are resolved by two worker
    processes, the name tables (`builder.build_name_files`) in one and the papers' files
    (`builder.build_paper_files`) in the other, while this process loads what the first
    queries need (a first start)."""

    def __init__(self, db: Path, target: Path) -> None:
        self._workers = [_PeopleFiles(_write_paper_files, db, target, "paperfind-paper-files"),
                         _PeopleFiles(_write_name_files, db, target, "paperfind-name-files")]

    @property
    def waited(self) -> float:
        return sum(worker.waited for worker in self._workers)

    def result(self) -> dict | None:
        """The files' params (`build_people_files`'), once both wrote theirs; None if either
        failed (the caller then writes them all itself, over whatever they left)."""
        params, names = (worker.result() for worker in self._workers)
        return params if params is not None and names is not None else None

    def close(self) -> None:
        for worker in self._workers:
            worker.close()


class _PeopleFiles(_Ahead):
    failure = "people's index files not written ahead ({why}); they are written here"

    def __init__(self, work, db: Path, target: Path, name: str) -> None:
        super().__init__(work, (str(db), str(target)), name)

    def result(self):
        return self._last()


def _work(paths: tuple[str, ...], names: bool, conn) -> None:
    try:
        terms: TextTerms | None = analyze_export_texts(paths)
        failure = ""
    except Exception as exc:
        terms, failure = None, f"{type(exc).__name__}: {exc}"
    try:
        request = conn.recv()
    except EOFError:  # the build wants nothing more
        return
    if request[0] == "terms":
        conn.send(("ok", terms) if terms is not None else ("error", failure))
    elif request[0] == "files":
        from paperfind.store import Store

        _, db, target = request
        read = False
        try:
            with Store(db, readonly=True) as store:
                docs = index_docs(store)
            read = True
            conn.send(("read", None))
            # the names' mining in this process alone: the first start's other process resolves
            # people meanwhile, so no core is idle for a mining child, which only contended with
            # it (bench.first_minute: clone to first answer 56.7 -> 60.6 s with one)
            with gc_paused():  # as `build_index`
                conn.send(("ok", build_text_files(docs, Path(target), terms, names=names,
                                                  jobs=1)))
        except Exception as exc:
            conn.send(("error" if read else "unread", f"{type(exc).__name__}: {exc}"))
    conn.close()


def _write_paper_files(db: str, target: str, conn) -> None:
    _answer_from_store(db, conn, lambda store: build_paper_files(  # the name tables: the other
        store, index_docs(store), Path(target), store.author_slugs()))


def _write_name_files(db: str, target: str, conn) -> None:
    _answer_from_store(db, conn, lambda store: build_name_files(store, Path(target)))


def _answer_from_store(db: str, conn, work: Callable[[Any], object]) -> None:
    """Send what `work` makes of the store `db` (read-only, the collector paused as in
    `build_index`), or why it could not."""
    from paperfind.store import Store

    try:
        with gc_paused(), Store(db, readonly=True) as store:
            value = work(store)
        conn.send(("ok", value))
    except Exception as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


def export_texts(path: Path | str) -> list[tuple[str, str, list[str]]]:
    """(title, abstract, keywords) of every line of an export (`.jsonl` or `.jsonl.gz`).

    No checks: a line the store reads otherwise (or refuses) only has a digest the builder
    finds no paper for."""
    path = Path(path)
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        blob = fh.read()
    texts = []
    for line in io.BytesIO(blob):  # one line at a time: no second copy of the file's bytes
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            keywords = data.get("keywords") or []
            if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
                continue
            texts.append((data.get("title") or "", data.get("abstract") or "", keywords))
        except (ValueError, AttributeError):
            continue
    return [t for t in texts if isinstance(t[0], str) and isinstance(t[1], str)]


def analyze_export_texts(paths: Sequence[str]) -> TextTerms:
    with gc_paused():  # see there; this worker makes lists and dicts, no cycles
        return analyze_texts([text for path in paths for text in export_texts(path)])
