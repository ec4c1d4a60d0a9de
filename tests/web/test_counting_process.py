"""A server's counting process (paperfind.search.counting) lives and ends with the server: a real
`paperfind serve` over a real slice has one child counting for it, and none is left once the
server stops, whether it is stopped or killed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from bench.server import free_port, start_server, stop_server
from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.realdata import load_paperlist, write_slice


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("counting")
    source = write_slice(root / "src", "colt", 2019, load_paperlist("colt", 2019)[:30])
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([source], progress=False)
    return app.settings.db_path


def _counting_children(pid: int) -> list[int]:
    """The processes `pid` started that run the counting process's program."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                try:
                    with open(f"/proc/{child}/cmdline", "rb") as cmd:
                        if b"paperfind.search.counting" in cmd.read():
                            found.append(int(child))
                except FileNotFoundError:
                    pass
    return found


def _gone(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    return True  # exited, not yet reaped by its parent's parent
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("stop", ["terminate", "kill"])
def test_a_servers_counting_child_ends_with_the_server(db: Path, stop: str) -> None:
    port = free_port()
    server = start_server(db, port, semantic=False, timeout=300)
    try:
        children = _counting_children(server.pid)
        assert len(children) == 1, children
        answer = httpx.get(f"http://127.0.0.1:{port}/api/search", params={"q": "learning"}, timeout=60)
        assert answer.status_code == 200
    finally:
        if stop == "kill":
            os.kill(server.pid, signal.SIGKILL)  # no shutdown at all: the child sees its pipe close
            server.wait()
        else:
            stop_server(server)
    assert _gone(children[0]), "the counting process outlived its server"


def test_a_server_with_the_switch_off_has_no_child(db: Path) -> None:
    port = free_port()
    server = start_server(db, port, semantic=False, timeout=300, env={"PAPERFIND_COUNTING_PROCESS": "0"})
    try:
        assert _counting_children(server.pid) == []
    finally:
        stop_server(server)
