"""What a server does once an answer is written, done after the write, not before it.

After an answer, the server frees what its search worked with (the plan, the candidates, the
pool, the cards' drafts, the counts; `Searcher.search`'s `leftovers`) and runs the collector's
pass when one is due (paperfind.web.collector). Both were done in the request's coroutine right
after its `send` of the body, meant as after the answer had left. Under uvloop (what uvicorn
runs when it is installed, as here) they were before it: a transport's `write` only queues the
bytes, and the loop writes them to the socket when the coroutine's step returns to it, so
everything the coroutine did after `send` was inside the client's wait. In a served process
(bench/RESULTS.md, issue 33, http33) that work was 0.1 ms of a lexical answer and 0.2 ms of a
TL;DR or Chinese one in the default mode (its fused pool is the larger to free), and a request
whose work after `send` was longer (a collector pass) was read 0.1-0.4 ms later: most of why
the default mode's HTTP layer was larger than the lexical mode's. A server answering 60 KB after
5 ms of work, with 0.2 ms more work in the coroutine after `send`: the client waited 0.24 ms
more; with the same work in a callback the loop runs next (`call_soon`) or 1 ms later, 0.05.

So the work is a callback the loop runs next: after the loop has written the answer, and still
before it reads the next request, never inside a local search (which runs in the loop's thread).
"""

from __future__ import annotations

import asyncio

from paperfind.settings import CollectorSettings
from paperfind.web.collector import collect_between_answers


def tidy_after_answer(settings: CollectorSettings | None, leftovers: list | None = None) -> None:
    """Free `leftovers` (clear the list) and run the collector's pass between answers
    (`settings.between_answers`; none without `settings`, an app without a `Paperfind`), both
    in a callback the running loop makes next, after it has written what was sent."""
    def tidy() -> None:
        if leftovers is not None:
            leftovers.clear()
        if settings is not None:
            collect_between_answers(settings.between_answers)

    asyncio.get_running_loop().call_soon(tidy)
