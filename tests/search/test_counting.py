"""A server counts a broad match set's facets, trend and total in a child process while it ranks
(paperfind.search.counting): the same answers as counted in process, on the tests' real slice
through the real index build; a child that dies, is busy or is switched off costs a search
nothing but the in-process count."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

from paperfind.index.manager import build_index
from paperfind.search.counting import CountingProcess, CountsOrder, TrendSpan, cpus_beside
from paperfind.search.engine import PAPERS_COUNTED, open_searcher
from paperfind.search.filters import Filters
from paperfind.search.response import SearchRequest
from paperfind.search.settings import SearchSettings

QUERIES = ["learning", "reinforcement learning", "bandits regret", "robot", "neural networks",
           "policy gradient", "online learning with experts", "图神经网络", "author:hazan"]
SHAPES = [dict(limit=20, mode="lexical"), dict(limit=10, offset=20, mode="lexical"), dict(limit=20),
          dict(limit=20, mode="lexical", filters=Filters(year_from=2018)),
          dict(limit=20, mode="lexical", include=frozenset({"facets"})),
          dict(limit=20, mode="lexical", include=frozenset({"trend"}))]


def _json(response) -> str:
    answer = dataclasses.asdict(response)
    answer.pop("took_ms")
    return json.dumps(answer, ensure_ascii=False)


def _served(root: Path, store, **settings):
    """A searcher warmed as a server's is, its counting process ready; every match set handed."""
    searcher = open_searcher(root, store, SearchSettings(result_cache=0, counting_min_rows=1, **settings))
    searcher.warm_for_serving()
    process = searcher.backend().counting
    if process is not None:
        assert process.wait_ready(60)
    return searcher


@pytest.fixture
def served(index_copy):
    store, root = index_copy
    searcher = _served(root, store)
    yield searcher
    searcher.live.close()


@pytest.fixture
def in_process(index_copy):
    store, root = index_copy
    return open_searcher(root, store, SearchSettings(result_cache=0))


def test_the_childs_counts_answer_as_those_counted_in_process(served, in_process):
    process = served.backend().counting
    for q in QUERIES:
        for shape in SHAPES:
            request = SearchRequest(q=q, **shape)
            assert _json(served.search(request)) == _json(in_process.search(request)), (q, shape)
    assert process.alive
    assert process.answers >= len(QUERIES) * 3  # the lexical pages' counts were the child's


def test_a_killed_child_leaves_the_search_to_count_in_process(served, in_process):
    process = served.backend().counting
    request = SearchRequest(q="reinforcement learning", limit=20, mode="lexical")
    served.search(request)
    assert process.answers == 1
    process.proc.kill()
    process.proc.wait()
    assert _json(served.search(request)) == _json(in_process.search(request))
    assert not process.alive and process.answers == 1
    assert _json(served.search(request)) == _json(in_process.search(request))  # and from then on


def test_a_search_does_not_wait_for_a_child_busy_with_another(served, in_process):
    process = served.backend().counting
    order = CountsOrder(PAPERS_COUNTED, TrendSpan(None, None, 6), True, True)
    rows = np.arange(served.backend().n_docs, dtype=np.int64)
    busy = process.ahead(rows, order.key(("another search",)), order.papers, order.span, True, True)
    assert busy is not None  # the child now counts another search's matches
    request = SearchRequest(q="learning", limit=20, mode="lexical")
    assert _json(served.search(request)) == _json(in_process.search(request))
    assert process.answers == 0  # counted in process, without waiting
    busy.drop()
    assert _json(served.search(request)) == _json(in_process.search(request))
    assert process.answers == 2  # the dropped one, then this search's


def test_the_switch_and_a_cli_search_start_no_child(index_copy):
    store, root = index_copy
    off = _served(root, store, counting_process=False)
    assert off.backend().counting is None
    cli = open_searcher(root, store, SearchSettings(result_cache=0))
    cli.search(SearchRequest(q="learning", limit=20, mode="lexical"))
    assert cli.backend().counting is None


def test_a_new_index_generation_is_counted_by_a_child_of_its_own(index_copy, in_process):
    store, root = index_copy
    served = _served(root, store)
    try:
        first = served.backend()
        old = first.counting
        build_index(store, root)  # a rebuild: the next search opens the new version
        request = SearchRequest(q="learning", limit=20, mode="lexical")
        served.search(request)
        backend = served.backend()
        assert backend is not first and first.counting is None
        assert old.proc.poll() is not None  # the old version's child has exited
        assert backend.counting is not None and backend.counting.index_path == backend.index.path
        assert backend.counting.wait_ready(60)
        assert _json(served.search(request)) == _json(in_process.search(request))
        assert backend.counting.answers >= 1
    finally:
        served.live.close()
    assert backend.counting is None


def test_the_child_is_let_run_on_every_cpu_but_the_searchs():
    assert cpus_beside(frozenset({0, 1}), 0) == frozenset({1})
    assert cpus_beside(frozenset({0, 1, 2, 3}), 2) == frozenset({0, 1, 3})
    assert cpus_beside(frozenset({0}), 0) is None  # one CPU: nothing is pinned
    assert cpus_beside(frozenset({0, 1}), None) is None  # the search's CPU unknown
    assert cpus_beside(frozenset({2, 3}), 0) is None  # a CPU outside the server's set


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: the child keeps it")
def test_after_a_hand_off_the_childs_cpus_are_the_servers_but_the_searchs(served):
    process = served.backend().counting
    allowed = os.sched_getaffinity(0)
    assert os.sched_getaffinity(process.proc.pid) == allowed
    served.search(SearchRequest(q="reinforcement learning", limit=20, mode="lexical"))
    assert process.answers == 1
    handing = process._kept_off  # the CPU the search handed its match set from
    assert handing in allowed
    assert os.sched_getaffinity(process.proc.pid) == allowed - {handing}


def test_the_rows_file_has_no_name_once_the_child_is_started(index_copy):
    store, root = index_copy
    searcher = open_searcher(root, store, SearchSettings(result_cache=0))
    backend = searcher.backend()
    process = CountingProcess(backend.index.path, backend.n_docs, min_rows=1)
    try:
        assert not os.path.exists(process._rows_path)  # a server killed now leaves nothing behind
        assert process.wait_ready(60)  # the child counts from the file it inherited
        order = CountsOrder(PAPERS_COUNTED, TrendSpan(None, None, 6), True, True)
        rows = np.arange(backend.n_docs, dtype=np.int64)
        ahead = process.ahead(rows, order.key(("all",)), order.papers, order.span, True, True)
        assert ahead is not None and ahead.take(order.key(("all",)), rows[:0]) is not None
    finally:
        process.close()
