"""The second stage's word features computed for every candidate at once (paperfind.search.rank)
are those of the plain per-candidate definitions, on the real slice's candidates of queries of
several kinds: the query's words present per field, and a keyword that is the query."""

from __future__ import annotations

import numpy as np
import pytest

from paperfind.search.plan import build_plan, idf_of_groups
from paperfind.search.query import parse_query
from paperfind.search.rank import SEPARATOR, GroupMap, Mapped, adjacent_pairs, idf_share, keyword_match
from paperfind.search.second_stage import query_terms

QUERIES = ["online learning", "reinforcement learning", "learning", "bandits regret bounds",
           "robot grasping policy", "imitation learning", "meta-learning", "deep learning theory",
           "sample complexity of learning halfspaces", "the of"]


def _reference_share(gm: GroupMap, fields: list[Mapped], n: int) -> np.ndarray:
    out = np.zeros(n)
    for i in range(n):
        found = {int(g) for m in fields for g in m.groups[m.owner == i] if g >= 0}
        out[i] = sum(gm.idf[g] for g in sorted(found)) / (gm.idf.sum() or 1.0)
    return out


def _reference_keyword(gm: GroupMap, keywords: Mapped, n: int) -> np.ndarray:
    out = np.zeros(n)
    for i in range(n):
        runs, current = [], []
        for g in keywords.groups[keywords.owner == i].tolist() + [SEPARATOR]:
            if g == SEPARATOR:
                runs.append(current)
                current = []
            else:
                current.append(g)
        out[i] = float(gm.n_groups > 0 and list(range(gm.n_groups)) in runs)
    return out


@pytest.fixture(scope="module")
def mapped(searcher):
    backend = searcher.backend()
    out = []
    for text in QUERIES:
        plan = build_plan(parse_query(text), searcher.analyzer, backend)
        terms = query_terms(plan)
        codes = {t: i for i, t in enumerate(terms)}
        gm = GroupMap([[codes[s] for s, _ in g.stems] for g in plan.groups],
                      idf_of_groups(plan, backend), len(terms))
        handles = np.arange(min(backend.n_docs, 400), dtype=np.int64)
        fields = [Mapped.gather(gm, backend.sequences(handles, f, terms))
                  for f in ("title", "abstract", "keywords")]
        out.append((text, gm, fields, len(handles)))
    return out


def test_idf_share_is_each_candidates_words(mapped):
    for text, gm, (title, abstract, keywords), n in mapped:
        for fields in ([title], [title, abstract, keywords], [keywords]):
            assert np.allclose(idf_share(gm, fields, n), _reference_share(gm, fields, n), atol=1e-12), text


def test_keyword_match_is_a_keyword_that_is_the_query(mapped, searcher):
    matched = 0
    for text, gm, (_, _, keywords), n in mapped:
        got = keyword_match(gm, keywords, n)
        assert got.tolist() == _reference_keyword(gm, keywords, n).tolist(), text
        matched += int(got.sum())
    assert matched > 0  # the slice's keywords hold some of the queries


def test_keyword_runs_end_at_separators_and_candidates():
    gm = GroupMap([[0], [1]], [1.0, 1.0], 2)
    # candidate 0: [x, 0 1] no; candidate 1: [0 1 | 1]: yes; candidate 2: [0] then candidate 3: [1]: no
    groups = np.array([-1, 0, 1, 0, 1, SEPARATOR, 1, 0, 1, SEPARATOR, SEPARATOR, 0, 1], dtype=np.int32)
    owner = np.array([0, 0, 0, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4])
    keywords = Mapped(groups, owner, np.bincount(owner, minlength=5))
    assert keyword_match(gm, keywords, 5).tolist() == [0.0, 1.0, 0.0, 0.0, 1.0]
    assert keyword_match(gm, keywords, 5).tolist() == _reference_keyword(gm, keywords, 5).tolist()


def _reference_pairs(gm: GroupMap, m: Mapped, n: int) -> np.ndarray:
    """Distinct consecutive query word pairs per candidate, one candidate at a time."""
    out = np.zeros(n)
    for j in range(n):
        seq = m.groups[m.owner == j].tolist()
        out[j] = len({a for a, b in zip(seq, seq[1:]) if a >= 0 and b == a + 1})
    return out


def test_adjacent_pairs_count_each_pair_once_per_candidate(mapped):
    """The pairs flagged in a candidates x words table (issue 33, lat33) count what a pass per
    candidate counts, a pair written twice once."""
    found = 0
    for text, gm, (title, abstract, _), n in mapped:
        for m in (title, abstract):
            got = adjacent_pairs(gm, m, n)
            assert got.dtype == np.float64 and got.tolist() == _reference_pairs(gm, m, n).tolist(), text
            found += int(got.sum())
    assert found > 0
    gm = GroupMap([[0], [1], [2]], [1.0, 1.0, 1.0], 3)
    groups = np.array([0, 1, 0, 1, 2, 0, 1, -1, 1, 2], dtype=np.int32)  # (0,1) twice, (1,2); then (0,1), (1,2)
    owner = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    assert adjacent_pairs(gm, Mapped(groups, owner, np.bincount(owner, minlength=3)), 3).tolist() == [2.0, 2.0, 0.0]

