"""The local engine's candidates, counts and per-handle scores are the full scoring's whether a
query is scored over every row or at the rows it touches (paperfind.index.scored), on the real
slice: rare words (scored at their rows), common ones (dense), min_match with its relaxation,
a filter, a cut to k. The slice is smaller than the corpora where scoring at the rows pays
(`SPARSE_MIN_PAPERS`), so the backend here takes the rule without that floor."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from paperfind.index.scored import score_query
from paperfind.search import backend as backend_module
from paperfind.search.backend import CandidateRequest, IndexBackend, Restriction
from paperfind.search.filters import Filters
from paperfind.search.rank import top_order


@pytest.fixture
def backend(searcher, monkeypatch) -> IndexBackend:
    monkeypatch.setattr(backend_module, "score_query", partial(score_query, min_papers=0))
    return IndexBackend(searcher.backend().index)  # its own memo: every request scored here


def _words(backend: IndexBackend, rare: bool, n: int) -> list[str]:
    """Title words of the slice, the rarest (a few papers each) or the most common."""
    lex = backend.index.lexical
    df = lex.fields["text"].doc_freq
    seen = {int(t) for row in range(0, backend.n_docs, 7) for t in backend.index.docs.title_seq.row(row)
            if t >= 0 and df[t] > 0}
    ranked = sorted(seen, key=lambda t: (int(df[t]), t), reverse=not rare)
    return [lex.vocab[t] for t in ranked[:n]]


def _reference(backend: IndexBackend, request: CandidateRequest) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, scores, matched) as the backend found them before: every row scored, then masked."""
    scores, matched = backend.index.lexical.score(backend._resolve(request.groups))
    mask = backend._mask(request.restriction)
    if mask is not None:
        scores, matched = np.where(mask, scores, 0), np.where(mask, matched, 0)
    rows = np.flatnonzero((matched >= request.min_match) & (scores > 0))
    if len(rows) < request.relax_below and request.min_match > 1:
        rows = np.flatnonzero(scores > 0)
    if request.k is not None and request.k < len(rows):
        rows = np.sort(rows[top_order(rows, scores[rows], request.k)])
    return rows, scores[rows], matched[rows]


def test_candidates_as_the_full_scoring_gives_them(backend) -> None:
    rare, common = _words(backend, True, 12), _words(backend, False, 6)
    year = Restriction(Filters(year_from=2019, year_to=2022))
    sparse = 0
    for words in ([rare[0]], rare[1:3], rare[3:6], [rare[6], common[0]], common[:3], rare[7:12]):
        groups = [[("text", w, 1.0), ("authors", w, 0.5)] for w in words]
        sparse += backend._query_scored(groups).rows is not None
        for fields in ({}, {"min_match": 2}, {"min_match": 2, "relax_below": 50}, {"k": 3},
                       {"restriction": year}, {"restriction": year, "min_match": 2, "k": 2}):
            request = CandidateRequest(groups, **fields)
            found = backend.candidates(request)
            rows, scores, matched = _reference(backend, request)
            assert found.handles.tolist() == rows.tolist(), (words, fields)
            assert np.array_equal(found.scores, scores) and np.array_equal(found.matched, matched)
            assert found.total == len(_reference(backend, CandidateRequest(
                groups, **{**fields, "k": None}))[0])
            counted = backend.facets(request, found.handles)
            assert sum(n for _, n in counted.papers["venue"]) == found.total
            every = np.arange(backend.n_docs)
            want = backend.index.lexical.score(backend._resolve(groups))
            got = backend.scores(groups, every)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert 0 < sparse < 6  # rare words at their rows, common ones over every row
