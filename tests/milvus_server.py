"""A real Milvus for tests: `milvus-lite server` (Milvus Lite's gRPC server, the protocol Milvus
Standalone speaks) in its own process on a free port, over a directory of the test's."""

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

from paperfind.milvus.client import MilvusConnection
from bench.server import free_port

SERVER = Path(sys.executable).with_name("milvus-lite")


@dataclass
class MilvusServer:
    """One `milvus-lite server` process; `kill()` stops it for real (SIGKILL), `start()` again;
    `hang()` freezes it, `resume()` lets it go on."""

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

    def hang(self) -> None:
        """Stop the process without killing it (SIGSTOP): its port stays open, nothing answers."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)  # a hung process is killed all the same
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


def start_server(root: Path) -> MilvusServer:
    server = MilvusServer(root / "milvus.db", free_port())
    server.start()
    return server


