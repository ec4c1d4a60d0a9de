"""The query vector's worker thread (paperfind.embed.queries.QueryPrefetch, issue 33): `start`
returns once an idle worker has taken the job (it would otherwise wait for the caller to let
go of the GIL), `pending` says whether the vector is still being made, `take` claims it."""

from __future__ import annotations

import threading

import numpy as np

from paperfind.embed.queries import QueryPrefetch


class Blocking:
    """An encode function that says when it began and ends when released (the network edge
    of these tests: the query model itself is not what they are about)."""

    def __init__(self) -> None:
        self.began: dict[str, threading.Event] = {}
        self.release = threading.Event()

    def __call__(self, text: str) -> np.ndarray:
        self.began.setdefault(text, threading.Event()).set()
        self.release.wait()
        return np.full(3, len(text), dtype=np.float32)


def test_start_returns_once_the_worker_has_taken_the_job():
    prefetch, encode = QueryPrefetch(), Blocking()
    prefetch.handoff_s = 60.0  # a bound only: an idle worker takes the job at once
    for text in ("first query", "second query"):
        encode.release.clear()
        prefetch.start(text, encode)
        assert encode.began[text].is_set()  # no wait here: it began before start returned
        assert prefetch.pending(text)
        encode.release.set()
        np.testing.assert_array_equal(prefetch.take(text, encode), np.full(3, len(text)))
        assert not prefetch.pending(text)


def test_a_busy_worker_is_not_waited_for():
    """With the worker still on another query's vector, `start` queues the job and returns."""
    prefetch, encode = QueryPrefetch(), Blocking()
    prefetch.start("running", encode)
    prefetch.handoff_s = 3600.0  # were it waited for, this test would hang
    prefetch.start("queued", encode)
    assert "queued" not in encode.began and prefetch.pending("queued")
    encode.release.set()
    assert prefetch.take("queued", encode)[0] == len("queued")
    assert prefetch.take("running", encode)[0] == len("running")
    assert not prefetch.pending("running") and not prefetch.pending("never started")


def test_a_follow_up_runs_on_the_worker_after_the_vector():
    """Issue 33: `start_after` runs its job with the vector once it is made (the vector's
    search, while the caller may still draft cards); `pending` says the vector is made, the
    follow-up being short; `take_after` returns its result only for what it was asked with."""
    prefetch, encode = QueryPrefetch(), Blocking()
    prefetch.start("a query", encode)
    ran_on = []
    go = threading.Event()

    def follow(vector):
        ran_on.append(threading.current_thread().name)
        go.wait()
        return vector * 2

    prefetch.start_after("a query", ("asked", 5), follow)
    prefetch.start_after("never started", ("asked", 5), follow)  # nothing to follow: ignored
    encode.release.set()
    while prefetch.pending("a query"):  # the vector is being made; then its follow-up runs
        threading.Event().wait(0.001)
    assert not ran_on or ran_on == ["paperfind-embed_0"]
    go.set()
    assert prefetch.take_after("a query", lambda asked: asked == ("asked", 5)).tolist() == [14.0] * 3
    assert ran_on and ran_on[0].startswith("paperfind-embed")
    assert not prefetch.pending("a query") and not prefetch.started("a query")
    assert prefetch.take_after("never started", lambda asked: True) is None


def test_a_follow_up_asked_otherwise_leaves_the_vector_to_take():
    prefetch, encode = QueryPrefetch(), Blocking()
    encode.release.set()
    prefetch.start("a query", encode)
    prefetch.start_after("a query", ("asked", 5), lambda vector: vector * 2)
    assert prefetch.take_after("a query", lambda asked: asked == ("asked", 6)) is None
    assert prefetch.take("a query", encode).tolist() == [7.0] * 3
