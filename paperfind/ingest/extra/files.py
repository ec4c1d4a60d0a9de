"""Reading the raw shapes of the recent-venue files: gzip, JSON, JSON Lines, delimited text.

Every file of ../shared/data/extra is gzipped exactly as published, so one opener decodes
them all and turns any failure (truncated gzip, bad UTF-8, not JSON) into a `SourceError`
naming the file, instead of a traceback. Record-level problems (one bad JSON line) are the
caller's to report as `BadRecord`s.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from pathlib import Path
from typing import Any, Iterator

from paperfind.ingest.errors import SourceError, json_problem
from paperfind.model import BadRecord

csv.field_size_limit(1 << 24)  # abstracts with quoted newlines exceed the 128 KiB default


def read_text(path: Path) -> str:
    """The whole file as text; gzip is recognised by its magic bytes, not by its name."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise SourceError(str(path), f"not a complete gzip file ({exc})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), f"not UTF-8 text (byte {exc.start})") from None


def read_json(path: Path) -> Any:
    """The file's one JSON document."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(str(path), f"not valid JSON ({json_problem(exc)})") from None


def read_json_array(path: Path) -> list[Any]:
    """A file that must hold one JSON array of records."""
    data = read_json(path)
    if not isinstance(data, list):
        raise SourceError(str(path), f"expected a JSON array of records, found {type(data).__name__}")
    return data


def read_json_lines(path: Path) -> Iterator[tuple[int, Any] | BadRecord]:
    """(index, object) per non-empty line; a line that is not JSON comes as a `BadRecord`.

    A file that is one JSON array instead (some "jsonl" sources are) is read as that array,
    so a source changing its layout does not cost the file.
    """
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SourceError(str(path), f"not valid JSON ({json_problem(exc)})") from None
        if not isinstance(data, list):
            raise SourceError(str(path), "expected JSON Lines or a JSON array")
        yield from enumerate(data)
        return
    index = 0
    for line_no, line in enumerate(text.split("\n"), start=1):  # not splitlines: see jsonl.py
        if not line.strip():
            continue
        try:
            yield index, json.loads(line)
        except json.JSONDecodeError as exc:
            yield BadRecord(str(path), index, f"line {line_no} is not valid JSON "
                                              f"({json_problem(exc, line=False)})")
        index += 1


def read_table(path: Path, delimiter: str, header: bool = True,
               quoting: int = csv.QUOTE_MINIMAL) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a delimited file; quoted fields may hold newlines."""
    text = read_text(path)
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting))
    except csv.Error as exc:
        raise SourceError(str(path), f"not readable as delimited text ({exc})") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not header:
        return [], rows
    if not rows:
        raise SourceError(str(path), "empty file: no header row")
    return [name.strip() for name in rows[0]], rows[1:]


def read_cells(path: Path, delimiter: str, needed: tuple[str, ...],
               quoting: int = csv.QUOTE_MINIMAL) -> Iterator[tuple[int, dict[str, str]] | BadRecord]:
    """(index, cells by column name) per row of a delimited file with a header; a row with
    another number of columns than the header comes as a `BadRecord` saying so."""
    columns, rows = read_table(path, delimiter, quoting=quoting)
    col = require_columns(path, columns, needed)
    for index, row in enumerate(rows):
        if len(row) != len(columns):
            yield BadRecord(str(path), index, f"{len(row)} columns instead of {len(columns)}")
            continue
        yield index, {name: row[i] for name, i in col.items()}


def require_columns(path: Path, columns: list[str], needed: tuple[str, ...]) -> dict[str, int]:
    """Column positions by name; a missing column is a file-level error naming it."""
    missing = [name for name in needed if name not in columns]
    if missing:
        raise SourceError(str(path), f"missing column(s) {', '.join(missing)} "
                                     f"(header has: {', '.join(columns) or 'nothing'})")
    return {name: columns.index(name) for name in columns}
