"""A match set's facets, trend and total counted in a second process while the search ranks.

The counts of a search depend only on its match set; the candidates' cut, the second stage and
the cards depend on its ranking. A server's search therefore hands a large match set to a child
process as soon as it is known and collects the counted parts before it answers: at the bundled
corpus a broad query's tally, its works' finish, the facet lists and the trend were ~1 ms of a
5-7 ms search, and a worker thread could not overlap them (numpy's bincount holds the GIL:
bench/RESULTS.md, issue 33, lat38). The child opens the same index version read-only by its path
(its files memory-mapped: the pages are the parent's, in the page cache) and reads the rows from
a shared file; each side's answer is the same function of the same files (`counted_parts`), so
the answer is byte-identical with the child or without it.

Only a server starts one (`LiveIndex.load_for_serving`): a one-shot CLI search never pays the
process's start. One search at a time uses it; a second concurrent search counts in its own
process, as does a search whose match set is small (the hand-off, ~0.1 ms, would cost more than
it saves), and every search once the child has failed (it is then stopped, with a log line).
The child exits when its parent does (its input pipe closes): no orphan outlives a server.
"""

from __future__ import annotations

import atexit
import ctypes
import mmap
import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from paperfind.search.trend import trend, work_facets

if TYPE_CHECKING:
    from paperfind.search.backend import Facets
    from paperfind.search.trend import WorkCounts

_HEADER = struct.Struct("<I")  # a message's length, then its pickle
ROW_TYPE = np.int32  # an index's rows (fewer than 2**31 papers)
_SHARED_DIR = "/dev/shm"  # the rows' file in memory where the system has it
# the child's program: `serve` imported (run as __main__, its answers would pickle as __main__'s)
_CHILD = "import sys; from paperfind.search.counting import serve; serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))"
_REQUEST_BYTES = 4096  # the shared file's head: a request's parameters, pickled (the rows follow)


@dataclass(frozen=True)
class TrendSpan:
    """What a trend is drawn over: the filters' year range and the venues drawn beside it."""

    year_from: int | None
    year_to: int | None
    venues: int


@dataclass(frozen=True)
class CountedParts:
    """What a response shows of its match set's counts: the facets (works for the year and
    venue, papers for the others), the trend (None: not asked), the total in works."""

    facets: dict[str, list[list]]
    trend: dict | None
    total_works: int
    exact: bool


def counted_parts(counts: "Facets", corpus: "WorkCounts", span: TrendSpan, facets: bool,
                  drawn: bool, facet_names: tuple[str, ...]) -> CountedParts:
    """The response's parts from a match set's `Facets` (the searcher's and the child's one
    function: the same counts give the same JSON whichever process counted them)."""
    shown = {}
    if facets:
        in_works = work_facets(counts.works)
        shown = {f: in_works[f] if f in in_works else counts.papers[f] for f in facet_names}
    line = trend(counts.works, corpus, span.year_from, span.year_to, span.venues) if drawn else None
    return CountedParts(shown, line, counts.total_works, counts.exact)


def _libc_current_cpu():
    """libc's `sched_getcpu` (this Python's `os` has none), or None where it is missing."""
    try:
        function = ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = ctypes.c_int, []
    return function


_SCHED_GETCPU = _libc_current_cpu()


def current_cpu() -> int | None:
    """The CPU the calling thread runs on now (None: not known on this system)."""
    if _SCHED_GETCPU is None:
        return None
    cpu = _SCHED_GETCPU()
    return cpu if cpu >= 0 else None


def cpus_beside(allowed: frozenset[int], busy: int | None) -> frozenset[int] | None:
    """The CPUs the child may run on while the search runs on `busy`: every allowed one but
    it, so that the woken child starts beside the search instead of waiting for it on its core
    (Linux's wake-affine placement put it there: bench/RESULTS.md, lat39/lat40). None: leave its
    affinity alone (one CPU, the search's CPU unknown or outside the server's set)."""
    if busy is None or busy not in allowed or len(allowed) < 2:
        return None
    return allowed - {busy}


def _send(pipe: BinaryIO, message: object) -> None:
    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    pipe.write(_HEADER.pack(len(blob)) + blob)
    pipe.flush()


def _read_exactly(fd: int, n: int) -> bytes:
    parts, left = [], n
    while left:
        part = os.read(fd, left)
        if not part:
            raise EOFError("the counting process's pipe closed")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _receive(fd: int) -> object:
    (n,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size))
    return pickle.loads(_read_exactly(fd, n))


@dataclass
class CountsOrder:
    """What a search asks counted (its facets' papers, the trend's span, which parts) and the
    match set it handed ahead, if any (`SearchBackend.counts_ahead`)."""

    papers: tuple[str, ...]
    span: TrendSpan
    facets: bool
    drawn: bool
    handed: list["CountsAhead"] = field(default_factory=list)

    def key(self, request_key: tuple) -> tuple:
        return (request_key, self.papers, self.span, self.facets, self.drawn)

    def take(self, request_key: tuple | None, extra: np.ndarray) -> CountedParts | None:
        """The parts counted ahead for the request the counts are over (None: none, or not
        usable), every hand-off collected."""
        parts = None
        for ahead in self.handed:
            got = ahead.take(self.key(request_key), extra) if request_key is not None else None
            parts = parts or got
        self.drop()
        return parts

    def drop(self) -> None:
        for ahead in self.handed:
            ahead.drop()
        self.handed.clear()


class CountsAhead:
    """One search's match set handed to the child: `take` its parts, or `drop` them. Either
    frees the child for the next search (once: both may be called)."""

    def __init__(self, process: "CountingProcess", key: tuple, rows: np.ndarray) -> None:
        self.process, self.key, self.rows = process, key, rows
        self._open = True

    def take(self, key: tuple, extra: np.ndarray) -> CountedParts | None:
        """The counted parts if the search asks them of the match set it handed (`key`: its
        request's cache key, papers and parts asked) and counts no row beyond it (`extra`: the
        pool's, among the matches in the lexical mode); None otherwise or on the child's failure
        (the search then counts in process)."""
        from paperfind.search.backend import beyond

        if not self._open:
            return None
        self._open = False
        parts = self.process._collect()
        if parts is None or key != self.key or len(beyond(extra, self.rows)):
            return None
        return parts

    def drop(self) -> None:
        if self._open:
            self._open = False
            self.process._collect()


class CountingProcess:
    """The child that counts match sets of one index version (module doc). `min_rows`: the
    smallest match set handed to it; `timeout`: seconds a search waits for its counts before
    it counts them itself and the child is stopped."""

    def __init__(self, index_path: Path, n_docs: int, min_rows: int, timeout: float = 2.0) -> None:
        self.index_path, self.n_docs, self.min_rows, self.timeout = Path(index_path), n_docs, min_rows, timeout
        self._busy = threading.Lock()
        self._ready = False
        self._failed = False
        self.answers = 0  # match sets it counted for a search
        shared = _SHARED_DIR if os.path.isdir(_SHARED_DIR) and os.access(_SHARED_DIR, os.W_OK) else None
        # the rows' file is unlinked at once, the child inheriting its descriptor: a server killed
        # at any time leaves nothing behind in /dev/shm (lat39's flaw: a name kept until "ready")
        fd, self._rows_path = tempfile.mkstemp(prefix="paperfind-rows-", dir=shared)
        try:
            os.unlink(self._rows_path)
            os.ftruncate(fd, _REQUEST_BYTES + 4 * max(1, n_docs))
            self._map = mmap.mmap(fd, _REQUEST_BYTES + 4 * max(1, n_docs))
        except BaseException:
            os.close(fd)
            raise
        # rows as int32: half the bytes the search copies (0.1-0.4 ms of a broad one's at int64)
        self._rows = np.frombuffer(self._map, dtype=ROW_TYPE, count=n_docs, offset=_REQUEST_BYTES)
        # the child is woken by an eventfd, not by a write to its pipe: a pipe's wake-up is a
        # "sync" one, which the scheduler served by running the child on the search's own core
        # (the hand-off took as long as the count: 0.9-1.4 ms in a served server at 156k)
        self._wake = os.eventfd(0)
        # the CPUs the server may use (the child's set is these but the searching thread's)
        self._cpus = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else frozenset()
        self._kept_off: int | None = None  # the CPU the child's affinity now excludes
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(self.index_path), str(fd), str(self._wake)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True, pass_fds=(self._wake, fd))
        finally:
            os.close(fd)
        atexit.register(self.close)

    @property
    def alive(self) -> bool:
        return not self._failed and self.proc.poll() is None

    def wait_ready(self, timeout: float) -> bool:
        """Whether the child is ready to count, waiting up to `timeout` seconds for it (a
        search never waits: until then it counts in process)."""
        with self._busy:
            if not self._ready and not self._failed:
                select.select([self.proc.stdout.fileno()], [], [], timeout)
                self._became_ready()
            return self._ready and self.alive

    def ahead(self, rows: np.ndarray, key: tuple, papers: tuple[str, ...], span: TrendSpan,
              facets: bool, drawn: bool) -> CountsAhead | None:
        """Hand `rows` (the match set, ascending) to the child, or None: too few, the child not
        ready or failed, or busy with another search's (which this one does not wait for)."""
        if len(rows) < self.min_rows or self._failed or not self._busy.acquire(blocking=False):
            return None
        try:
            if not self._ready and not self._became_ready():
                self._busy.release()
                return None
            self._rows[:len(rows)] = rows
            request = pickle.dumps((len(rows), papers, span, facets, drawn), protocol=pickle.HIGHEST_PROTOCOL)
            self._map[:_HEADER.size + len(request)] = _HEADER.pack(len(request)) + request
            self._keep_child_off(current_cpu())
            os.eventfd_write(self._wake, 1)
        except Exception as exc:  # noqa: BLE001 - any failure: this search counts in process
            self._fail(f"handing it a match set failed: {exc!r}")
            self._busy.release()
            return None
        return CountsAhead(self, key, rows)

    def _keep_child_off(self, busy: int | None) -> None:
        """Let the child run on every CPU but the searching thread's (`cpus_beside`): one
        system call when the search's CPU changed since the last hand-off, none otherwise."""
        if busy == self._kept_off:
            return
        beside = cpus_beside(self._cpus, busy)
        if beside is None:
            return
        os.sched_setaffinity(self.proc.pid, beside)
        self._kept_off = busy

    def _became_ready(self) -> bool:
        """Whether the child has said it is ready (without waiting)."""
        fd = self.proc.stdout.fileno()
        if not select.select([fd], [], [], 0)[0]:
            if self.proc.poll() is not None:
                self._fail("it exited before it was ready")
            return False
        if _receive(fd) != "ready":
            self._fail("it did not start as expected")
            return False
        self._ready = True
        return True

    def _collect(self) -> CountedParts | None:
        """The child's answer to the match set handed (None: it failed or took too long)."""
        try:
            fd = self.proc.stdout.fileno()
            if not select.select([fd], [], [], self.timeout)[0]:
                self._fail(f"no answer within {self.timeout} s")
                return None
            answer = _receive(fd)
            if not isinstance(answer, CountedParts):
                self._fail(f"it failed: {answer}")
                return None
            self.answers += 1
            return answer
        except Exception as exc:  # noqa: BLE001 - a dead child: this search counts in process
            self._fail(f"reading its answer failed: {exc!r}")
            return None
        finally:
            self._busy.release()

    def _fail(self, why: str) -> None:
        if not self._failed:
            self._failed = True
            print(f"paperfind: the counting process stopped ({why}); searches count their facets "
                  "in process", file=sys.stderr, flush=True)
        self._stop()

    def _stop(self) -> None:
        try:
            os.close(self._wake)
        except OSError:
            pass
        try:
            if self.proc.stdin and not self.proc.stdin.closed:
                self.proc.stdin.close()  # the child's read ends: it exits
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        """Stop the child (an index's next generation, the server's end); a search that has
        handed it a match set then counts in process."""
        self._failed = True
        self._stop()
        if self.proc.stdout and not self.proc.stdout.closed:
            self.proc.stdout.close()
        atexit.unregister(self.close)


def serve(index_path: str, rows_fd: int, wake: int) -> None:
    """The child's loop: match sets in, their counted parts out, until its input closes."""
    from paperfind.index.manager import open_version
    from paperfind.search.backend import PAPER_FACETS, IndexBackend

    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt the pipe
    index = open_version(Path(index_path))
    if index is None:
        _send(out, f"no index version at {index_path}")
        return
    index.docs.load_kernel()
    backend = IndexBackend(index)
    corpus = backend.corpus_stats().works
    shared = mmap.mmap(rows_fd, 0, access=mmap.ACCESS_READ)
    os.close(rows_fd)
    rows = np.frombuffer(shared, dtype=ROW_TYPE, count=backend.n_docs, offset=_REQUEST_BYTES)
    _send(out, "ready")
    ended = sys.stdin.fileno()  # nothing is written to it: readable once the parent closes it or dies
    while True:
        if ended in select.select([wake, ended], [], [])[0]:
            return
        os.eventfd_read(wake)
        (size,) = _HEADER.unpack(shared[:_HEADER.size])
        n, papers, span, facets, drawn = pickle.loads(shared[_HEADER.size:_HEADER.size + size])
        try:
            counts = backend.facets(None, rows[:n], papers)
            answer: object = counted_parts(counts, corpus, span, facets, drawn, PAPER_FACETS)
        except Exception as exc:  # noqa: BLE001 - reported: the parent counts in process
            answer = f"{type(exc).__name__}: {exc}"
        _send(out, answer)

