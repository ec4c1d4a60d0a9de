"""Serve the portal with uvicorn on the host and port of the settings."""

from __future__ import annotations

import os

import uvicorn
from fastapi import FastAPI

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app


def run(paperfind: Paperfind) -> None:
    """Block serving HTTP until interrupted (Ctrl-C).

    With several workers uvicorn starts its own processes, which cannot be handed an object:
    they rebuild the same settings from the environment (`create_app_from_env`).
    """
    settings = paperfind.settings
    # keep-alive 30 s, not uvicorn's 5: under load a response can take seconds, and a client
    # reusing a connection the server is closing sees a dropped request (browsers retry, API
    # clients often do not); an idle connection costs a socket.
    options = dict(host=settings.host, port=settings.port, log_level="warning",
                   proxy_headers=False, server_header=False, timeout_keep_alive=30)
    print(f"paperfind: serving http://{settings.host}:{settings.port}/ "
          f"({settings.workers} worker{'s' if settings.workers > 1 else ''})", flush=True)
    if settings.workers > 1:
        os.environ.update(PAPERFIND_DB=str(settings.db_path.resolve()),
                          PAPERFIND_CORPUS=str(settings.corpus_path),
                          PAPERFIND_SEMANTIC="1" if settings.semantic else "0")
        uvicorn.run("paperfind.web.server:create_app_from_env", factory=True,
                    workers=settings.workers, **options)
    else:
        paperfind.warm_up()
        uvicorn.run(create_app(paperfind), **options)


def create_app_from_env() -> FastAPI:
    """The application of one worker process, from the settings in the environment."""
    paperfind = Paperfind(Settings.from_env())
    paperfind.warm_up()
    return create_app(paperfind)
