"""How often a query word's senses share a title with the query's other words (issue 28).

A Chinese word read by a dictionary has several English senses (a glossary's alternates,
CC-CEDICT's readings); the one the user meant is the one the field writes in the company of
the query's other words. Titles say it: in abstracts and full text nearly every pair of senses
co-occurs, in titles a reading that is no word of the topic rarely does (bench/RESULTS.md,
zh28p). This module counts it from the title field's postings, at query time: a title column
is an ascending array of paper rows (`FieldMatrix.column`), a sense of several words is the
papers whose title holds all of them, another query word the papers holding any of its senses,
and a sense's titles are looked up in the other words' columns by binary search (at most
`SAMPLE` of them: the share is what counts). Both backends read it from the local index's
titles (the Milvus backend's `lookups`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperfind.index.lexical import FieldMatrix

# a sense's terms as index term ids (-1: a term the index does not know)
Sense = tuple[int, ...]
NOTHING = np.zeros(0, dtype=np.int32)
# a sense's titles are looked up in the other words' columns at most this many at a time: a
# sense of more titles is read at evenly spaced ones of them (rows are papers in key order, so
# the spaced ones span venues and years) and its count of company scaled up. The weighing reads
# a share, and a share is measured well from a few thousand titles: exact, the 130 zh dev
# queries cost 0.45 / 2.7 ms p50 / p95 at 156k papers and 1.7 / 12.9 ms at 1M; at this bound
# 0.37 / 1.8 and 1.2 / 6.3, with the same answers at 156k (2048 moved two: bench/RESULTS.md, zh28q)
SAMPLE = 4096


def holds(rows: np.ndarray, column: np.ndarray) -> np.ndarray:
    """Which of `rows` the column holds, as a mask over `rows` (both ascending, distinct): the
    shorter is looked up in the longer (a common word's column of ~200k rows at 1M papers
    is not searched for a few probes, nor a few probes' column for thousands)."""
    if not len(column) or not len(rows):
        return np.zeros(len(rows), dtype=bool)
    if len(column) < len(rows):
        at = np.searchsorted(rows, column)
        inside = at < len(rows)
        at = at[inside]
        mask = np.zeros(len(rows), dtype=bool)
        mask[at[rows[at] == column[inside]]] = True
        return mask
    at = np.searchsorted(column, rows)
    at[at == len(column)] = 0
    return column[at] == rows


class TitleColumns:
    """The title field's columns of a query's terms, and each sense's titles (a sample of them
    past `SAMPLE`), each made once a query."""

    def __init__(self, title: FieldMatrix, sample: int = SAMPLE) -> None:
        self.title = title
        self.sample = sample
        self._columns: dict[int, np.ndarray] = {}
        self._titles: dict[Sense, tuple[int, np.ndarray, int]] = {}

    def column(self, term: int) -> np.ndarray:
        made = self._columns.get(term)
        if made is None:
            made = self._columns[term] = self.title.column(term)[0] if term >= 0 else NOTHING
        return made

    def titles(self, sense: Sense) -> tuple[int, np.ndarray, int]:
        """(papers whose title holds every term of `sense`, the rows looked at: every `step`-th
        of those papers, so every one when step is 1)."""
        made = self._titles.get(sense)
        if made is None:
            made = self._titles[sense] = self._make(sense)
        return made

    def _make(self, sense: Sense) -> tuple[int, np.ndarray, int]:
        if not sense or min(sense) < 0:
            return 0, NOTHING, 1
        columns = sorted((self.column(t) for t in set(sense)), key=len)
        rows = columns[0]
        for column in columns[1:]:  # a sense of several words: its titles, all of them
            rows = rows[holds(rows, column)]
        step = max(1, -(-len(rows) // self.sample))
        return len(rows), rows[::step], step

    def in_any(self, rows: np.ndarray, senses: Sequence[Sense]) -> np.ndarray:
        """Which of `rows` have a title holding some sense of `senses` (a word read several ways)."""
        found = np.zeros(len(rows), dtype=bool)
        for sense in dict.fromkeys(senses):
            if not sense or min(sense) < 0:
                continue
            inside = ~found
            for term in sense:
                inside[inside] = holds(rows[inside], self.column(term))
            found |= inside
        return found


def sense_company(title: FieldMatrix, words: Sequence[Sequence[Sense]],
                  sample: int = SAMPLE) -> list[list[tuple[int, int]]]:
    """For each word of several senses, each sense's (papers whose title holds it, the sum over
    the other words of those papers whose title also holds one of that word's senses), counted
    from at most `sample` of its titles and scaled; a word of one sense or none gets an empty
    list (its reading is not in question). Every asked sense's titles are looked up together,
    once per other word's term (a query's cost is its terms, not its pairs of senses)."""
    out: list[list[tuple[int, int]]] = [[] for _ in words]
    asked = [(i, sense) for i, senses in enumerate(words) if len(senses) >= 2 for sense in senses]
    if not asked:
        return out
    columns = TitleColumns(title, sample)
    made = [columns.titles(sense) for _, sense in asked]
    rows = np.concatenate([r for _, r, _ in made])
    owner = np.repeat(np.arange(len(asked)), [len(r) for _, r, _ in made])
    order = np.argsort(rows, kind="stable")  # ascending probes: the binary searches walk forward
    rows, owner = rows[order], owner[order]
    first = np.ones(len(rows), dtype=bool)  # a title two senses hold is looked up once
    np.not_equal(rows[1:], rows[:-1], out=first[1:])
    probe = np.cumsum(first) - 1  # each row's place among the distinct ones
    rows = rows[first]
    of_word = np.array([i for i, _ in asked])
    shared = np.zeros(len(asked), dtype=np.int64)
    for j, senses in enumerate(words):
        if not senses or not len(rows):
            continue
        counts = np.bincount(owner[columns.in_any(rows, senses)[probe]], minlength=len(asked))
        counts[of_word == j] = 0  # a word is not its own company
        shared += counts
    for (i, _), (titles, _, step), together in zip(asked, made, shared.tolist()):
        out[i].append((titles, together * step))
    return out
