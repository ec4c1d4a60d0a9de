"""Helpers of the robustness tests: real slices, the real CLI in a subprocess, database snapshots."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx
import uvicorn

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
from paperfind.web.server import UVICORN_OPTIONS
from bench.server import free_port, raw_exchange

REPO = Path(__file__).resolve().parents[2]
# Tables a source file's ingest writes (people resolution is checked separately).
PAPER_TABLES = ("sources", "records", "papers", "paper_authors", "paper_affiliations", "keywords",
                "venues", "institutions")


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def run_cli(*args: str | Path, env: dict[str, str] | None = None) -> CliResult:
    """`paperfind ARGS` in a fresh interpreter, as a user would run it."""
    full_env = {**os.environ, "PAPERFIND_SEMANTIC": "0", **(env or {})}
    done = subprocess.run([sys.executable, "-m", "paperfind.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, env=full_env)
    return CliResult(done.returncode, done.stdout, done.stderr)


def snapshot(db: Path, where_source: str | None = None) -> dict[str, list[tuple]]:
    """Every row of the paper tables (or only the rows of one source file), sorted, to compare states."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if where_source is not None:
            rows = conn.execute("SELECT r.ident, r.paper_key, r.content_hash, r.data FROM records r "
                                "JOIN sources s ON s.id = r.source_id WHERE s.path = ?",
                                (where_source,)).fetchall()
            source = conn.execute("SELECT path, sha256, records, skipped FROM sources WHERE path = ?",
                                  (where_source,)).fetchall()
            return {"records": sorted(rows), "sources": source}
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                for t in PAPER_TABLES}
    finally:
        conn.close()


@dataclass
class LivePortal:
    url: str
    paperfind: Paperfind
    client: httpx.Client
    server: uvicorn.Server


@contextmanager
def live_portal(db: Path) -> Iterator[LivePortal]:
    """The real app over `db`, served by uvicorn on a free loopback port in a thread."""
    port = free_port()
    pf = Paperfind(Settings(db_path=db, port=port, semantic=False))
    server = uvicorn.Server(uvicorn.Config(create_app(pf), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off", **UVICORN_OPTIONS))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the portal did not start"
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            yield LivePortal(url, pf, client, server)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def raw_request(url: str, request: bytes) -> bytes:
    """Send raw bytes to the portal (for requests httpx refuses to build); the status line back."""
    return raw_response(url, request)[0]


def raw_response(url: str, request: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """(status line, headers, body) the portal at `url` answers to raw bytes (bench.server)."""
    host, port = url.removeprefix("http://").split(":")
    return raw_exchange(int(port), request, host=host, timeout=30)
