"""The index's text analysis over all papers at once, and the same analysis made ahead in a
second process: both must cut every paper exactly as the analyser does one paper at a time,
and the index built with texts analysed ahead must be the index built without."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperfind.core import Paperfind
from paperfind.index.ahead import TextsAhead, export_texts
from paperfind.index.analysis import (KEYWORD_BREAK, analyze_texts, concat_rows, ragged,
                                      terms_of_texts)
from paperfind.index.builder import build_into
from paperfind.text.analyze import Analyzer
from paperfind.settings import Settings
from paperfind.store.export import iter_export, write_export
from tests.realdata import load_paperlist, write_slice

# texts that take every branch of the analyser: possessives, Han runs (jieba), hyphenated
# words (ASCII and a full-width hyphen, which folds to '-'), stop words only, empty fields
ODD_TEXTS = [
    ("The model's prior: CNNs' depth and auto-encoders", "", []),
    ("图神经网络的过平滑问题", "我们研究大语言模型的推理能力 and multi-modal 学习", ["图学习", "graph"]),
    ("Self－supervised Rocktäschel-style state-of-the-art", "Über naïve co-training ‒ x-y", []),
    ("Of the and", "", ["the", "of and", "Semi-Supervised Learning", "q-learning's"]),
    ("A", "a " * 5, ["", "x"]),
]
SPELL = re.compile(r"^[a-z]+$")


def store_texts(store) -> list[tuple[str, str, list[str]]]:
    return [(d.title, d.abstract, d.keywords)
            for d in sorted(store.iter_index_docs(), key=lambda d: d.key)]


def one_by_one(texts, an: Analyzer) -> dict[str, list]:
    """The analysis as the builder made it before: each paper through the analyser alone."""
    out: dict[str, list] = {f: [] for f in ("title", "abstract", "keywords", "title_plus",
                                            "abstract_plus", "keywords_plus", "spell")}
    for title, abstract, keywords in texts:
        out["title"].append(an.terms(title))
        out["abstract"].append(an.terms(abstract))
        out["keywords"].append([t for k in keywords for t in an.terms(k) + [None]])
        out["title_plus"].append([j for _, j in an.compounds(title)])
        out["abstract_plus"].append([j for _, j in an.compounds(abstract)])
        out["keywords_plus"].append([j for k in keywords for _, j in an.compounds(k)])
        words = an.words(title) + an.words(abstract) + [w for k in keywords for w in an.words(k)]
        out["spell"].append(sorted({w for w in words if SPELL.match(w)}))
    return out


def as_strings(terms, field: str) -> list[list]:
    words = terms.spell_words if field == "spell" else terms.terms
    rows = [[None if i == KEYWORD_BREAK else words[i] for i in row]
            for row in getattr(terms, field).rows()]
    return [sorted(r) for r in rows] if field == "spell" else rows


def assert_same_analysis(texts, terms) -> None:
    expected = one_by_one(texts, Analyzer())
    for field, rows in expected.items():
        assert as_strings(terms, field) == rows, field


def test_every_paper_is_cut_as_the_analyzer_cuts_it_alone(colt_store):
    texts = store_texts(colt_store) + ODD_TEXTS
    assert_same_analysis(texts, analyze_texts(texts))


def test_texts_analysed_ahead_serve_the_papers_they_name_and_only_those(colt_store):
    texts = store_texts(colt_store)
    # ahead: most papers in another order, one paper's title changed since, and texts of
    # papers the store does not have
    changed = list(texts[3])
    changed[0] = changed[0] + " revised"
    ahead = analyze_texts(ODD_TEXTS + [tuple(changed)] + texts[:2] + texts[4:][::-1])
    combined = terms_of_texts(texts, Analyzer(), ahead)
    assert_same_analysis(texts, combined)
    assert combined.digests == analyze_texts(texts).digests


def index_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def test_an_index_from_texts_analysed_ahead_is_the_index_built_without(colt_store, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    build_into(colt_store, plain)
    texts = store_texts(colt_store)
    for name, prepared in (("all", analyze_texts(texts)),
                           ("some", analyze_texts(ODD_TEXTS + texts[::2])),
                           ("none", analyze_texts(ODD_TEXTS))):
        root = tmp_path / name
        root.mkdir()
        build_into(colt_store, root, prepared)
        assert index_files(root) == index_files(plain), name


def test_an_export_is_analysed_ahead_in_a_worker(colt_store, tmp_path):
    export = tmp_path / "colt.jsonl.gz"
    write_export(iter_export(colt_store.conn), export)
    texts = store_texts(colt_store)
    assert export_texts(export) == texts
    ahead = TextsAhead(export).result()
    assert ahead is not None and ahead.digests == analyze_texts(texts).digests

    # lines the store would refuse or read otherwise cost the analysis nothing
    odd = tmp_path / "odd.jsonl.gz"
    with gzip.open(export, "rb") as fh:
        lines = fh.read().split(b"\n")
    odd.write_bytes(gzip.compress(b"\n".join([b"not json", b"[1, 2]", b'{"keywords": "x"}']
                                             + lines[:3])))
    assert export_texts(odd) == texts[:3]


def test_a_failed_worker_leaves_the_build_to_the_builder(colt_store, tmp_path, capsys):
    assert TextsAhead(tmp_path / "missing.jsonl.gz").result() is None
    assert "not analysed ahead (FileNotFoundError" in capsys.readouterr().err

    # a build that stops first (Ctrl-C, an error) stops the worker too
    export = tmp_path / "colt.jsonl.gz"
    write_export(iter_export(colt_store.conn), export)
    ahead = TextsAhead(export)
    process = ahead._process
    ahead.close()
    assert process is not None and not process.is_alive()
    assert ahead.result() is None and capsys.readouterr().err == ""

    # a worker killed (out of memory, say) before it was asked: the build goes on without it
    for ask in ("result", "files"):
        ahead = TextsAhead(export)
        ahead._process.kill()
        ahead._process.join()
        if ask == "result":
            assert ahead.result() is None
        else:
            ahead.build_text_files(tmp_path / "p.db", tmp_path)
            ahead.store_read()
            assert ahead.text_files() is None
        assert "not analysed ahead (the worker ended" in capsys.readouterr().err, ask


def test_a_first_start_analysing_ahead_builds_the_same_database_and_index(tmp_path, capsys):
    source = write_slice(tmp_path / "src", "colt", 2019, load_paperlist("colt", 2019))
    maker = Paperfind(Settings(db_path=tmp_path / "maker" / "p.db", semantic=False))
    maker.ingest([source], progress=False)
    corpus = tmp_path / "bundle" / "mini-corpus.jsonl.gz"
    corpus.parent.mkdir()
    write_export(iter_export(maker.store().conn), corpus)

    built = {}
    for jobs in (1, 2):  # 2: the texts analysed in a worker while the store is written
        app = Paperfind(Settings(db_path=tmp_path / f"jobs{jobs}" / "p.db", corpus_path=corpus,
                                 ingest_jobs=jobs, semantic=False))
        assert app.ensure_database(progress=False) is True
        export = tmp_path / f"jobs{jobs}.jsonl"
        write_export(iter_export(app.store().conn), export)
        built[jobs] = (export.read_bytes(), index_files(app.settings.index_dir / "v1"))
    assert "not analysed ahead" not in capsys.readouterr().err  # the worker's analysis was used
    assert built[1] == built[2]
    assert len(built[1][0].splitlines()) == maker.store().paper_count() > 50


rows_strategy = st.lists(st.lists(st.integers(-1, 40), max_size=6), max_size=12)


@settings(max_examples=60, deadline=None)
@given(rows_strategy, rows_strategy, st.data())
def test_ragged_rows_behave_as_lists(first, second, data):
    a = ragged(first)
    assert a.rows() == first
    order = data.draw(st.lists(st.integers(0, max(len(first) - 1, 0)), max_size=15)) if first else []
    assert a.take(np.asarray(order, dtype=np.int64)).rows() == [first[i] for i in order]
    assert a.where(a.ids >= 0).rows() == [[v for v in r if v >= 0] for r in first]
    other = second[:len(first)] + [[]] * (len(first) - len(second[:len(first)]))
    assert concat_rows(a, ragged(other)).rows() == [x + y for x, y in zip(first, other)]


def test_the_worker_writes_the_text_files_of_the_store_and_says_when_it_cannot(colt_store, tmp_path, capsys):
    """A first start's worker writes the index's text files while people are resolved: the
    same files `build_into` writes; and when it cannot read the store it says so, and the
    caller writes them itself (None)."""
    from paperfind.index.builder import build_people_files, build_text_files, index_docs
    from paperfind.index.doctable import save_params

    plain = tmp_path / "plain"
    plain.mkdir()
    build_into(colt_store, plain)
    export = tmp_path / "colt.jsonl.gz"
    write_export(iter_export(colt_store.conn), export)

    split = tmp_path / "split"
    split.mkdir()
    ahead = TextsAhead(export)
    ahead.build_text_files(colt_store.path, split)
    ahead.store_read()
    params = build_people_files(colt_store, index_docs(colt_store), split)
    params["n_terms"] = ahead.text_files()
    save_params(split, params)
    assert index_files(split) == index_files(plain)
    assert capsys.readouterr().err == ""

    failed = tmp_path / "failed"
    failed.mkdir()
    ahead = TextsAhead(export)
    ahead.build_text_files(tmp_path / "no-such.db", failed)
    ahead.store_read()
    assert ahead.text_files() is None
    assert "not analysed ahead" in capsys.readouterr().err
    assert build_text_files(index_docs(colt_store), failed) == params["n_terms"]


def test_a_second_worker_writes_the_people_files_and_says_when_it_cannot(colt_store, tmp_path, capsys):
    """Once people are resolved, a first start's second worker writes the index's files that
    name them (`build_people_files`) while the first start loads the search's parts: the same
    files and params; when it cannot read the store it says so, and `build_into` writes them."""
    from paperfind.index.ahead import PeopleFilesAhead

    plain = tmp_path / "plain"
    plain.mkdir()
    build_into(colt_store, plain)

    split = tmp_path / "split"
    split.mkdir()
    people = PeopleFilesAhead(colt_store.path, split)
    build_into(colt_store, split, people_files_written=people.result)
    assert index_files(split) == index_files(plain)
    assert capsys.readouterr().err == ""

    failed = tmp_path / "failed"
    failed.mkdir()
    people = PeopleFilesAhead(tmp_path / "no-such.db", failed)
    build_into(colt_store, failed, people_files_written=people.result)
    assert "people's index files not written ahead (FileNotFoundError" in capsys.readouterr().err
    assert index_files(failed) == index_files(plain)


def test_the_search_parts_load_before_the_index_exists(tmp_path):
    """A first start loads the segmenter, the translator and the learned ranker while its
    index is written: nothing of them needs the index, and loading them builds none."""
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    searcher = app.searcher()
    assert searcher.warm_state() == {"index": False, "segmenter": False, "translator": False}
    searcher.load_parts()
    assert searcher.warm_state() == {"index": False, "segmenter": True, "translator": True}
    assert not app.settings.index_dir.exists() and not app.settings.db_path.exists()


def test_the_analysis_keeps_a_word_once_not_once_a_paper() -> None:
    """Issue 33: the words of every paper wait in lists until all are read; a string object per
    occurrence made those lists most of the memory of an index build at scale. Counted by
    tracemalloc (allocations, not time): 3,000 papers of ~160 words each peak below 90 bytes a
    word (one object a word each time: ~120)."""
    assert _analysis_peak_bytes_a_word() < 90


def test_the_analysis_holds_a_word_in_a_few_bytes(monkeypatch) -> None:
    """Issue 33, a million papers: each field's words wait as 4-byte ids, not a list's 8-byte
    pointers kept to the end, and the papers' distinct spelling words are sorted a chunk of
    papers at a time, not as (paper, word) pairs of the whole corpus. Counted by tracemalloc
    (allocations, not time) with chunks of 500 papers: below 35 bytes a word (the lists and
    the corpus' pairs at once: ~68)."""
    from paperfind.index import analysis

    monkeypatch.setattr(analysis, "SPELL_CHUNK_PAPERS", 500)
    assert _analysis_peak_bytes_a_word() < 35


def _analysis_peak_bytes_a_word() -> float:
    """The analysis's peak allocation (tracemalloc) per word, over 3,000 papers of ~160 words."""
    import tracemalloc

    from paperfind.index.analysis import analyze_texts
    from paperfind.text.analyze import Analyzer

    abstract = ("We train Generative Adversarial Networks at the largest scale yet attempted, and study "
                "the instabilities specific to such scale. ") * 8
    texts = [(f"Large Scale GAN Training {i}", abstract, ["gan", "scale"]) for i in range(3000)]
    an = Analyzer()
    analyze_texts(texts[:10], an)  # the analyser's own caches, not counted
    words = sum(len(an.words(t)) + len(an.words(a)) + 4 for t, a, _ in texts)
    tracemalloc.start()
    try:
        analyze_texts(texts, an)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / words


@pytest.mark.parametrize("chunk", [1, 7, 1_000_000])
def test_the_spelling_rows_are_the_same_in_chunks_of_any_size(colt_store, monkeypatch, chunk):
    """A paper's spelling pairs are all in its chunk: any chunk size gives the same rows."""
    from paperfind.index import analysis

    texts = store_texts(colt_store) + ODD_TEXTS
    whole = analyze_texts(texts)
    monkeypatch.setattr(analysis, "SPELL_CHUNK_PAPERS", chunk)
    chunked = analyze_texts(texts)
    assert chunked.spell_words == whole.spell_words
    assert np.array_equal(chunked.spell.indptr, whole.spell.indptr)
    assert np.array_equal(chunked.spell.ids, whole.spell.ids)
    assert_same_analysis(texts, chunked)
