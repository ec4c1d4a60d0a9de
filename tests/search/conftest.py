"""A searcher over a real slice: COLT 2019, CoRL 2022 and ICLR 2017 through the real ingest and store."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def searcher(slice_store) -> Searcher:
    store, index_root = slice_store
    return open_searcher(index_root, store)


@pytest.fixture(scope="session")
def colt_years_app(tmp_path_factory):
    """A lexical Paperfind over COLT 2018's and 2019's first 40 papers: two years, so the expert
    finder's `before` has earlier work to count and later work to leave out."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings
    from tests.realdata import load_paperlist, write_slice

    root = tmp_path_factory.mktemp("colt-years")
    write_slice(root / "a", "colt", 2018, load_paperlist("colt", 2018)[:40])
    write_slice(root / "b", "colt", 2019, load_paperlist("colt", 2019)[:40])
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([root / "a", root / "b"], progress=False)
    return app
