"""The written words' papers (the name mining's look-up) are the spelling rows turned around."""

from __future__ import annotations

import numpy as np

from paperfind.index.analysis import ragged
from paperfind.index.builder import WordPapers


def test_each_word_has_its_papers_in_row_order_with_empty_rows_between():
    word_list = ["diffusion", "bandit", "regret", "unused"]
    rows = [[0, 2], [], [1, 0], [], [], [2], [0, 1, 2]]
    turned = WordPapers.of(ragged(rows), word_list)
    for i, word in enumerate(word_list):
        expected = [r for r, ids in enumerate(rows) if i in ids]
        got = turned.papers(word)
        assert got.dtype == np.int64 and got.tolist() == expected
    assert turned.rows.dtype == np.int32  # 4 bytes an entry, the whole corpus's spelling rows

