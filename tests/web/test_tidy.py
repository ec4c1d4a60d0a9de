"""A server frees a search's objects, and runs the collector's pass, once the answer has been read.

A real uvicorn server (the portal's own protocol and options) over a real database slice, asked
real searches over HTTP from this process: what the search worked with (its `CardDrafts`, one
per fresh search) is counted with Python's `gc` right after the client has read the answer,
and where each collector pass started is read from `gc.callbacks`. No timing is asserted: the
delay is made long (300 ms) so that "not yet" cannot be a race (paperfind.web.tidy says why the
work waits for the client).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import uvicorn

from paperfind.core import Paperfind
from paperfind.search.drafts import CardDrafts
from paperfind.settings import CollectorSettings, Settings
from paperfind.web.app import create_app
from paperfind.web.server import UVICORN_OPTIONS
from tests.realdata import load_paperlist, write_slice
from bench.server import free_port

MIDDLEWARE = str(Path("paperfind") / "web" / "middleware.py")
TITLES = [paper["title"] for paper in load_paperlist("colt", 2019)[:40]]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tidy")
    source = write_slice(root / "src", "colt", 2019, load_paperlist("colt", 2019)[:40])
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([source], progress=False)
    return app.settings.db_path


def _drafts_alive() -> int:
    return sum(isinstance(o, CardDrafts) for o in gc.get_objects())


def _wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.fixture
def served(db: Path, request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    """A client of a real server of `db` whose collector settings are the test's parameter."""
    pf = Paperfind(Settings(db_path=db, port=free_port(), semantic=False, collector=request.param))
    app = create_app(pf)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=pf.settings.port,
                                           log_level="warning", **UVICORN_OPTIONS))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    app.state.experts_warming.join(timeout=60)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{pf.settings.port}", timeout=60) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


LATER = CollectorSettings(young_threshold=3_000, between_answers=300, tidy_delay_ms=300)


@pytest.mark.parametrize("served", [LATER], indirect=True)
def test_a_search_is_freed_after_its_answer_is_read_not_before(served: httpx.Client) -> None:
    for round_, title in enumerate(TITLES[:6]):
        assert _wait_until(lambda: _drafts_alive() == 0), "an earlier search was never freed"
        query = " ".join(title.split()[:5]) + f" {round_}"  # fresh: not from the response cache
        # both the plain search the middleware answers and one the route answers (a filter)
        params = {"q": query, "mode": "lexical"} if round_ % 2 == 0 else \
            {"q": query, "mode": "lexical", "year": "2019"}
        answer = served.get("/api/search", params=params)
        assert answer.status_code == 200 and answer.json()["results"]
        if round_ % 2 == 0:  # the plain answer's search is held until the delay has passed
            assert _drafts_alive() == 1
        assert _wait_until(lambda: _drafts_alive() == 0)


@pytest.fixture
def python_collector() -> Iterator[list[dict]]:
    """The passes Python's collector runs while the test does: its thread, and whether the
    portal's middleware was answering a request when it started."""
    threshold = gc.get_threshold()
    passes: list[dict] = []

    def record(phase: str, info: dict) -> None:
        if phase != "start":
            return
        frame, answering = sys._getframe(1), False
        while frame is not None:
            answering = answering or frame.f_code.co_filename.endswith(MIDDLEWARE)
            frame = frame.f_back
        passes.append({"answering": answering, "thread": threading.current_thread().name})

    gc.callbacks.append(record)
    try:
        yield passes
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*threshold)


@pytest.mark.parametrize("served", [replace(LATER, tidy_delay_ms=1.0)], indirect=True)
def test_the_collector_runs_after_the_answer_not_inside_it(served: httpx.Client,
                                                           python_collector: list[dict]) -> None:
    for round_ in range(3):
        for title in TITLES:
            query = " ".join(title.split()[round_:round_ + 5]) + f" {round_}"
            assert served.get("/api/search", params={"q": query, "mode": "lexical"}).status_code == 200
    time.sleep(0.1)
    mine = threading.current_thread().name
    served_passes = [p for p in python_collector if p["thread"] != mine]
    assert served_passes, "the searches left nothing to collect: the test would show nothing"
    assert [p for p in served_passes if p["answering"]] == []
