"""`paperfind sync --milvus URI`: the store and its vectors pushed into the database's collection.

Incremental and resumable by construction. The collection remembers (in its properties) the
store's data version and the vector generation of the last sync that completed; when both are
what the store has now, there is nothing to read. Otherwise every paper's row is built and
hashed, the hashes the collection holds are read back, and only rows whose hash differs are
upserted, in batches, and keys the store no longer has are deleted. A sync killed halfway left
whole batches behind: the next run finds their hashes equal and carries on from there. The
version properties are written last, so an interrupted sync is never taken for a finished one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from paperfind.index.docs import IndexSource
from paperfind.text.analyze import Analyzer
from paperfind.milvus.client import MilvusConnection
from paperfind.milvus.expr import one_of
from paperfind.milvus.rows import paper_row, work_number
from paperfind.milvus.schema import (PROP_AVG_LENGTHS, PROP_DATA_VERSION, PROP_SCHEMA, PROP_VECTORS,
                                     SCHEMA_VERSION, create_collection)
from paperfind.milvus.scoring import LENGTH_FIELDS, Analysed

BATCH_ROWS = 1000  # rows per upsert: ~3 MB of request with the vectors and stored cards
Progress = Callable[[int, int], None]


@dataclass
class SyncReport:
    collection: str
    papers: int = 0  # in the store
    upserted: int = 0  # new or changed rows written
    deleted: int = 0  # rows of papers the store no longer has
    unchanged: int = 0
    up_to_date: bool = False  # nothing to read: versions equal
    rebuilt: bool = False  # the collection was (re)created
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        if self.up_to_date:
            return f"{self.collection}: up to date ({self.papers} papers)"
        rate = self.upserted / self.timings["write"] if self.timings.get("write") else 0.0
        return (f"{self.collection}: {self.upserted} written, {self.deleted} deleted, "
                f"{self.unchanged} unchanged of {self.papers} papers in {self.seconds:.1f} s"
                + (f" ({rate:,.0f} rows/s written)" if rate else "")
                + (" (collection created)" if self.rebuilt else ""))


def collection_properties(conn: MilvusConnection, name: str) -> dict[str, str] | None:
    """The collection's properties, or None when there is no such collection."""
    if not conn.call("has_collection", name):
        return None
    described = conn.call("describe_collection", name)
    props = described.get("properties") or {}
    return {str(k): str(v) for k, v in props.items()}


def _vector_state(vector_dir: Path | None) -> tuple[str, object]:
    """(generation name, opened VectorIndex or None) of the vectors beside the database."""
    if vector_dir is None or not (vector_dir / "CURRENT").exists():
        return "-", None
    from paperfind.index.vectors import VectorIndex

    index = VectorIndex.open(vector_dir, use_ann=False)
    generation = (vector_dir / "CURRENT").read_text(encoding="utf-8").strip()
    return f"{generation}:{index.params.model}:{index.params.text_budget}", index


def _existing_hashes(conn: MilvusConnection, name: str, batch: int) -> dict[str, str]:
    iterator = conn.call("query_iterator", name, batch_size=batch,
                         output_fields=["key", "row_hash"])
    hashes: dict[str, str] = {}
    try:
        while True:
            rows = conn.retrying(lambda: iterator.next())
            if not rows:
                break
            hashes.update((r["key"], r["row_hash"]) for r in rows)
    finally:
        iterator.close()
    return hashes


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def sync_store(store: IndexSource, conn: MilvusConnection, name: str, vector_dir: Path | None = None,
               batch_rows: int = BATCH_ROWS, progress: Progress | None = None,
               force: bool = False) -> SyncReport:
    """Bring collection `name` in step with `store` (a `Store`, or any `IndexSource`) and the
    vectors in `vector_dir`."""
    started = time.perf_counter()
    report = SyncReport(name)
    version = int(store.data_version())
    generation, vectors = _vector_state(vector_dir)
    props = collection_properties(conn, name)
    if props is not None and props.get(PROP_SCHEMA) != SCHEMA_VERSION:
        conn.call("drop_collection", name)  # another layout: rows cannot be patched into it
        props = None
    if props is None:
        create_collection(conn.client(), name)
        report.rebuilt = True
        props = collection_properties(conn, name) or {}
    conn.load(name)
    docs = store.iter_index_docs()
    if hasattr(store, "paper_count"):
        report.papers = int(store.paper_count())
    else:  # an in-memory IndexSource (a bench's corpus)
        docs = list(docs)
        report.papers = len(docs)
    if (not force and props.get(PROP_DATA_VERSION) == str(version)
            and props.get(PROP_VECTORS) == generation):
        report.up_to_date = True
        report.seconds = time.perf_counter() - started
        return report

    t = time.perf_counter()
    existing = {} if report.rebuilt else _existing_hashes(conn, name, 4 * batch_rows)
    report.timings["read hashes"] = time.perf_counter() - t
    slugs = {a.id: a.slug for a in store.iter_author_entries()}
    t = time.perf_counter()
    members: dict[int, list[str]] = {}  # every row holds the keys of its work's papers
    for doc in (docs if isinstance(docs, list) else store.iter_index_docs()):
        members.setdefault(work_number(doc), []).append(doc.key)
    report.timings["read works"] = time.perf_counter() - t
    an = Analyzer()
    seen: set[str] = set()
    pending: list[dict] = []
    done = 0
    write_s = 0.0
    length_sums = dict.fromkeys(LENGTH_FIELDS, 0)

    def flush() -> None:
        nonlocal write_s
        if pending:
            t0 = time.perf_counter()
            rows = list(pending)
            conn.retrying(lambda: conn.call("upsert", name, rows))
            write_s += time.perf_counter() - t0
            report.upserted += len(rows)
            pending.clear()

    for doc in docs:
        seen.add(doc.key)
        vector = vectors.vector(doc.key) if vectors is not None else None
        row = paper_row(doc, an, vector, slugs, members.get(work_number(doc)))
        for f, n in Analysed.of_row(row).lengths.items():
            length_sums[f] += n
        if existing.get(doc.key) == row["row_hash"]:
            report.unchanged += 1
        else:
            pending.append(row)
            if len(pending) >= batch_rows:
                flush()
        done += 1
        if progress is not None and (done % 500 == 0 or done == report.papers):
            progress(done, report.papers)
    flush()
    report.timings["write"] = write_s
    gone = sorted(set(existing) - seen)
    for chunk in _chunks(gone, batch_rows):
        conn.retrying(lambda: conn.call("delete", name, filter=one_of("key", chunk)))
        report.deleted += len(chunk)
    if progress is not None:
        progress(report.papers, report.papers)
    conn.call("flush", name)  # sealed on disk before the versions say it is done
    conn.call("alter_collection_properties", name, properties={
        PROP_DATA_VERSION: str(version), PROP_VECTORS: generation,
        PROP_AVG_LENGTHS: json.dumps({f: n / max(len(seen), 1) for f, n in length_sums.items()})})
    report.seconds = time.perf_counter() - started
    return report

