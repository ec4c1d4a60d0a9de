"""Python's cyclic garbage collector in a serving process: its passes kept out of the requests.

A server's start-up loads what lives as long as the process (index tables, dictionaries, the
model) and freezes it: the collector's passes never walk it again. What a search leaves behind
(its answer in the response cache, the words it read into memos) is walked by the young
generation's passes, and Python starts one when the objects allocated since the last pass pass a
threshold, inside whichever request allocates the last one. At the serving threshold (20,000)
a young pass took 2-7 ms and the middle generation's, every eleventh, 40-43 ms, each falling on
one search of a fresh server (bench/RESULTS.md, issue 33, tail33). So a server collects itself
after an answer has been sent, as soon as the objects pending pass a lower level
(`collect_between_answers`, from the portal's middleware; `Settings.collector`): passes of a
tenth of the size, none in a request. Python's own threshold stays as the backstop (a request
that allocates more than it on its own still collects inside it).

Which generation such a pass collects is Python's own choice: the pass is the one Python would
start at its threshold, started now, so the middle and the oldest generations are collected after
as many passes as before, and the oldest only when Python's rule for it (a quarter more
long-lived objects than at its last pass) says so.
"""

from __future__ import annotations

import gc


class _Due:
    """An instance's allocation is the moment Python checks its young threshold."""


def settle_after_start_up(young_threshold: int) -> None:
    """What the start-up loaded leaves the collector's generations (collected once, then frozen:
    a full pass took 50+ ms over the warm search objects alone), and the young generation is
    collected every `young_threshold` allocations (a search's objects die with its answer)."""
    gc.collect()
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(young_threshold, *threshold[1:])


def collect_between_answers(level: int) -> bool:
    """When `level` young objects or more are pending (and `level` is not 0, and the collector is
    on), run the pass Python would run at its threshold now, between two requests: its young
    threshold lowered to 1 for one allocation, so Python itself chooses the generation (with its
    rule for the oldest, which `gc.collect` would not apply), then restored. Whether it ran.
    CPython 3.11 runs the pass inside that allocation; a Python that only schedules it (3.12's
    eval breaker) would find the threshold restored: tests/web/test_collector.py checks that a
    pass ran."""
    if level <= 0 or not gc.isenabled() or gc.get_count()[0] < level:
        return False
    threshold = gc.get_threshold()
    gc.set_threshold(1, *threshold[1:])
    try:
        _Due()
    finally:
        gc.set_threshold(*threshold)
    return True
