"""A real Milvus for the tests: `milvus-lite server` (Milvus Lite's gRPC server, the protocol
Milvus Standalone speaks) in its own process on a free port, over a temporary directory, and
a database of real slices (COLT 2019, CoRL 2022, ICLR 2017) synced into it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from paperfind.index.manager import build_index, open_index
from paperfind.ingest.run import ingest_paths
from paperfind.milvus.client import MilvusConnection
from paperfind.store import Store
from tests.realdata import PAPERLISTS

SLICE = [("colt", 2019), ("corl", 2022), ("iclr", 2017)]
SERVER = Path(sys.executable).with_name("milvus-lite")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class MilvusServer:
    """One `milvus-lite server` process; `kill()` stops it for real (SIGKILL), `start()` again."""

    data_dir: Path
    port: int
    process: subprocess.Popen | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.data_dir.with_suffix(".log"), "ab")
        self.process = subprocess.Popen(
            [str(SERVER), "server", "--data-dir", str(self.data_dir), "--host", "127.0.0.1",
             "--port", str(self.port)], stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"milvus-lite server exited with {self.process.returncode}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                pytest.fail("milvus-lite server did not open its port")
            time.sleep(0.1)
        conn = MilvusConnection(self.uri)
        while not conn.healthy():  # the port opens a moment before the servicer answers
            if time.monotonic() > deadline:
                pytest.fail("milvus-lite server does not answer")
            time.sleep(0.1)
        conn.close()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


def start_server(root: Path) -> MilvusServer:
    server = MilvusServer(root / "milvus.db", _free_port())
    server.start()
    return server


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("milvus"))
    yield server
    server.kill()


@pytest.fixture(scope="session")
def slice_db(tmp_path_factory) -> Path:
    """A database of the slices, with its local index (the reference, and the vocabulary)."""
    root = tmp_path_factory.mktemp("milvus-slice")
    store = Store(root / "slice.db")
    ingest_paths(store, [PAPERLISTS / v / f"{v}{y}.json.gz" for v, y in SLICE], progress=False)
    build_index(store, root / "slice.db.index")
    store.close()
    return root / "slice.db"


@pytest.fixture(scope="session")
def synced(slice_db, milvus_server):
    """The slice database synced into collection `paperfind_slice` (once per session)."""
    from paperfind.milvus.sync import sync_store

    conn = MilvusConnection(milvus_server.uri)
    report = sync_store(Store(slice_db), conn, "paperfind_slice")
    assert report.upserted == report.papers > 800
    return conn


@pytest.fixture(scope="session")
def local_index(slice_db):
    from paperfind.search.backend import IndexBackend

    return IndexBackend(open_index(Path(str(slice_db) + ".index")))
