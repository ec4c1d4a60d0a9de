"""Export papers as paperfind JSON Lines: one merged, normalised record per line.

The same format `paperfind ingest` reads back, so a list can be round-tripped, trimmed, or
shipped as the bundled default corpus.
"""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
from pathlib import Path
from typing import IO, Iterator

from paperfind.model import Record
from paperfind.store.merge import merge_records
from paperfind.store.papers import load_records


def iter_export(conn: sqlite3.Connection, venues: list[str] | None = None,
                min_year: int | None = None, max_year: int | None = None) -> Iterator[Record]:
    """Merged papers in key order, optionally only some venues and years."""
    where, params = ["1=1"], []
    if venues:
        where.append(f"venue IN ({','.join('?' * len(venues))})")
        params.extend(venues)
    if min_year is not None:
        where.append("year >= ?")
        params.append(min_year)
    if max_year is not None:
        where.append("year <= ?")
        params.append(max_year)
    keys = [k for (k,) in conn.execute(
        f"SELECT key FROM papers WHERE {' AND '.join(where)} ORDER BY key", params)]
    for key in keys:
        records = load_records(conn, key)
        paper = merge_records(records)
        paper.key = key
        paper.source = "; ".join(sorted({_short_source(r.source) for r in records}))
        yield paper


def _short_source(path: str) -> str:
    """The source file relative to its data folder: provenance without this machine's paths."""
    parts = Path(path).parts
    for anchor in ("paperlists", "extra"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor):])
    return Path(path).name


def write_export(records: Iterator[Record], out: str | Path | IO[str]) -> int:
    """Write records as JSON Lines (gzip when the file name ends in .gz); returns the count."""
    if isinstance(out, (str, Path)):
        path = Path(out)
        tmp = path.with_name(path.name + ".tmp")
        if path.name.endswith(".gz"):
            # mtime=0 keeps the file byte-identical across runs on the same data
            raw = open(tmp, "wb")
            fh: IO[str] = io.TextIOWrapper(gzip.GzipFile(filename="", fileobj=raw, mode="wb",
                                                         mtime=0), encoding="utf-8")
        else:
            raw = None
            fh = open(tmp, "w", encoding="utf-8")
        try:
            count = _write_lines(records, fh)
        finally:
            fh.close()
            if raw is not None:
                raw.close()
        tmp.replace(path)
        return count
    return _write_lines(records, out)


SHARD_SUFFIX = ".jsonl.gz"


def shard_name(venue: str, year: int) -> str:
    """The file of one venue-year in a sharded export: `cvpr-2024.jsonl.gz`."""
    return f"{venue}-{year}{SHARD_SUFFIX}"


def write_shards(conn: sqlite3.Connection, directory: Path) -> tuple[dict[str, int], list[str]]:
    """Export every venue-year into its own file of `directory` ({name: papers}, and the names
    of the files that were written).

    A shard's bytes depend only on its papers (sorted keys, gzip without a time stamp), and a
    file whose bytes would not change is not touched: adding one venue-year's abstracts
    rewrites that shard alone, so the bundled corpus's history grows by what changed. Files
    of venue-years no longer in the store are removed.
    """
    directory.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    written: list[str] = []
    for venue, year in conn.execute("SELECT DISTINCT venue, year FROM papers ORDER BY venue, year"):
        name = shard_name(venue, year)
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", fileobj=buffer, mode="wb", mtime=0) as raw, \
                io.TextIOWrapper(raw, encoding="utf-8") as fh:
            counts[name] = _write_lines(iter_export(conn, [venue], year, year), fh)
        path = directory / name
        blob = buffer.getvalue()
        if not path.is_file() or path.read_bytes() != blob:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(blob)
            tmp.replace(path)
            written.append(name)
    for stale in directory.glob(f"*{SHARD_SUFFIX}"):
        if stale.name not in counts:
            stale.unlink()
            written.append(stale.name)
    return counts, written


def _write_lines(records: Iterator[Record], fh: IO[str]) -> int:
    count = 0
    for record in records:
        fh.write(json.dumps(record.to_json(), ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    return count
