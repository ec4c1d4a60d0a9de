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
from paperfind.index.paper_names import JUDGED_BY_CHILD, fold_paper_name, mine_names
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


def test_two_processes_write_the_name_files_one_process_writes(slices_docs, tmp_path: Path) -> None:
    written = {}
    for processes in (1, 2):
        root = tmp_path / str(processes)
        root.mkdir()
        build_text_files(slices_docs, root, mining_processes=processes)
        written[processes] = {name: (root / name).read_bytes() for name in NAME_FILES}
    assert written[2] == written[1]
    mentions = np.load(tmp_path / "1" / "meta.mentions.npy")
    assert len(mentions) == len(slices_docs) and mentions.any()  # names were mined, in both halves
    named = np.flatnonzero(mentions)
    assert named.min() < len(slices_docs) // 2 <= named.max()


def _mine(papers: list[tuple[str, str, int]], processes: int, rows_with=None):
    """mine_names over (title, abstract, year) rows, each its own work, uncited, with postings
    of the rows' lower-case words (a plural's word too)."""
    words = [set(re.findall(r"[a-z0-9]+", f"{t} {a}".lower())) for t, a, _ in papers]

    def postings(name: str) -> np.ndarray:
        wanted = re.findall(r"[a-z0-9]+", name.lower())
        return np.asarray([r for r, ws in enumerate(words)
                           if all(w in ws or w[:-1] in ws for w in wanted)], dtype=np.int64)
    return mine_names([p[0] for p in papers], [p[1] for p in papers], np.asarray([p[2] for p in papers]),
                      np.arange(len(papers)), np.full(len(papers), -1), rows_with or postings,
                      processes=processes)


# a name spelt in words first ("Deep Sets") and later as one ("DeepSets") folds to one name,
# whose uses are looked up by its first spelling: as a phrase, which earlier papers wrote
DEEP_SETS = [("Deep Sets: permutation invariant models", "We study deep sets of points.", 2018)]
DEEP_SETS += [(f"Point clouds {i}", "Earlier work trains deep sets on point clouds.", 2015) for i in range(4)]
DEEP_SETS += [(f"Filler paper {i}", "An unrelated abstract about bandits.", 2016) for i in range(5)]
DEEP_SETS += [("DeepSets: a new family of models", "We propose DeepSets, a family of models.", 2019)]


def test_a_name_is_looked_up_by_its_first_spelling_in_either_process() -> None:
    assert fold_paper_name("Deep Sets") == fold_paper_name("DeepSets")
    # the second spelling is in the child's rows (it judges the last JUDGED_BY_CHILD of them)
    assert len(DEEP_SETS) - 1 >= len(DEEP_SETS) - int(len(DEEP_SETS) * JUDGED_BY_CHILD)
    one, two = _mine(DEEP_SETS, 1), _mine(DEEP_SETS, 2)
    # one process: "DeepSets" is the phrase "deep sets", which four papers wrote in 2015
    assert "DeepSets" not in one.names[-1]
    assert two.names == one.names
    assert two.mentions.tolist() == one.mentions.tolist() and two.standing.tolist() == one.standing.tolist()
    assert two.table == one.table


def test_a_failure_in_the_childs_rows_fails_the_mining_with_its_message() -> None:
    papers = [("mixup: Beyond Empirical Risk Minimization", "We propose mixup, a learning principle.", 2018)]
    papers += [(f"Filler paper {i}", "An unrelated abstract about bandits.", 2016) for i in range(8)]
    papers += [("BigGAN: Large Scale GAN Training", "We train BigGAN at scale.", 2019)]

    def rows_with(name: str) -> np.ndarray:
        if name == "BigGAN":
            raise ValueError("no postings for 'BigGAN'")
        return np.zeros(0, dtype=np.int64)

    with pytest.raises(ForkedError, match=r"ValueError: no postings for 'BigGAN'"):
        _mine(papers, 2, rows_with)
    with pytest.raises(ValueError, match="no postings for 'BigGAN'"):  # as in one process
        _mine(papers, 1, rows_with)
