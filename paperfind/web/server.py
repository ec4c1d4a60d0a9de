"""Serve the portal with uvicorn on the host and port of the settings."""

from __future__ import annotations

import os
from dataclasses import replace

import uvicorn
from fastapi import FastAPI

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.web.app import create_app
from paperfind.web.protocol import PortalHttpProtocol

# what every uvicorn serving the portal is given (the tests' servers too): the HTTP protocol
# that bounds a request before parsing it; no proxy headers trusted, no server banner;
# keep-alive 30 s, not uvicorn's 5: under load a response can take seconds, and a client
# reusing a connection the server is closing sees a dropped request (browsers retry, API
# clients often do not); an idle connection costs a socket. No access log: the portal logs
# warnings only, and uvicorn still made each request's line (the client's address, the path
# quoted again) before its logger dropped it (~5 µs a request: issue 33, web35).
UVICORN_OPTIONS = dict(http=PortalHttpProtocol, proxy_headers=False, server_header=False,
                       timeout_keep_alive=30, access_log=False)


def run(paperfind: Paperfind) -> None:
    """Block serving HTTP until interrupted (Ctrl-C).

    With several workers uvicorn starts its own processes, which cannot be handed an object:
    they rebuild the same settings from the environment (`Settings.to_env`, `create_app_from_env`).
    """
    settings = paperfind.settings
    options = dict(host=settings.host, port=settings.port, log_level="warning", **UVICORN_OPTIONS)
    line = (f"paperfind: serving http://{settings.host}:{settings.port}/ "
            f"({settings.workers} worker{'s' if settings.workers > 1 else ''})")
    if settings.workers > 1:
        # uvicorn's parent opens the port; each worker warms up (its lifespan) before it
        # accepts, so a request that comes early waits in the backlog rather than for a model
        print(line, flush=True)
        paperfind.update_vectors_in_background()
        os.environ.update(replace(settings, db_path=settings.db_path.resolve()).to_env())
        uvicorn.run("paperfind.web.server:create_app_from_env", factory=True,
                    workers=settings.workers, **options)
    else:
        def ready(warm_up_seconds: float) -> None:
            # warm by now (the lifespan); uvicorn opens the port right after this returns.
            # The vector update starts only now: its first seconds (reading and hashing every
            # paper's text) would otherwise compete with the warm-up and the first queries.
            print(f"{line}, warmed up in {warm_up_seconds:.1f} s", flush=True)
            paperfind.update_vectors_in_background()

        uvicorn.run(create_app(paperfind, on_ready=ready), **options)


def create_app_from_env() -> FastAPI:
    """The application of one worker process, from the settings in the environment."""
    return create_app(Paperfind(Settings.from_env()))
