"""A server frees a search's objects, and runs the collector's pass, after the answer is written.

Under uvloop a transport's write is made when the request's coroutine returns to the loop, so
work the coroutine does after its `send` is done before the answer leaves (paperfind.web.tidy).
A real app over a real database slice, asked real searches: through ASGI in a running loop,
what the search worked with (its `CardDrafts`, one per fresh search) is counted with Python's
`gc` when the request's coroutine has returned and after the loop's next turn; and in a real
uvicorn server (the portal's protocol and options), where each collector pass started is read
from `gc.callbacks`. No timing is asserted.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

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


def _drafts(backend: object) -> set[int]:
    """The ids of the `CardDrafts` of searches over `backend` still referenced (collected first:
    one in a reference cycle lives until a pass; other tests' threads may be searching other
    apps meanwhile, and this one's drafts made before are compared, not counted)."""
    gc.collect()
    return {id(o) for o in gc.get_objects() if isinstance(o, CardDrafts) and o.backend is backend}


def _scope(app, params: dict[str, str]) -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": "/api/search", "raw_path": b"/api/search", "root_path": "",
            "query_string": urlencode(params).encode(), "headers": [(b"host", b"localhost")],
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80), "app": app}


def test_a_search_is_freed_after_its_answer_is_written_not_before(db: Path) -> None:
    pf = Paperfind(Settings(db_path=db, semantic=False))
    app, backend = create_app(pf), pf.searcher().backend()

    async def ask(params: dict[str, str]) -> tuple[int, int, int]:
        """(status, the search's drafts alive when the request's coroutine has returned,
        and after the loop's next turn: those that were not alive before it)"""
        status = 0

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            nonlocal status
            status = message.get("status", status)

        before = _drafts(backend)
        await app(_scope(app, params), receive, send)
        returned = len(_drafts(backend) - before)
        await asyncio.sleep(0)
        return status, returned, len(_drafts(backend) - before)

    async def main() -> None:
        for round_, title in enumerate(TITLES[:6]):
            query = " ".join(title.split()[:5]) + f" {round_}"  # fresh: not from the response cache
            # the plain search the middleware answers, and one the route answers (a filter)
            plain = round_ % 2 == 0
            params = {"q": query, "mode": "lexical"} if plain else \
                {"q": query, "mode": "lexical", "year": "2019"}
            status, returned, next_turn = await ask(params)
            assert status == 200
            if plain:  # held until the loop has written the answer
                assert (returned, next_turn) == (1, 0)
            else:  # the route's search frees its own as it returns
                assert (returned, next_turn) == (0, 0)

    asyncio.run(main())


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
