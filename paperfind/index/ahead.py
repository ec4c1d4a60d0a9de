"""Analyse a corpus file's texts in a second process while the first writes the store.

A first start builds the database from one file: reading it, writing the store and resolving
people keep one core busy for half a minute while the other has nothing to do. The index's
costliest part, cutting every title, abstract and keyword into terms, needs only the texts,
so a worker reads them from the same file and analyses them meanwhile. The builder takes a
paper's terms from here only when the paper's texts in the store are exactly the ones
analysed (`paperfind.index.analysis.text_digest`), and analyses any other paper itself: the
index is the same as without this, only sooner.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import sys
import time
from pathlib import Path

from paperfind.index.analysis import TextTerms, analyze_texts
from paperfind.ingest.readahead import gc_paused

# fork: the worker starts at once with the modules already imported (as ingest's readers do)
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"


class TextsAhead:
    """The analysed texts of one JSON Lines export, being made in a worker process."""

    def __init__(self, path: Path) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        self._conn, child_end = context.Pipe(duplex=False)
        self._process: multiprocessing.process.BaseProcess | None = context.Process(
            target=_work, args=(str(path), child_end), name="paperfind-texts-ahead", daemon=True)
        self._process.start()
        child_end.close()
        self.waited = 0.0  # seconds `result` waited for the worker

    def result(self) -> TextTerms | None:
        """The analysis, waiting for it if needed; None if the worker failed (the builder then
        analyses every paper itself)."""
        if self._process is None:
            return None
        started = time.perf_counter()
        try:
            outcome, value = self._conn.recv()
        except (EOFError, OSError) as exc:  # the worker died without a word
            outcome, value = "error", f"the worker ended ({exc or 'no result'})"
        finally:
            self.waited = time.perf_counter() - started
            self.close()
        if outcome != "ok":  # an optimisation only: say why, build without it
            print(f"paperfind: texts not analysed ahead ({value}); the index builds without them",
                  file=sys.stderr)
            return None
        return value

    def close(self) -> None:
        """Stop the worker if it is still at work (the build no longer wants it)."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._process = None
            self._conn.close()


def _work(path: str, conn) -> None:
    try:
        result = ("ok", analyze_export_texts(path))
    except Exception as exc:
        result = ("error", f"{type(exc).__name__}: {exc}")
    conn.send(result)
    conn.close()


def export_texts(path: Path | str) -> list[tuple[str, str, list[str]]]:
    """(title, abstract, keywords) of every line of an export (`.jsonl` or `.jsonl.gz`).

    No checks: a line the store reads otherwise (or refuses) only has a digest the builder
    finds no paper for."""
    path = Path(path)
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        blob = fh.read()
    texts = []
    for line in blob.split(b"\n"):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            keywords = data.get("keywords") or []
            if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
                continue
            texts.append((data.get("title") or "", data.get("abstract") or "", keywords))
        except (ValueError, AttributeError):
            continue
    return [t for t in texts if isinstance(t[0], str) and isinstance(t[1], str)]


def analyze_export_texts(path: str) -> TextTerms:
    with gc_paused():  # see there; this worker makes lists and dicts, no cycles
        return analyze_texts(export_texts(path))
