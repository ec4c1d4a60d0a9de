"""Reading files ahead in a worker process: the same database as reading them in the writer."""

from __future__ import annotations

import gzip
import json
import pickle
import sqlite3
from pathlib import Path

import pytest

from paperfind.ingest.errors import SourceError
from paperfind.ingest.readahead import FileJob, gc_paused, read_ahead, read_source
from paperfind.ingest.readers import choose_reader
from paperfind.ingest.run import ingest_paths
from paperfind.settings import Settings
from paperfind.store import Store
from tests.realdata import load_paperlist, pick, write_slice

# columns that say when, not what
_CLOCK = {"ingested_at", "applied_at"}


def dump(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table but the clock columns, sorted: two equal dumps, two equal databases."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [t for (t,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        out = {}
        for table in tables:
            cols = [c[1] for c in conn.execute(f"PRAGMA table_info({table})") if c[1] not in _CLOCK]
            out[table] = sorted(conn.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall(),
                                key=repr)
        return out
    finally:
        conn.close()


@pytest.fixture
def real_files(tmp_path: Path) -> list[Path]:
    """Slices of five real files; Huishuai Zhang's papers make one person across three of them."""
    files = []
    for venue, year, ident in [("iclr", 2018, "SJ19eUg0-"), ("icml", 2016, "9388669fbe"),
                               ("nips", 2015, "5619"), ("nips", 2018, "11630"),
                               ("corl", 2022, "80vpxjt3vq")]:
        files.append(write_slice(tmp_path / "data", venue, year,
                                 pick(load_paperlist(venue, year), {ident}, extra=30)))
    return files


def ingest(db: Path, paths: list[Path], jobs: int, force: bool = False):
    store = Store(db)
    try:
        return ingest_paths(store, paths, force=force, progress=False, jobs=jobs)
    finally:
        store.close()


def test_reading_ahead_gives_the_same_database_as_reading_in_the_writer(tmp_path, real_files):
    one = ingest(tmp_path / "one.db", [tmp_path / "data"], jobs=1)
    two = ingest(tmp_path / "two.db", [tmp_path / "data"], jobs=2)
    assert not one.failed and not two.failed
    assert [(s.path, s.records, s.added) for s in one.sources] == \
        [(s.path, s.records, s.added) for s in two.sources]
    assert dump(tmp_path / "one.db") == dump(tmp_path / "two.db")
    assert sum(s.added for s in two.sources) == 5 * 31


def test_files_are_read_by_a_worker_in_file_order(tmp_path, real_files):
    jobs = [FileJob(p, choose_reader(p), source=str(p.resolve()), needs_read=True)
            for p in real_files]
    with read_ahead(jobs, workers=2) as ordered:
        seen = []
        for job in ordered:
            assert job.future is not None  # submitted to the worker, not read here
            prepared = job.prepared()
            assert job.future is None  # and not kept once handed over
            seen.append((job.path, [r.source_id for r, _, _ in prepared.stored]))
    here = [(p, [r.source_id for r, _, _ in read_source(p, str(p.resolve())).stored])
            for p in real_files]
    assert seen == here


def test_a_bad_file_among_good_ones_is_reported_alike_and_the_others_go_in(tmp_path, real_files):
    truncated = tmp_path / "data" / "iclr" / "iclr2017.json.gz"
    blob = gzip.compress(json.dumps(load_paperlist("iclr", 2017)[:30]).encode())
    truncated.write_bytes(blob[: len(blob) // 2])
    not_json = tmp_path / "data" / "uai" / "uai2019.json"
    not_json.parent.mkdir(parents=True)
    not_json.write_text("this is not JSON {", encoding="utf-8")
    reports = {jobs: ingest(tmp_path / f"{jobs}.db", [tmp_path / "data"], jobs=jobs)
               for jobs in (1, 2)}
    one, two = ([str(f) for f in reports[j].failed] for j in (1, 2))
    assert one == two
    assert sorted(Path(f.path).name for f in reports[2].failed) == ["iclr2017.json.gz",
                                                                     "uai2019.json"]
    assert all(isinstance(f, SourceError) and f.reason for f in reports[2].failed)
    assert len(reports[2].sources) == 5
    assert dump(tmp_path / "1.db") == dump(tmp_path / "2.db")


def test_a_bad_record_is_skipped_with_its_index_when_read_ahead(tmp_path, real_files):
    records = load_paperlist("colm", 2024)[:10]
    records[3] = {k: v for k, v in records[3].items() if k != "title"}
    write_slice(tmp_path / "data", "colm", 2024, records)
    report = ingest(tmp_path / "p.db", [tmp_path / "data"], jobs=2)
    assert [(Path(b.source).name, b.index, "title" in b.reason) for b in report.skipped] == \
        [("colm2024.json.gz", 3, True)]


def test_unchanged_files_are_not_read_again_and_a_file_named_twice_goes_in_once(tmp_path,
                                                                                real_files):
    first = ingest(tmp_path / "p.db", [tmp_path / "data", real_files[0]], jobs=2)
    assert len(first.sources) == 5 and first.unchanged_files == 1
    again = ingest(tmp_path / "p.db", [tmp_path / "data"], jobs=2)
    assert again.unchanged_files == 5 and not again.sources and not again.changed
    forced = ingest(tmp_path / "p.db", [tmp_path / "data"], jobs=2, force=True)
    assert len(forced.sources) == 5 and not forced.changed


def test_a_source_error_crosses_the_process_boundary_whole():
    error = pickle.loads(pickle.dumps(SourceError("/data/x.json.gz", "cannot read file: bad")))
    assert (error.path, error.reason, str(error)) == \
        ("/data/x.json.gz", "cannot read file: bad", "/data/x.json.gz: cannot read file: bad")


def test_ingest_jobs_setting():
    assert Settings.from_env({"PAPERFIND_INGEST_JOBS": "1"}).ingest_jobs == 1
    assert Settings.from_env({"PAPERFIND_INGEST_JOBS": "3"}, ingest_jobs=2).ingest_jobs == 2
    with pytest.raises(ValueError, match="PAPERFIND_INGEST_JOBS"):
        Settings.from_env({"PAPERFIND_INGEST_JOBS": "many"})


def test_gc_pause_puts_the_collector_back_as_it_was():
    import gc

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("a file failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


def test_an_export_is_read_with_the_collector_off_because_reading_it_makes_no_cycles(tmp_path):
    """`Reader.acyclic` is what lets the bundled corpus be read without the cyclic collector
    (4 of 15 s of a first start's reading): reading an export, its bad lines too, must leave
    nothing for the collector to find."""
    import gc

    from paperfind.store.export import iter_export, write_export

    source = write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:30])
    db = tmp_path / "p.db"
    with Store(db) as store:
        ingest_paths(store, [source], progress=False)
        export = tmp_path / "export.jsonl"
        write_export(iter_export(store.conn), export)
    lines = export.read_text("utf-8").splitlines()
    lines[3] = lines[3][:40]  # not JSON
    lines[5] = json.dumps({**json.loads(lines[5]), "year": "soon"})  # a field of the wrong shape
    export.write_text("\n".join(lines) + "\n", "utf-8")
    reader = choose_reader(export)
    assert reader.acyclic
    assert not choose_reader(source).acyclic  # the paper lists' LaTeX parser makes cycles

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        prepared = read_source(export, str(export))
        assert len(prepared.stored) == 28 and len(prepared.skipped) == 2
        del prepared
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
