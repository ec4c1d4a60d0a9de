"""A searcher scoring with the compiled kernel answers as one scoring with numpy's indexing:
the first 100 keys of real queries of every kind, on the tests' slice of the real data."""

from __future__ import annotations

import pytest

from paperfind.search.engine import open_searcher
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings


@pytest.fixture(scope="module")
def two_searchers(slice_store):
    store, index_root = slice_store
    plain = open_searcher(index_root, store, SearchSettings(result_cache=0, compiled_kernel=False))
    fast = open_searcher(index_root, store, SearchSettings(result_cache=0))
    plain.live.load_kernel()  # switched off by its settings: stays numpy's
    fast.live.load_kernel()
    return plain, fast


def real_queries(store) -> list[str]:
    """Titles whole, cut and misspelt, a title's first words, people's names, a question-like
    sentence of an abstract, and an OR: each kind the planner reads its own way."""
    rows = store.conn.execute("SELECT title, abstract FROM papers ORDER BY key LIMIT 400").fetchall()
    out = []
    for i, (title, abstract) in enumerate(rows[::10]):
        words = title.split()
        out += [title, " ".join(words[:3]), title.replace("e", "a", 1), " ".join((abstract or "").split()[:14])]
        if i % 4 == 0:
            out.append(f"{words[0]} OR {words[-1]}")
    names = [n for (n,) in store.conn.execute("SELECT name FROM authors ORDER BY id LIMIT 300")][::15]
    return [q for q in out + names if q.strip()]


def test_first_100_keys_are_the_same(two_searchers, slice_store):
    plain, fast = two_searchers
    queries = real_queries(slice_store[0])
    assert len(queries) >= 150
    for q in queries:
        request = SearchRequest(q=q, limit=100, mode="lexical")
        a, b = plain.search(request), fast.search(request)
        assert [r["key"] for r in a.results] == [r["key"] for r in b.results], q
        assert a.total == b.total and a.facets == b.facets, q
    assert fast.backend().index.lexical.adder.compiled
    assert not plain.backend().index.lexical.adder.compiled
