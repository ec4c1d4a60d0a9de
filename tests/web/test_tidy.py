"""A server frees a search's objects and runs the collector's pass after the answer is written.

Under uvloop a transport's write is made when the request's coroutine returns to the loop, so
work the coroutine does after its `send` is done before the answer leaves (paperfind.web.tidy):
both are a callback the loop runs next. A real uvicorn server (the portal's protocol and
options) over a real database slice, asked real searches over HTTP; where each collector pass
started is read from `gc.callbacks`: none while the portal's middleware is answering. No timing
is asserted.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from paperfind.core import Paperfind
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


@pytest.fixture
def served(db: Path) -> Iterator[httpx.Client]:
    """A client of a real server of `db` whose collector passes are due often."""
    collector = CollectorSettings(young_threshold=3_000, between_answers=300)
    pf = Paperfind(Settings(db_path=db, port=free_port(), semantic=False, collector=collector))
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


def test_the_collector_runs_after_the_answer_not_inside_it(python_collector: list[dict],
                                                           served: httpx.Client) -> None:
    del python_collector[:]  # the start-up's own passes are not the question
    for round_ in range(3):
        for title in TITLES:
            query = " ".join(title.split()[round_:round_ + 5]) + f" {round_}"
            assert served.get("/api/search", params={"q": query, "mode": "lexical"}).status_code == 200
    time.sleep(0.1)
    mine = threading.current_thread().name
    served_passes = [p for p in python_collector if p["thread"] != mine]
    assert served_passes, "the searches left nothing to collect: the test would show nothing"
    assert [p for p in served_passes if p["answering"]] == []
