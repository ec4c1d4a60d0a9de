"""The counting process's own loop (paperfind.search.counting starts it as `python -c`).

Apart from paperfind.search.counting because it needs the search backend, which imports that
module: the parent's side and the child's side each import only what they run."""

from __future__ import annotations

import mmap
import os
import pickle
import select
import sys
from pathlib import Path

import numpy as np

from paperfind.search.counting import _HEADER, _REQUEST_BYTES, ROW_TYPE, _send, counted_parts


def serve(index_path: str, rows_fd: int, wake: int) -> None:
    """The child's loop: match sets in, their counted parts out, until its input closes."""
    from paperfind.index.manager import open_version
    from paperfind.search.backend import PAPER_FACETS, IndexBackend

    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt the pipe
    index = open_version(Path(index_path))
    if index is None:
        _send(out, f"no index version at {index_path}")
        return
    index.docs.load_kernel()
    backend = IndexBackend(index)
    corpus = backend.corpus_stats().works
    shared = mmap.mmap(rows_fd, 0, access=mmap.ACCESS_READ)
    os.close(rows_fd)
    rows = np.frombuffer(shared, dtype=ROW_TYPE, count=backend.n_docs, offset=_REQUEST_BYTES)
    _send(out, "ready")
    ended = sys.stdin.fileno()  # nothing is written to it: readable once the parent closes it or dies
    while True:
        if ended in select.select([wake, ended], [], [])[0]:
            return
        os.eventfd_read(wake)
        (size,) = _HEADER.unpack(shared[:_HEADER.size])
        n, papers, span, facets, drawn = pickle.loads(shared[_HEADER.size:_HEADER.size + size])
        try:
            counts = backend.facets(None, rows[:n], papers)
            answer: object = counted_parts(counts, corpus, span, facets, drawn, PAPER_FACETS)
        except Exception as exc:  # noqa: BLE001 - reported: the parent counts in process
            answer = f"{type(exc).__name__}: {exc}"
        _send(out, answer)

