"""A server runs Python's collector between its answers, not inside its searches.

A real uvicorn server over a real database slice, asked real searches over HTTP; which passes
the collector ran, and where, is read from Python's own `gc.callbacks` and the stack each pass
started on. No timing: where the passes fall is what decides a request's tail
(paperfind.web.collector).
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
from paperfind.web.collector import collect_between_answers
from tests.realdata import load_paperlist, write_slice
from bench.server import free_port

ENGINE = str(Path("paperfind") / "search" / "engine.py")
MIDDLEWARE = str(Path("paperfind") / "web" / "middleware.py")


@pytest.fixture
def python_collector() -> Iterator[list[dict]]:
    """The passes Python's collector runs while the test does (generation, thread, whether a
    `Searcher.search` is on the stack, whether the portal's middleware is: answering a request);
    its thresholds as they were afterwards."""
    threshold = gc.get_threshold()
    passes: list[dict] = []

    def record(phase: str, info: dict) -> None:
        if phase != "start":
            return
        frame, in_search, answering = sys._getframe(1), False, False
        while frame is not None:
            code = frame.f_code
            in_search = in_search or (code.co_name == "search"
                                      and code.co_filename.endswith(ENGINE))
            answering = answering or code.co_filename.endswith(MIDDLEWARE)
            frame = frame.f_back
        passes.append({"generation": info["generation"], "in_search": in_search,
                       "answering": answering, "thread": threading.current_thread().name})

    gc.callbacks.append(record)
    try:
        yield passes
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*threshold)


def test_the_pass_python_would_run_at_its_threshold_runs_when_asked(
        python_collector: list[dict]) -> None:
    gc.set_threshold(100_000, 10, 10)
    gc.collect()
    del python_collector[:]  # that pass was the test's own
    assert not collect_between_answers(0)  # 0: never
    kept = [[i] for i in range(500)]
    assert not collect_between_answers(10_000) and python_collector == []  # fewer pending: nothing
    assert collect_between_answers(400)
    assert [p["generation"] for p in python_collector] == [0] and gc.get_count()[0] < 10
    for _ in range(11):  # Python's own choice: the middle generation after ten young passes
        kept += [[i] for i in range(500)]
        assert collect_between_answers(400)
    assert [p["generation"] for p in python_collector] == [0] * 11 + [1]
    assert gc.get_threshold() == (100_000, 10, 10)  # its threshold as it was
    gc.disable()
    try:
        kept += [[i] for i in range(500)]
        assert not collect_between_answers(400)  # a collector turned off stays off
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("collector")
    source = write_slice(root / "src", "colt", 2019, load_paperlist("colt", 2019)[:40])
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([source], progress=False)
    return app.settings.db_path


def _serve(pf: Paperfind) -> tuple[uvicorn.Server, threading.Thread]:
    app = create_app(pf)
    config = uvicorn.Config(app, host="127.0.0.1", port=pf.settings.port, log_level="warning",
                            **UVICORN_OPTIONS)  # the portal's own loop (uvloop) and protocol
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    app.state.experts_warming.join(timeout=60)
    return server, thread


def test_no_collector_pass_runs_inside_a_search_nor_before_its_answer_is_written(
        db: Path, python_collector: list[dict]) -> None:
    """Nor while the middleware answers: under uvloop a transport's write is made when the
    request's coroutine returns to the loop, so a pass the coroutine ran after its `send` was
    inside the client's wait (paperfind.web.tidy: the loop runs it next, as a callback)."""
    # a low young threshold, so that the test's searches reach it many times over
    collector = CollectorSettings(young_threshold=3_000, between_answers=300)
    pf = Paperfind(Settings(db_path=db, port=free_port(), semantic=False, collector=collector))
    server, thread = _serve(pf)
    titles = [paper["title"] for paper in load_paperlist("colt", 2019)[:40]]
    try:
        del python_collector[:]  # the start-up's own passes are not the question
        with httpx.Client(base_url=f"http://127.0.0.1:{pf.settings.port}", timeout=60) as client:
            for round_ in range(3):
                for title in titles:  # each asked fresh: no answer from the response cache
                    query = " ".join(title.split()[round_:round_ + 5]) + f" {round_}"
                    answer = client.get("/api/search", params={"q": query, "mode": "lexical"})
                    assert answer.status_code == 200
        served = [p for p in python_collector if p["thread"] != threading.current_thread().name]
        assert served, "the searches left nothing to collect: the test would show nothing"
        assert [p for p in served if p["in_search"]] == []
        assert [p for p in served if p["answering"]] == []
    finally:
        server.should_exit = True
        thread.join(timeout=10)
