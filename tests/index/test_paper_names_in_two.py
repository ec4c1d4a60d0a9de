"""The name mining split between two processes (paperfind.index.paper_names, `processes=2`)
mines what one process mines, file for file, and fails where a part of it fails."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from paperfind.index.builder import build_text_files, index_docs
from paperfind.index.forked import ForkedError
import paperfind.index.paper_names as paper_names
from paperfind.index.paper_names import fold_paper_name, mine_names
from paperfind.ingest.run import ingest_paths
from paperfind.store import Store
from tests.realdata import PAPERLISTS

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: one process mines")
NAME_FILES = ("paper_names.json", "meta.standing.npy", "meta.mentions.npy")


@pytest.fixture(scope="module")
def slices_docs(tmp_path_factory):
    """Every paper of the repo's paper-list slices (venues and years of the field, 2001-2025)."""
    store = Store(tmp_path_factory.mktemp("slices") / "slices.db")
    ingest_paths(store, [PAPERLISTS], progress=False)
    return index_docs(store)


def test_two_processes_write_the_name_files_one_process_writes(slices_docs, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paper_names, "CHUNK_ROWS", 64)  # chunks for both processes in a small corpus
    monkeypatch.setattr(paper_names, "PARALLEL_FROM", 100)  # two processes at the slices' size
    written = {}
    for processes in (1, 2):
        root = tmp_path / str(processes)
        root.mkdir()
        build_text_files(slices_docs, root, jobs=processes)
        written[processes] = {name: (root / name).read_bytes() for name in NAME_FILES}
    assert written[2] == written[1]
    mentions = np.load(tmp_path / "1" / "meta.mentions.npy")
    assert len(mentions) == len(slices_docs) and mentions.any()  # names were mined, in both halves
    named = np.flatnonzero(mentions)
    assert named.min() < len(slices_docs) // 2 <= named.max()


def _mine(papers: list[tuple[str, str, int]], processes: int, rows_with=None):
    """mine_names over (title, abstract, year) rows, each its own work, uncited, with postings
    of the rows' lower-case words (a plural's word too)."""
    return mine_names([p[0] for p in papers], [p[1] for p in papers], np.asarray([p[2] for p in papers]),
                      np.arange(len(papers)), np.full(len(papers), -1), rows_with or _postings(papers),
                      processes=processes)


# a name spelt in words first ("Deep Sets") and later as one ("DeepSets") folds to one name,
# whose uses are looked up by its first spelling: as a phrase, which earlier papers wrote
SPELT_TWICE = ("Deep Sets", "Graph Nets", "Flow Nets", "Tree Sets", "Capsule Nets", "Mixer Sets")
FIRST = [(f"{name}: models of things", f"We study {name.lower()} of points.", 2018) for name in SPELT_TWICE]
EARLIER = [(f"Point clouds {i}", f"Earlier work trains {name.lower()} on point clouds.", 2015)
           for name in SPELT_TWICE for i in range(4)]
THEN = [(f"{name.replace(' ', '')}: a new family of models", f"We propose {name.replace(' ', '')}, a family.", 2019)
        for name in SPELT_TWICE]


def _child_joins(postings, fails: bool = False):
    """`postings` as the mining's `rows_with`, where this process's first look-up waits for the
    child's first (so the child judges rows, however fast this process's other part is); the
    child's fails with ValueError if `fails`."""
    parent, (read_end, write_end) = os.getpid(), os.pipe()
    met = [False]

    def rows_with(name: str) -> np.ndarray:
        if os.getpid() != parent:
            if not met[0]:
                met[0] = True
                os.write(write_end, b".")
            if fails:
                raise ValueError(f"no postings for {name!r}")
        elif not met[0]:
            os.read(read_end, 1)
            met[0] = True
        return postings(name)
    return rows_with


def _postings(papers: list[tuple[str, str, int]]):
    words = [set(re.findall(r"[a-z0-9]+", f"{t} {a}".lower())) for t, a, _ in papers]

    def postings(name: str) -> np.ndarray:
        wanted = re.findall(r"[a-z0-9]+", name.lower())
        return np.asarray([r for r, ws in enumerate(words)
                           if all(w in ws or w[:-1] in ws for w in wanted)], dtype=np.int64)
    return postings


def test_a_name_is_looked_up_by_its_first_spelling_in_either_process(monkeypatch) -> None:
    assert all(fold_paper_name(name) == fold_paper_name(name.replace(" ", "")) for name in SPELT_TWICE)
    monkeypatch.setattr(paper_names, "CHUNK_ROWS", 1)  # rows handed out one by one to either process
    papers = FIRST + EARLIER + THEN
    one, two = _mine(papers, 1), _mine(papers, 2, _child_joins(_postings(papers)))
    # one process: "DeepSets" is the phrase "deep sets", which four papers wrote in 2015
    assert one.names[-len(THEN):] == [[]] * len(THEN)
    assert two.names == one.names
    assert two.mentions.tolist() == one.mentions.tolist() and two.standing.tolist() == one.standing.tolist()
    assert two.table == one.table


def test_a_failure_in_the_child_fails_the_mining_with_its_message(monkeypatch) -> None:
    monkeypatch.setattr(paper_names, "CHUNK_ROWS", 1)
    papers = FIRST + EARLIER + THEN
    with pytest.raises(ForkedError, match=r"ValueError: no postings for '"):
        _mine(papers, 2, _child_joins(_postings(papers), fails=True))
