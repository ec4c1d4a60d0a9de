"""A small real index: COLT 2019 through the real ingest and store, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperfind.index.manager import IndexVersion, build_index, open_index
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from tests.realdata import PAPERLISTS


@pytest.fixture(scope="session")
def colt_store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("index-slice")
    store = Store(root / "colt.db")
    ingest_paths(store, [PAPERLISTS / "colt" / "colt2019.json.gz"], progress=False)
    return store


@pytest.fixture(scope="session")
def colt_index(colt_store, tmp_path_factory) -> IndexVersion:
    root = tmp_path_factory.mktemp("index-built") / "colt.db.index"
    build_index(colt_store, root)
    index = open_index(root)
    assert index is not None
    return index
