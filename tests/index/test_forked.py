"""One part of a computation in a forked child (paperfind.index.forked): its result comes back,
and a child that fails or dies fails the caller with what happened instead of leaving it
waiting."""

from __future__ import annotations

import os
import signal
import time

import pytest

from paperfind.index.forked import ForkedError, in_two

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
