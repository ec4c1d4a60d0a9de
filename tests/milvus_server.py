"""A real Milvus for tests: `milvus-lite server` (Milvus Lite's gRPC server, the protocol Milvus
Standalone speaks) in its own process on a free port, over a directory of the test's
(bench.server.MilvusServer, shared with the benches)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.server import MilvusServer, free_port

__all__ = ["MilvusServer", "free_port", "start_server"]


def start_server(root: Path) -> MilvusServer:
    server = MilvusServer(root / "milvus.db", free_port())
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    return server
