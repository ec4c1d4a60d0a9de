"""One part of a computation in a forked child (paperfind.index.forked): its result comes back,
and a child that fails or dies fails the caller with what happened instead of leaving it
waiting."""

from __future__ import annotations

import os
import signal
import time

import pytest

from paperfind.index.forked import ForkedError, chunks_in_two, in_two

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: both parts run in one process")


def test_the_childs_part_runs_in_another_process_and_comes_back() -> None:
    here = os.getpid()
    (child_pid, child_rows), (parent_pid, parent_rows) = in_two(
        lambda: (os.getpid(), list(range(5, 10))), lambda: (os.getpid(), list(range(5))))
    assert parent_pid == here and child_pid != here
    assert parent_rows + child_rows == list(range(10))


def test_what_the_child_changes_stays_in_the_child() -> None:
    cache: dict[str, int] = {}
    child, parent = in_two(lambda: cache.setdefault("child", 1), lambda: cache.setdefault("parent", 2))
    assert (child, parent) == (1, 2) and cache == {"parent": 2}


def test_a_child_that_raises_fails_the_caller_with_its_message() -> None:
    def child() -> None:
        raise ValueError("no postings for 'BigGANs'")

    with pytest.raises(ForkedError, match=r"ValueError: no postings for 'BigGANs'"):
        in_two(child, lambda: None)


def test_a_child_that_dies_without_a_word_fails_the_caller() -> None:
    def child() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(ForkedError, match="killed by signal 9"):
        in_two(child, lambda: None)


def test_a_parent_that_fails_ends_the_child_it_no_longer_waits_for() -> None:
    def child() -> None:
        time.sleep(3600)

    def parent() -> None:
        raise KeyError("the parent's part")

    children_before = _children()
    with pytest.raises(KeyError):
        in_two(child, parent)
    assert _children() == children_before  # killed and reaped: no child left behind


def _children() -> set[int]:
    path = f"/proc/{os.getpid()}/task/{os.getpid()}/children"
    if not os.path.exists(path):
        pytest.skip("no /proc children list here")
    with open(path) as f:
        return {int(p) for p in f.read().split()}


def test_chunks_are_worked_by_either_process_and_come_back_in_row_order() -> None:
    here, (read_end, write_end) = os.getpid(), os.pipe()

    def work(lo: int, hi: int) -> tuple[int, list[int]]:
        if os.getpid() != here:
            os.write(write_end, b".")
        return os.getpid(), list(range(lo, hi))

    # this process's own part ends once the child has worked a chunk: both take some
    parts, first = chunks_in_two(work, 103, 10, lambda: os.read(read_end, 1))
    assert first == b"."
    assert [row for _, rows in parts for row in rows] == list(range(103))
    assert len(parts) == 11 and {pid for pid, _ in parts} - {here}  # the child took some


def test_a_chunk_that_fails_in_the_child_fails_the_caller_with_its_message() -> None:
    here, (read_end, write_end) = os.getpid(), os.pipe()

    def work(lo: int, hi: int) -> int:
        if os.getpid() != here:
            os.write(write_end, b".")
            raise ValueError(f"rows {lo}..{hi} unreadable")
        return lo

    with pytest.raises(ForkedError, match=r"ValueError: rows \d+\.\.\d+ unreadable"):
        chunks_in_two(work, 100, 1, lambda: os.read(read_end, 1))  # the child fails first
