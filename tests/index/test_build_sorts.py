"""The index build takes distinct values and unions by a sort (paperfind.index.distinct), not by
numpy 2.4's hashing `np.unique` / `np.union1d`: at a million papers those were ~1 s for each
spelling chunk, tens of seconds for the vocabulary's used terms and a fifth of the name mining
(bench/RESULTS.md, issue 33). The files are the ones numpy's answers gave (the same arrays:
tests/index/test_distinct.py); here a build of a real slice must not call numpy's."""

from __future__ import annotations

import dataclasses
import filecmp

import numpy as np
import pytest

from paperfind.index.builder import build_text_files, index_docs
from paperfind.index.paper_name_table import PaperNameTable

# a real title and abstract sentence of the bundled corpus (iclr2019:B1xsqj09Fm): its name is a
# capitalised plural, the words of which the mining looks up in both forms and unites
BIGGAN = ("Large Scale GAN Training for High Fidelity Natural Image Synthesis",
          "We train Generative Adversarial Networks at the largest scale yet attempted. When trained on "
          "ImageNet at 128x128 resolution, our models (BigGANs) achieve an Inception Score (IS) of 166.3.")


def _forbid_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("the index build called numpy's hashing unique/union1d")

    monkeypatch.setattr(np, "unique", refused)
    monkeypatch.setattr(np, "union1d", refused)


def test_the_text_files_are_built_without_numpys_hashing_and_are_the_same(colt_store, tmp_path,
                                                                          monkeypatch) -> None:
    docs = index_docs(colt_store)
    # a later paper writes the name in the singular, so both forms of its word have papers
    docs = [dataclasses.replace(docs[0], title=BIGGAN[0], abstract=BIGGAN[1]), *docs[1:-1],
            dataclasses.replace(docs[-1], abstract=docs[-1].abstract + " We compare with BigGAN.")]
    (tmp_path / "numpy").mkdir()
    (tmp_path / "sorted").mkdir()
    n_terms = build_text_files(docs, tmp_path / "numpy")

    _forbid_hashing(monkeypatch)
    assert build_text_files(docs, tmp_path / "sorted") == n_terms
    monkeypatch.undo()

    built = sorted(p.name for p in (tmp_path / "numpy").iterdir())
    assert built == sorted(p.name for p in (tmp_path / "sorted").iterdir())
    _, mismatch, errors = filecmp.cmpfiles(tmp_path / "numpy", tmp_path / "sorted", built, shallow=False)
    assert not mismatch and not errors
    assert "BigGANs" in PaperNameTable(tmp_path / "sorted", len(docs)).names_of(0)

