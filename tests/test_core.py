"""The application object: first start from a bundled corpus with its vectors, incremental updates."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings
from paperfind.store.export import iter_export, write_export
from tests.realdata import load_paperlist, write_slice

REPO = Path(__file__).resolve().parents[1]


def test_first_start_uses_the_bundled_corpus_and_its_vectors(tmp_path):
    # a miniature "bundled corpus": an export file with its vectors beside it
    source = write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:15])
    maker = Paperfind(Settings(db_path=tmp_path / "maker" / "p.db"))
    maker.ingest([source], progress=False)
    corpus = tmp_path / "bundle" / "mini-corpus.jsonl.gz"
    corpus.parent.mkdir()
    write_export(iter_export(maker.store().conn), corpus)
    made = maker.update_vectors(progress=False)
    assert made.embedded == 15
    app = Paperfind(Settings(db_path=tmp_path / "fresh" / "p.db", corpus_path=corpus))
    assert app.settings.bundled_vector_dir == tmp_path / "bundle" / "mini-corpus.vectors"
    shutil.copytree(maker.settings.vector_dir, app.settings.bundled_vector_dir)

    assert app.ensure_database(progress=False) is True
    assert app.store().paper_count() == 15
    assert (app.settings.vector_dir / "CURRENT").exists()
    again = app.update_vectors(progress=False)
    assert (again.embedded, again.reused) == (0, 15)  # nothing re-embedded on first start
    assert app.ensure_database(progress=False) is False

    response = app.searcher().search(SearchRequest(q="bandits", mode="hybrid", limit=5))
    assert response.mode == "hybrid"

    # new papers: ingest embeds just them
    more = write_slice(tmp_path / "src", "colt", 2018, load_paperlist("colt", 2018)[:4])
    app.ingest([more], progress=False)
    latest = app.update_vectors(progress=False)
    assert (latest.embedded, latest.reused) == (0, 19)  # ingest already embedded the four


def test_semantic_off_never_touches_vectors(tmp_path):
    source = write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:5])
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    app.ingest([source], progress=False)
    assert app.update_vectors_in_background() is None
    assert not app.settings.vector_dir.exists()
    response = app.searcher().search(SearchRequest(q="learning", mode="hybrid"))
    assert response.mode == "lexical"


def test_stats_follow_every_ingest_and_stay_the_stores_counts(tmp_path):
    app = Paperfind(Settings(db_path=tmp_path / "p.db"))
    first = write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:10])
    app.ingest([first], progress=False, build_index=False, vectors=False)
    stats = app.stats()
    assert stats == {**app.store().stats(), "indexing": None} and stats["papers"] == 10
    stats["papers"] = -1  # a caller's change stays its own
    assert app.stats()["papers"] == 10
    second = write_slice(tmp_path / "src", "uai", 2019, load_paperlist("uai", 2019)[:7])
    app.ingest([second], progress=False, build_index=False, vectors=False)
    assert app.stats() == {**app.store().stats(), "indexing": None} and app.stats()["papers"] == 17


def _export_of(tmp_path, venue: str, year: int, count: int):
    source = write_slice(tmp_path / "src", venue, year, load_paperlist(venue, year)[:count])
    maker = Paperfind(Settings(db_path=tmp_path / "maker" / "p.db", semantic=False))
    maker.ingest([source], progress=False)
    export = tmp_path / "export.jsonl"
    write_export(iter_export(maker.store().conn), export)
    return export


def test_a_first_start_killed_while_building_leaves_no_database_and_the_next_builds_it(tmp_path):
    """The first start writes a file no one opens and renames it into place when complete: a
    kill halfway leaves no database (not one with half the corpus, or none of its people),
    and the next start builds the whole one."""
    export = _export_of(tmp_path, "colt", 2019, 20)
    corpus = tmp_path / "bundle" / "corpus.jsonl"
    corpus.parent.mkdir()
    os.mkfifo(corpus)  # the build blocks reading it, halfway, wherever the test wants
    db = tmp_path / "fresh" / "paperfind.db"
    code = ("import sys; from pathlib import Path; from paperfind.core import Paperfind; "
            "from paperfind.settings import Settings; Paperfind(Settings(db_path=Path(sys.argv[1]), "
            "corpus_path=Path(sys.argv[2]), ingest_jobs=1, semantic=False)).ensure_database(progress=False)")
    child = subprocess.Popen([sys.executable, "-c", code, str(db), str(corpus)], cwd=REPO,
                             stderr=subprocess.DEVNULL)
    try:
        blob = export.read_bytes()
        with open(corpus, "wb") as fifo:  # first read: the file's checksum
            fifo.write(blob)
        fifo = open(corpus, "wb")  # second: its records, of which half come
        fifo.write(blob[:len(blob) // 2])
        fifo.flush()
        building = db.with_name(db.name + ".building")
        assert building.exists() and child.poll() is None
        child.kill()
        child.wait()
        with contextlib.suppress(BrokenPipeError):
            fifo.close()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert not db.exists()

    corpus.unlink()
    shutil.copyfile(export, corpus)
    app = Paperfind(Settings(db_path=db, corpus_path=corpus, ingest_jobs=1, semantic=False))
    assert app.ensure_database(progress=False) is True
    assert app.store().paper_count() == 20
    assert app.store().meta("people_version") == str(app.store().data_version())
    assert app.store().conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not building.exists()
    assert app.searcher().search(SearchRequest(q="bandits", limit=5)).total > 0


def test_a_first_start_replaces_a_database_without_papers(tmp_path):
    """A database left without papers (a killed build of an older paperfind kept its tables)
    is built anew; its -wal is removed with it, so it cannot be read into the new file."""
    export = _export_of(tmp_path, "uai", 2019, 12)
    db = tmp_path / "fresh" / "paperfind.db"
    app = Paperfind(Settings(db_path=db, corpus_path=export, ingest_jobs=1, semantic=False))
    app.store().conn.execute("SELECT 1")  # the schema, no papers, and a connection on it
    assert db.exists() and app.store().paper_count() == 0
    assert app.ensure_database(progress=False) is True
    assert app.store().paper_count() == 12
    assert Paperfind(Settings(db_path=db, semantic=False)).store().paper_count() == 12


def test_a_sharded_corpus_serves_the_ml_venues_first_and_the_rest_in_the_background(tmp_path):
    """The bundled corpus's layout in miniature: venue-year shards, their vectors as shards over
    a base generation. A first start builds and serves the ML venue (COLT), then
    `complete_corpus` (what `serve` runs in the background) brings in CVPR, resumably."""
    from paperfind.index.vector_shards import write_shards
    from paperfind.index.vectors import VectorIndex
    from paperfind.store.export import write_shards as write_text_shards

    maker = Paperfind(Settings(db_path=tmp_path / "maker" / "p.db"))
    maker.ingest([write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:10])],
                 progress=False)
    maker.update_vectors(progress=False)
    bundle = tmp_path / "bundle"
    base = bundle / "default-corpus.vectors"
    shutil.copytree(maker.settings.vector_dir, base)  # vectors shipped before the shards
    cvpr = load_paperlist("cvpr", 2019)[:5]
    maker.ingest([write_slice(tmp_path / "src", "cvpr", 2019, cvpr)], progress=False)
    assert maker.update_vectors(progress=False).total == 15  # ingest embedded the five
    counts, written = write_text_shards(maker.store().conn, bundle / "corpus")
    assert counts == {"colt-2019.jsonl.gz": 10, "cvpr-2019.jsonl.gz": 5}
    venue_years = {k: (v, y) for k, v, y in maker.store().conn.execute("SELECT key, venue, year FROM papers")}
    # COLT's vectors are the base's: only CVPR gets a shard
    assert write_shards(maker.settings.vector_dir, venue_years, bundle / "corpus.vectors", base) == [
        "cvpr-2019.npz"]
    assert write_text_shards(maker.store().conn, bundle / "corpus")[1] == []  # same papers, same bytes

    app = Paperfind(Settings(db_path=tmp_path / "fresh" / "p.db", corpus_path=bundle / "corpus"))
    assert app.settings.bundled_vector_dir == bundle / "corpus.vectors"
    assert app.ensure_database(progress=False) is True
    assert app.store().paper_count() == 10
    assert [p.name for p in app.pending_corpus()] == ["cvpr-2019.jsonl.gz"]
    status = app.stats()["indexing"]
    assert status["done_percent"] == 0 and status["venues"][0]["venue"] == "cvpr"
    assert status["venues"][0]["years"] == [2019, 2019]
    assert len(VectorIndex.open(app.settings.vector_dir)) == 15  # base and shards assembled
    title = cvpr[0]["title"]
    assert app.searcher().search(SearchRequest(q=title, mode="lexical", limit=3)).results == [] or \
        app.searcher().search(SearchRequest(q=title, mode="lexical", limit=3)).results[0]["venue"] != "cvpr"
    from paperfind.index.manager import open_index

    # the papers' names are mined over the whole corpus: the first part's index has none
    assert not open_index(app.settings.index_dir).paper_names.present

    # killed before the background finished: the next start resumes it, nothing is rebuilt
    again = Paperfind(Settings(db_path=tmp_path / "fresh" / "p.db", corpus_path=bundle / "corpus"))
    assert again.ensure_database(progress=False) is False
    assert again.complete_corpus() == 1
    assert again.store().paper_count() == 15 and again.pending_corpus() == []
    assert again.stats()["indexing"] is None
    top = again.searcher().search(SearchRequest(q=title, mode="lexical", limit=3)).results[0]
    assert top["venue"] == "cvpr" and top["title"] == title
    assert open_index(again.settings.index_dir).paper_names.present  # the whole corpus's index has them
    assert again.complete_corpus() == 0
    stats = again.update_vectors(progress=False)
    assert (stats.embedded, stats.reused) == (0, 15)  # every shipped vector was current


def test_ingest_tells_each_file_once_it_is_committed(tmp_path):
    """What `complete_corpus` reports its progress from: after each file, its papers are in."""
    from paperfind.ingest.run import ingest_paths
    from paperfind.store import Store

    files = [write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:10]),
             write_slice(tmp_path / "src", "uai", 2019, load_paperlist("uai", 2019)[:7])]
    store = Store(tmp_path / "p.db")
    seen = []
    ingest_paths(store, files, progress=False, on_file=lambda p: seen.append((p.name, store.paper_count())))
    assert seen == [("colt2019.json.gz", 10), ("uai2019.json.gz", 17)]
    seen.clear()
    ingest_paths(store, files, progress=False, on_file=lambda p: seen.append(p.name))
    assert seen == ["colt2019.json.gz", "uai2019.json.gz"]  # unchanged files are told too


def test_the_made_searcher_is_handed_out_without_the_lock_that_makes_it(tmp_path):
    """Every request asks `Paperfind.searcher()`; once the searcher is made it is returned
    without taking the lock (or running the imports) that make it: a thread holding that lock
    does not hold up another's request."""
    import threading

    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    app.ingest([write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019)[:5])], progress=False)
    made = app.searcher()
    handed: list = []
    with app._searcher_lock:  # held, as while the first request makes the searcher
        asker = threading.Thread(target=lambda: handed.append(app.searcher()), daemon=True)
        asker.start()
        asker.join(timeout=60)  # a deadlock detector, not a time limit: it returns at once
        assert not asker.is_alive() and handed == [made]
