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
