"""A user's say in the index build's processes (Settings.index_jobs, PAPERFIND_INDEX_JOBS)
reaches the name mining on every path that builds an index: with 1 the mining never forks,
by default (two cores) it forks from `PARALLEL_FROM` papers, as it did before the setting.

The threshold is lowered so that the repo's slices are above it, and forks are counted where
the mining makes them (`os.fork`, which `paperfind.index.forked` calls)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import paperfind.index.paper_names as paper_names
from paperfind.core import Paperfind
from paperfind.index.builder import build_into
from paperfind.index.manager import build_index
from paperfind.ingest.run import ingest_paths
from paperfind.settings import Settings
from paperfind.store import Store
from paperfind.store.export import iter_export, write_export
from tests.realdata import PAPERLISTS

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: one process mines")


@pytest.fixture(scope="module")
def slices_store(tmp_path_factory) -> Store:
    """Every paper of the repo's paper-list slices (1,765), people resolved."""
    store = Store(tmp_path_factory.mktemp("jobs") / "slices.db")
    ingest_paths(store, [PAPERLISTS], progress=False)
    return store


@pytest.fixture
def forks(monkeypatch) -> list[int]:
    """The forks this process makes from now on (the slices above the mining's threshold, on
    two cores whatever the machine has)."""
    made: list[int] = []
    fork = os.fork

    def counting() -> int:
        made.append(os.getpid())
        return fork()

    monkeypatch.setattr(paper_names, "PARALLEL_FROM", 100)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "fork", counting)
    return made


@pytest.mark.parametrize("jobs, forked", [(1, False), (2, True), (None, True)])
def test_build_index_mines_in_as_many_processes_as_it_is_given(slices_store, tmp_path, forks, jobs, forked):
    build_index(slices_store, tmp_path / "index", jobs=jobs)
    assert bool(forks) is forked


def test_a_build_whose_texts_worker_failed_mines_its_names_as_told(slices_store, tmp_path, forks):
    # the first start's path: the texts' worker failed, so build_into writes the text files itself
    for jobs, forked in ((1, False), (2, True)):
        forks.clear()
        root = tmp_path / str(jobs)
        root.mkdir()
        build_into(slices_store, root, text_files_written=lambda: None, jobs=jobs)
        assert bool(forks) is forked, jobs


@pytest.mark.parametrize("env, forked", [({"PAPERFIND_INDEX_JOBS": "1"}, False), ({}, True)])
def test_the_setting_reaches_the_build_of_an_ingest_and_of_a_first_start(tmp_path, forks, env, forked):
    settings = Settings.from_env(env, db_path=tmp_path / "ingested.db", ingest_jobs=1, semantic=False)
    assert settings.index_jobs == (1 if env else 2)
    report = Paperfind(settings).ingest([PAPERLISTS], progress=False, vectors=False)
    assert report.timings["index"] > 0 and bool(forks) is forked
    # a first start of one process (no texts' worker) from an export of that database: the
    # index built by `refresh_index`
    export = tmp_path / "corpus.jsonl"
    write_export(iter_export(Store(settings.db_path).conn), export)
    forks.clear()
    first = Settings.from_env(env, db_path=tmp_path / "first.db", corpus_path=export,
                              ingest_jobs=1, semantic=False)
    assert Paperfind(first).ensure_database(progress=False, vectors=False)
    assert bool(forks) is forked
    assert (Path(first.index_dir) / "CURRENT").exists()
