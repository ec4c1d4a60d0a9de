"""Run one part of a pure computation in a forked child while this process runs another.

The name mining at a million papers is minutes of one Python process, with the machine's
other core idle, and its inputs are big read-only arrays and lists that a child must not copy.
A fork shares them (pages are copied only when written: the collector is frozen before the
fork so that the child's collections do not write to every object's header), runs the child's
part and sends back its result pickled over a pipe. No pool, no start-up beyond the fork: the
child is made for one call and ends with it.

A child that raises fails the caller with its message (`ForkedError`); one that dies without a
word (killed) does too, by its exit status; the parent never waits on a child that ended. On
systems without fork both parts run here, one after the other.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import traceback
from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
B = TypeVar("B")
R = TypeVar("R")


class ForkedError(RuntimeError):
    """The child's part failed: its exception's type and message (and traceback), or how it ended."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def in_two(child: Callable[[], A], parent: Callable[[], B]) -> tuple[A, B]:
    """(child(), parent()): `child` in a forked process, `parent` here meanwhile.

    `child`'s result must pickle; what it changes in its process's memory is lost (the caller's
    caches stay as the parent left them). Both parts must be pure of effects outside memory.
    """
    if not can_fork():
        return child(), parent()
    read_end, write_end = os.pipe()
    gc.freeze()  # the objects alive now go to a generation the child's collections never walk
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _run_child(child, write_end)
    gc.unfreeze()
    os.close(write_end)
    reaped = False
    try:
        mine = parent()
        data = _read_all(read_end)
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        os.close(read_end)
        if not reaped:  # the parent's part failed: the child's answer is no longer wanted
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if not data:
        raise ForkedError(f"the child process ended without a result ({_ended(status)})")
    outcome, value = pickle.loads(data)
    if outcome != "ok":
        raise ForkedError(value)
    return value, mine


def chunks_in_two(work: Callable[[int, int], R], n: int, chunk: int,
                  first: Callable[[], B] | None = None) -> tuple[list[R], B | None]:
    """([work(0, chunk), work(chunk, 2 * chunk), ..., up to n], first()): the chunks of rows
    0..n-1 worked by this process and a forked child, each taking the next chunk whenever it is
    free, this process after `first` (the part of the computation only it does).

    Taking chunks as they come balances the two whatever a row costs and however long `first`
    takes (a fixed split of the name mining's rows at 156k papers left the parent, which found
    the citations and acronyms first, 21 s at work against the child's 9). `work` must give the
    same answer for a chunk in either process.
    """
    chunks = -(-n // chunk) if n > 0 else 0
    if not can_fork():
        done = {i: work(i * chunk, min(n, (i + 1) * chunk)) for i in range(chunks)}
        return [done[i] for i in range(chunks)], first() if first is not None else None
    taken = multiprocessing.get_context("fork").Value("q", 0)  # shared memory, and its lock

    def drain() -> list[tuple[int, R]]:
        done = []
        while True:
            with taken.get_lock():
                i = taken.value
                taken.value = i + 1
            if i >= chunks:
                return done
            done.append((i, work(i * chunk, min(n, (i + 1) * chunk))))

    def parent() -> tuple[B | None, list[tuple[int, R]]]:
        head = first() if first is not None else None
        return head, drain()

    by_child, (head, by_parent) = in_two(drain, parent)
    done = dict(by_child + by_parent)
    return [done[i] for i in range(chunks)], head


def _run_child(child: Callable[[], object], write_end: int) -> None:
    code = 0
    try:
        try:
            payload = pickle.dumps(("ok", child()), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - every failure goes to the parent, said
            code = 1
            text = "".join(traceback.format_exception(exc)).rstrip()
            payload = pickle.dumps(("error", f"{type(exc).__name__}: {exc}\n{text}"))
        view = memoryview(payload)
        while view:
            view = view[os.write(write_end, view):]
    finally:
        os._exit(code)  # no atexit handlers, no buffers of the parent's flushed twice


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
