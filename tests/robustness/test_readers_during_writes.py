"""Readers during writes, small: while a second process ingests real files, in-process search and
HTTP keep answering, every result is a whole paper of the database, and each read snapshot is
consistent; when the writer is done, the new papers are served without a restart.

The full-data version with latency figures is bench/readers_during_writes.py (same readers)."""

from __future__ import annotations

import threading
from pathlib import Path

from bench.readers_during_writes import (Observed, http_reader, ingest_cli, library_reader,
                                         queries_from, snapshot_checker)
from paperfind.core import Paperfind
from paperfind.settings import Settings
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import live_portal


def test_search_and_http_answer_whole_papers_while_another_process_ingests(tmp_path: Path) -> None:
    db = tmp_path / "pf.db"
    base = write_slice(tmp_path / "base", "colm", 2024, load_paperlist("colm", 2024)[:40])
    Paperfind(Settings(db_path=db, semantic=False)).ingest([base], progress=False)
    new = [("corl", 2022), ("uai", 2019), ("colt", 2019)]
    for venue, year in new:
        write_slice(tmp_path / "more", venue, year, load_paperlist(venue, year)[:120])
    queries = queries_from(db, n=60)

    with live_portal(db) as portal:
        seen, stop = Observed(), threading.Event()
        readers = [threading.Thread(target=library_reader, args=(portal.paperfind, queries, seen, stop)),
                   threading.Thread(target=http_reader, args=(portal.url, queries, seen, stop, 7)),
                   threading.Thread(target=snapshot_checker, args=(db, seen, stop, 0.05))]
        for reader in readers:
            reader.start()
        seen.phase = "write"
        writer = ingest_cli(db, [tmp_path / "more"], nice=False)
        out, err = writer.communicate()
        seen.phase = "after"
        stop.set()
        for reader in readers:
            reader.join(timeout=60)
        assert writer.returncode == 0, err
        assert seen.errors == []
        assert seen.checks > 0 and seen.latencies["library/write"] and seen.latencies["http/write"]
        title = load_paperlist("corl", 2022)[5]["title"]
        found = portal.client.get("/api/search", params={"q": title}).json()["results"]
        assert found and found[0]["title"] == title  # the new index, served without a restart
