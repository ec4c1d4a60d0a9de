"""Broken input files through the real `paperfind ingest`: one clear line per problem, naming the
file (and record); the database keeps what it had for that file; the good files of the same call
go in; never a traceback."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from paperfind.ingest.paperlists import read_paperlists
from paperfind.model import Record
from paperfind.store import Store
from tests.realdata import load_paperlist, write_slice
from tests.robustness.conftest import run_cli, snapshot

FIVE_MB = 5 * 1024 * 1024


@pytest.fixture(scope="module")
def colm() -> list[dict]:
    return load_paperlist("colm", 2024)


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def test_broken_files_reported_one_line_each_and_good_files_go_in(tmp_path: Path, colm: list[dict]) -> None:
    data, db = tmp_path / "data", tmp_path / "pf.db"
    kept = write_slice(data, "colm", 2024, colm[:8])
    first = run_cli("ingest", "--db", db, "--no-index", data)
    assert first.code == 0, first.stderr
    before = snapshot(db, str(kept.resolve()))
    assert len(before["records"]) == 8

    # The file ingested before is now truncated; new good and bad files sit beside it.
    blob = kept.read_bytes()
    kept.write_bytes(blob[: len(blob) // 2])
    good = write_slice(data, "iclr", 2018, load_paperlist("iclr", 2018)[:6])
    broken = {
        data / "colm" / "colm2023.json": (b"[{\"title\": \"unfinished", "not valid JSON"),
        data / "colm" / "colm2022.json": (b'{"title": "one paper, not a list"}',
                                          "expected a JSON list of paper records, found an object"),
        data / "colm" / "colm2021.json": (b"", "file is empty"),
        data / "colm" / "colm2020.json": (json.dumps(colm[8:10]).encode()[:-20] + b"\xff\xfe"
                                          + json.dumps(colm[8:10]).encode()[-20:],
                                          "not valid UTF-8 (bad byte at offset"),
        data / "colm" / "notes.json": (b"[]", "cannot tell venue and year from the file name"),
        data / "mine" / "export.jsonl.gz": (gzip.compress(b'{"venue": "colm"}\n' * 50)[:40],
                                            "damaged or truncated gzip file"),
    }
    for path, (content, _) in broken.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    records = [dict(r) for r in colm[10:16]]
    del records[0]["title"]
    records[1]["title"] = 42
    records[2]["author"] = {"first": "Ann"}
    records[3]["abstract"] = "x" * FIVE_MB
    records.append("not a record")
    mixed = write_slice(data, "colm", 2019, records)

    result = run_cli("ingest", "--db", db, "--no-index", data)

    assert result.code == 1
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    errors = _error_lines(result.stderr)
    expected = {**{str(p): reason for p, (_, reason) in broken.items()},
                str(kept): "truncated or corrupt gzip data"}
    assert len(errors) == len(expected), result.stderr  # one line per broken file
    for path, reason in expected.items():
        [line] = [e for e in errors if e.startswith(f"error: {path}: ")]
        assert reason in line, line
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [
        f"skipped: {mixed}: record 0: missing field 'title'",
        f"skipped: {mixed}: record 1: field 'title' is a number, expected a string",
        f"skipped: {mixed}: record 2: field 'author' is an object, expected a string",
        f"skipped: {mixed}: record 3: field 'abstract' is {FIVE_MB:,} characters long; "
        "at most 100,000 are taken",
        f"skipped: {mixed}: record 6: record is a string, expected an object",
    ]
    assert "records: 8 added" in result.stdout  # 6 iclr + the 2 good colm 2019 records

    assert snapshot(db, str(kept.resolve())) == before  # the truncated file changed nothing
    with Store(db) as store:
        sources = {p for (p,) in store.conn.execute("SELECT path FROM sources")}
        assert sources == {str(kept.resolve()), str(good.resolve()), str(mixed.resolve())}
        keys = {k for (k,) in store.conn.execute("SELECT key FROM papers")}
    good_keys = {f"iclr2018:{r['id']}" for r in load_paperlist("iclr", 2018)[:6]}
    assert good_keys <= keys
    assert {f"colm2019:{r['id']}" for r in colm[14:16]} <= keys
    assert not {f"colm2019:{r['id']}" for r in colm[10:14]} & keys


def test_directory_of_a_thousand_small_files(tmp_path: Path, colm: list[dict]) -> None:
    """1,000 one-record export files, 10 of them broken: 10 lines naming them, 990 papers in."""
    folder, db = tmp_path / "lists", tmp_path / "pf.db"
    folder.mkdir()
    source = tmp_path / "colm2024.json"
    source.write_text(json.dumps(colm), encoding="utf-8")
    records = [r for r in read_paperlists(source, "colm", 2024) if isinstance(r, Record)]
    broken = {}
    for i in range(1000):
        path = folder / f"part-{i:04d}.jsonl"
        line = json.dumps(records[i % len(records)].to_json() | {"source_id": f"p{i}", "forum_id": "", "key": ""}) + "\n"
        if i % 100 == 7:
            kind = (i // 100) % 3
            content, reason = [(line[:-30].encode(), None),
                               (b"\xc3\x28" + line.encode(), "not valid UTF-8 (byte 0)"),
                               (b"\n\n", "the file is empty")][kind]
            broken[path] = reason
            path.write_bytes(content)
        else:
            path.write_text(line, encoding="utf-8")

    result = run_cli("ingest", "--db", db, "--no-index", folder)

    assert result.code == 1
    assert "Traceback" not in result.stderr
    errors = _error_lines(result.stderr)
    truncated = [p for p, reason in broken.items() if reason is None]
    assert len(errors) == len(broken) - len(truncated)
    for path, reason in broken.items():
        if reason:
            assert f"error: {path}: {reason}" in errors
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == len(truncated)
    for path in truncated:  # a cut line is a bad record; the file itself is readable
        assert any(line.startswith(f"skipped: {path}: record 1: not JSON (") for line in skipped)
    assert "files: 1000 read" in result.stdout
    with Store(db) as store:
        assert store.paper_count() == 990
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1000 - len(
            broken) + len(truncated)
