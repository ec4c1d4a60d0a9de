"""Serve the portal with uvicorn on the host and port of the settings."""

from __future__ import annotations

import uvicorn

from paperfind.core import Paperfind
from paperfind.web.app import create_app


def run(paperfind: Paperfind) -> None:
    """Block serving HTTP until interrupted (Ctrl-C)."""
    settings = paperfind.settings
    app = create_app(paperfind)
    print(f"paperfind: serving http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning",
                proxy_headers=False, server_header=False)
