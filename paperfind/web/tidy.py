"""What a server does once an answer is written, done once its thread has slept: a client on
the same machine reads the answer first.

After an answer, the server frees what its search worked with (the plan, the candidates, the
pool, the cards' drafts, the counts; `Searcher.search`'s `leftovers`) and runs the collector's
pass when one is due (paperfind.web.collector). Done at once after the answer's write, that work
was inside the client's wait, not beside it: the write wakes the reading client with the
kernel's hint that the writer sleeps next (a synchronous wake-up), so a client on the same
machine (a reverse proxy, the benches) is queued on the server's own core and runs when the
server's thread sleeps. A served process's requests showed it (bench/RESULTS.md, issue 33,
http33): the client's read ended after that work in 97-100% of the answers, each ~0.4 ms after
it, and a request whose work after the write took longer (a collector pass, or the fused pool
of a TL;DR or Chinese query in the default mode: 0.2 ms against lexical's 0.1) was read 0.1-0.4
ms later. That was most of why the default mode's HTTP layer was larger than the lexical mode's.

So the work is scheduled `delay_ms` later on the event loop: the thread sleeps in the loop's
poll meanwhile and the client reads its answer. It still runs between requests, never inside a
local search (which runs in the loop's thread), and before the next request's handler whenever
that request comes later than the delay.
"""

from __future__ import annotations

import asyncio

from paperfind.settings import CollectorSettings
from paperfind.web.collector import collect_between_answers


def tidy_after_answer(settings: CollectorSettings | None, leftovers: list | None = None) -> None:
    """Free `leftovers` (clear the list) and run the collector's pass between answers, both
    `settings.tidy_delay_ms` from now on the running loop (at once for 0). Without `settings`
    (an app without a `Paperfind`) the leftovers are freed at once and no pass is run.

    uvloop's timers count whole milliseconds: a delay under 1 ms runs at the loop's next turn,
    before it sleeps, which is the same as at once."""
    if settings is None:
        if leftovers is not None:
            leftovers.clear()
        return

    def tidy() -> None:
        if leftovers is not None:
            leftovers.clear()
        collect_between_answers(settings.between_answers)

    if settings.tidy_delay_ms <= 0:
        tidy()
    else:
        asyncio.get_running_loop().call_later(settings.tidy_delay_ms / 1000, tidy)
