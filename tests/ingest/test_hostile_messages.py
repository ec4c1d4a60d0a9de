"""Hostile-input probe, issue 34 item 7: what `paperfind ingest` says about a user's broken export
lines (a missing field, two lines of one paper, a NUL, a BOM, a JSON error), naming the file,
the line and the field, with true counts and no traceback."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperfind.catalog.institutions import resolve_affiliation

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra.files import read_json, read_json_lines
from paperfind.ingest.jsonl import read_export
from paperfind.ingest.paperlists import read_paperlists
from paperfind.ingest.readahead import read_source
from paperfind.model import AuthorSlot, BadRecord, Record

REPO = Path(__file__).resolve().parents[2]


def _line(n: int, **fields: object) -> str:
    """One export line as `paperfind export` writes it (with its key)."""
    record = Record(venue="iclr", year=2024, source_id=f"paper{n}", title=f"Paper number {n}",
                    abstract=f"What paper {n} found.", key=f"iclr2024:paper{n}",
                    authors=[AuthorSlot(name="Alice Smith"), AuthorSlot(name="Bob Jones")])
    return json.dumps(record.to_json() | fields, ensure_ascii=True)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ingest(*args: str | Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PAPERFIND_SEMANTIC": "0"}
    return subprocess.run([sys.executable, "-m", "paperfind.cli", "ingest", "--no-index",
                           *map(str, args)], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=300)


# -- e. the JSON error message says "at" once ----------------------------------------------


def test_a_json_error_says_where_once(tmp_path: Path) -> None:
    unterminated = '{"venue": "iclr", "title": "unfinished'
    export = _write(tmp_path / "mine.jsonl", [_line(1), unterminated, '{"title": "\x01"}'])
    [_, first, second] = list(read_export(export))
    assert str(first) == (f"{export}: record 2: not JSON "
                          "(Unterminated string starting at column 28)")
    assert str(second) == f"{export}: record 3: not JSON (Invalid control character at column 12)"

    listing = tmp_path / "iclr2024.json"
    listing.write_text('[{"title": "ok"},\n {"title": "unfinished', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        list(read_paperlists(listing, "iclr", 2024))
    assert caught.value.reason == "not valid JSON: Unterminated string starting at line 2, column 12"

    other = tmp_path / "other.json"
    other.write_text('{"a": "\x01"}', encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        read_json(other)
    assert caught.value.reason == "not valid JSON (Invalid control character at line 1, column 8)"
    lines = tmp_path / "other.jsonl"
    lines.write_text('{"a": 1}\n{"a": "x\n', encoding="utf-8")
    [_, bad] = list(read_json_lines(lines))
    assert bad.reason == "line 2 is not valid JSON (Unterminated string starting at column 7)"
    for message in (str(first), str(second), caught.value.reason, bad.reason):
        assert "at at" not in message


# -- a. a line without `source_id` ----------------------------------------------------------


def test_a_line_without_source_id_is_refused_naming_the_field(tmp_path: Path) -> None:
    line = json.loads(_line(2))
    del line["source_id"]
    export = _write(tmp_path / "mine.jsonl", [_line(1), json.dumps(line), _line(3)])
    items = list(read_export(export))
    assert [r.source_id for r in items if isinstance(r, Record)] == ["paper1", "paper3"]
    [bad] = [r for r in items if isinstance(r, BadRecord)]
    assert str(bad) == (f"{export}: record 2: field 'source_id' is missing (the paper's id in "
                        "its source; \"\" or null when it has none)")
    assert "__init__" not in bad.reason and "positional" not in bad.reason
    # null is the hand-written way to say "no id", as for the other texts
    line["source_id"] = None
    [record] = list(read_export(_write(tmp_path / "null.jsonl", [json.dumps(line)])))
    assert isinstance(record, Record) and record.source_id == ""


# -- d. a UTF-8 byte order mark --------------------------------------------------------------


@pytest.mark.parametrize("name", ["mine.jsonl", "mine.jsonl.gz"])
def test_a_byte_order_mark_does_not_cost_the_first_line(tmp_path: Path, name: str) -> None:
    blob = b"\xef\xbb\xbf" + ("\n".join([_line(1), _line(2)]) + "\n").encode("utf-8")
    path = tmp_path / name
    path.write_bytes(gzip.compress(blob) if name.endswith(".gz") else blob)
    records = list(read_export(path))
    assert [r.source_id for r in records] == ["paper1", "paper2"], records
    # a bad byte is still told at its offset in the file, the mark counted
    blob = b"\xef\xbb\xbf" + _line(1).encode() + b"\n\xff\n"
    path.write_bytes(gzip.compress(blob) if name.endswith(".gz") else blob)
    with pytest.raises(SourceError, match=rf"not valid UTF-8 \(byte {len(_line(1)) + 4}\)"):
        list(read_export(path))


# -- b. two lines of one paper ---------------------------------------------------------------


def test_two_lines_of_one_paper_the_first_is_stored_and_the_counts_are_true(tmp_path: Path) -> None:
    export = _write(tmp_path / "mine.jsonl", [_line(1), _line(2), _line(3), _line(4),
                                              _line(2, title="Paper two, edited")])
    db = tmp_path / "pf.db"
    done = _ingest("--db", db, export)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "records: 4 added, 0 updated, 1 skipped" in done.stdout
    assert "database: 4 papers" in done.stdout
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [f"skipped: {export}: record 5: key 'iclr2024:paper2' is already on line 2: "
                       "one paper on two lines; line 2 is stored, not line 5"]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT title FROM papers WHERE key = 'iclr2024:paper2'").fetchall() == [
        ("Paper number 2",)]


def test_two_lines_of_one_paper_without_keys(tmp_path: Path) -> None:
    """The store would file the second line of an id as a paper of its own, and two id-less
    lines of one title and authors as two papers: both are the same paper twice."""
    def unkeyed(n: int, **fields: object) -> str:
        return _line(n, key="", **fields)

    export = _write(tmp_path / "mine.jsonl", [
        unkeyed(1), unkeyed(2), unkeyed(1, abstract="Edited."),
        unkeyed(3, source_id="", forum_id="F3"), unkeyed(4, forum_id="F3"),
        unkeyed(5, source_id=""), unkeyed(5, source_id="", abstract="Edited."),
        _line(6, key="iclr2024:paper2")])
    items = list(read_export(export))
    assert [(r.source_index, r.title) for r in items if isinstance(r, Record)] == [
        (1, "Paper number 1"), (2, "Paper number 2"), (4, "Paper number 3"), (6, "Paper number 5")]
    assert [(r.index, r.reason) for r in items if isinstance(r, BadRecord)] == [
        (3, "paper 'iclr2024:paper1' (from venue, year and source_id) is already on line 1: "
            "one paper on two lines; line 1 is stored, not line 3"),
        (5, "paper 'iclr2024:F3' (from venue, year and forum_id) is already on line 4: "
            "one paper on two lines; line 4 is stored, not line 5"),
        (7, "the same venue, year, title and authors, without an id, are on line 6: "
            "one paper on two lines; line 6 is stored, not line 7"),
        (8, "key 'iclr2024:paper2' is already on line 2: one paper on two lines; "
            "line 2 is stored, not line 8")]


# -- a, continued: an affiliation without `raw` ----------------------------------------------


def test_an_affiliation_without_raw_is_refused_naming_the_field(tmp_path: Path) -> None:
    """Missing, it was refused with Python's own text; null, it failed the NOT NULL constraint
    of the whole file's transaction, with a traceback, and the files after it were not read."""
    def with_affiliations(n: int, where: str, affiliations: list) -> str:
        line = json.loads(_line(n))
        if where == "paper":
            line["paper_affiliations"] = affiliations
        else:
            line["authors"][1]["affiliations"] = affiliations
        return json.dumps(line)

    export = _write(tmp_path / "mine.jsonl", [
        _line(1),
        with_affiliations(2, "author", [{"raw": "MIT", "slug": None}, {"name": "MIT"}]),
        with_affiliations(3, "paper", [{"raw": None, "name": "MIT"}]),
        with_affiliations(4, "author", [{"raw": "MIT", "slug": None, "name": None}])])
    later = _write(tmp_path / "later.jsonl", [_line(5)])
    db = tmp_path / "pf.db"
    done = _ingest("--db", db, export, later)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [
        f"skipped: {export}: record 2: field 'authors[1].affiliations[1].raw' must be a non-empty "
        "string (the affiliation as printed)",
        f"skipped: {export}: record 3: field 'paper_affiliations[0].raw' must be a non-empty "
        "string (the affiliation as printed)"]
    assert "records: 3 added, 0 updated, 2 skipped" in done.stdout
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT raw FROM paper_affiliations").fetchall() == [("MIT",)]
    [(data,)] = conn.execute("SELECT data FROM records WHERE ident = 'iclr2024:paper4'").fetchall()
    # null parts are "", and an export's affiliation is resolved again from its raw text
    # (paperfind.ingest.jsonl: a stored slug the resolver now maps otherwise is re-resolved)
    assert json.loads(data)["authors"][1]["affiliations"] == [
        resolve_affiliation("MIT").__dict__]
