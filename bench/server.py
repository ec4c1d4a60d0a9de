"""A real `paperfind serve` for the benches that measure HTTP: started on a free port, ready when
/api/stats answers, stopped on the way out. And a real Milvus to serve from (`MilvusServer`:
`milvus-lite server`, the gRPC server Milvus Standalone speaks), for the benches and the tests."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.corpus import REPO


def raw_exchange(port: int, request: bytes, host: str = "127.0.0.1",
                 timeout: float = 60) -> tuple[bytes, dict[str, str], bytes]:
    """Send raw bytes (a request httpx would refuse to build) in 64 KiB writes on a new
    connection, stopping if the server answers or closes first; (status line, headers, body)
    of its answer. For the probes of what a hostile client can send (bench.probe, the tests)."""
    data = b""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            for start in range(0, len(request), 65536):
                sock.sendall(request[start:start + 65536])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before reading it all
        try:
            while chunk := sock.recv(65536):
                data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: *(\d+)", head)
                if length and len(body) >= int(length.group(1)):
                    break
        except (ConnectionResetError, TimeoutError):
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.split(b"\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.decode("latin-1").partition(":") for line in lines)}
    return status_line, headers, body


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 300.0) -> None:
    """Until `port` accepts a connection (the server opens it once ready); fails if `proc` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.002)
    raise RuntimeError("server did not open its port")


def start_server(db: Path, port: int, workers: int = 1, semantic: bool = True,
                 timeout: float = 600, env: dict[str, str] | None = None,
                 cwd: Path = REPO) -> subprocess.Popen:
    """`paperfind serve --db DB` on `port`, returned once /api/stats answers (a first start may
    build the database from the bundled corpus: `timeout` seconds). `env` adds variables for the
    server alone (a switch a bench compares); `cwd`, another checkout
    whose code to serve (a base ref's, run from its own folder). The server's stderr goes to a temporary file, so a
    long run cannot block on a full pipe; its end is shown if it stops."""
    env = {**os.environ, **({} if semantic else {"PAPERFIND_SEMANTIC": "0"}), **(env or {})}
    log = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen([sys.executable, "-m", "paperfind.cli", "serve", "--db", str(db), "--port", str(port),
                             "--workers", str(workers)], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=log, text=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise SystemExit(f"paperfind serve exited with {proc.returncode}:\n{log.read()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/stats", timeout=5).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise SystemExit(f"paperfind serve did not answer within {timeout:.0f} s")


def cpu_seconds(pid: int) -> float:
    """The CPU time a process (all its threads) has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(procs: list[subprocess.Popen], quiet: float = 3.0, timeout: float = 900) -> float:
    """Wait until every server has used under 5% of a core for `quiet` seconds: a server answers
    before its start-up is over (the index's side files, abstracts re-embedded after the port
    opens), and a latency bench timing that overlap measures the start-up, not the searches.
    Returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = [cpu_seconds(p.pid) for p in procs]
        time.sleep(quiet)
        if all(cpu_seconds(p.pid) - b < 0.05 * quiet for p, b in zip(procs, before)):
            break
    return time.monotonic() - started


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


MILVUS_LITE = Path(sys.executable).with_name("milvus-lite")


@dataclass
class MilvusServer:
    """One `milvus-lite server` process over `data_dir`; `kill()` stops it for real (SIGKILL),
    `start()` again; `hang()` freezes it (SIGSTOP: its port open, nothing answering),
    `resume()` lets it go on. `start` raises RuntimeError when it does not come up."""

    data_dir: Path
    port: int
    process: subprocess.Popen | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> None:
        from paperfind.milvus.client import MilvusConnection

        log = open(self.data_dir.with_suffix(".log"), "ab")
        self.process = subprocess.Popen(
            [str(MILVUS_LITE), "server", "--data-dir", str(self.data_dir), "--host", "127.0.0.1",
             "--port", str(self.port)], stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"milvus-lite server exited with {self.process.returncode}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("milvus-lite server did not open its port")
            time.sleep(0.1)
        conn = MilvusConnection(self.uri)
        while not conn.healthy():  # the port opens a moment before the servicer answers
            if time.monotonic() > deadline:
                raise RuntimeError("milvus-lite server does not answer")
            time.sleep(0.1)
        conn.close()

    def hang(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)  # a hung process is killed all the same
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
