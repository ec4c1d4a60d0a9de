"""The application object: first start from a bundled corpus with its vectors, incremental updates."""

from __future__ import annotations

import shutil

from paperfind.core import Paperfind
from paperfind.search.response import SearchRequest
from paperfind.settings import Settings
from paperfind.store.export import iter_export, write_export
from tests.realdata import load_paperlist, write_slice


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
    assert stats == app.store().stats() and stats["papers"] == 10
    stats["papers"] = -1  # a caller's change stays its own
    assert app.stats()["papers"] == 10
    second = write_slice(tmp_path / "src", "uai", 2019, load_paperlist("uai", 2019)[:7])
    app.ingest([second], progress=False, build_index=False, vectors=False)
    assert app.stats() == app.store().stats() and app.stats()["papers"] == 17
