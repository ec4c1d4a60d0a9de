"""Reader for paperfind's own JSON Lines export: one normalised `Record` per line.

It is how users bring their own lists and how the bundled corpus ships; `paperfind export`
writes it. A bad line is reported with its line number; the other lines still go in.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import IO, Iterator

from paperfind.ingest.errors import BadRecord, SourceError
from paperfind.model import Record


def read_export(path: Path) -> Iterator[Record | BadRecord]:
    """Records of an export file (`.jsonl` or `.jsonl.gz`); `index` of a BadRecord is the line number."""
    source = str(path)
    lines = _read_lines(path)
    if not any(line.strip() for line in lines):
        raise SourceError(source, "the file is empty")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield BadRecord(source, number, f"not JSON ({exc.msg} at column {exc.colno})")
            continue
        try:
            record = Record.from_json(data)
        except (TypeError, ValueError) as exc:
            yield BadRecord(source, number, str(exc))
            continue
        record.source_index = number
        yield record


def _read_lines(path: Path) -> list[str]:
    """All lines, decoded, so a truncated or mis-encoded file fails before anything is written."""
    try:
        with _open(path) as fh:
            blob = fh.read()
    except FileNotFoundError:
        raise SourceError(str(path), "no such file") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise SourceError(str(path), f"damaged or truncated gzip file ({exc})") from None
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), f"not valid UTF-8 (byte {exc.start})") from None
    return text.splitlines()


def _open(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")
