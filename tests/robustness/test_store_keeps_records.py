"""Records the store must keep or report: a broken record of a recent-venue file, a record that turns bad."""

from __future__ import annotations

import json
from pathlib import Path

from paperfind.store import Store
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import run_cli


def test_a_broken_record_of_an_extra_source_is_reported_not_a_traceback(tmp_path: Path) -> None:
    """ingest/run.py + ingest/extra: a lone surrogate in a recent-venue file aborts the whole call."""
    folder = tmp_path / "papercopilot-openreview"
    folder.mkdir()
    bad = folder / "venues_icml_icml2024.jsonl"
    bad.write_text(json.dumps({"id": "ok3", "title": "Bad \ud800 title"}) + "\n"
                   + json.dumps({"id": "a b/c?", "title": "An id that is no URL segment"}) + "\n")
    good = write_slice(tmp_path, "colm", 2024, load_paperlist("colm", 2024)[:3])
    result = run_cli("ingest", "--db", tmp_path / "pf.db", "--no-index", bad, good)
    assert "Traceback" not in result.stderr, result.stderr[-500:]
    assert f"skipped: {bad}: record 0: field 'title' contains an invalid character" in result.stderr
    with Store(tmp_path / "pf.db") as store:
        keys = {k for (k,) in store.conn.execute("SELECT key FROM papers")}
    assert len([k for k in keys if k.startswith("colm2024:")]) == 3
    assert not any(" " in k or "/" in k for k in keys)


def test_a_record_that_turns_bad_keeps_its_previous_version(tmp_path: Path) -> None:
    """store/db.py: re-ingesting a file in which one record became unreadable deletes that paper."""
    records = load_paperlist("colm", 2024)[:3]
    path = write_slice(tmp_path, "colm", 2024, records)
    assert run_cli("ingest", "--db", tmp_path / "pf.db", "--no-index", path).code == 0
    records[1] = {**records[1], "title": 42}
    write_slice(tmp_path, "colm", 2024, records)
    result = run_cli("ingest", "--db", tmp_path / "pf.db", "--no-index", path)
    assert "record 1: field 'title' is a number" in result.stderr
    with Store(tmp_path / "pf.db") as store:
        assert store.paper(f"colm2024:{records[1]['id']}") is not None, "the paper was lost"
