"""How fast the machine runs at this moment: a fixed piece of work timed, printed beside a
bench's figures.

On this shared 2-core machine the same search takes 4 ms in one minute and 7 in the next, in
spells that the load average and the steal counter do not show, and a fixed workload slows in
the same spells (bench/RESULTS.md, gap36). A paired bench still compares its two sides within
one run; the probe says whether that run, or one kind of it, fell in a slow spell, so that an
absolute line ("p95 ≤ 10 ms on a quiet machine") is read against the machine's speed at the
time rather than against the load average.

The work is what a search is made of: a loop of Python bytecode (the query plan, the cards)
and a numpy gather over an array larger than the CPU's caches (postings, per-paper arrays).
"""

from __future__ import annotations

import time
from statistics import median

import numpy as np

_ROWS = 1 << 22  # 16 MB of float32: beyond the caches, as a corpus's per-paper arrays are
_PICKS = 1 << 18
SLOW_SPELL = 1.15  # a probe this much above the run's fastest marks its rows


class Probe:
    """One fixed workload, its arrays made once (so a probe times the work, not the allocation)."""

    def __init__(self, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.values = rng.random(_ROWS, dtype=np.float32)
        self.picks = rng.integers(0, _ROWS, _PICKS)

    def once_ms(self) -> float:
        started = time.perf_counter()
        total = 0
        for i in range(60_000):  # ~4 ms of bytecode on a fast spell
            total += i & 7
        self.values[self.picks].sum()  # 2-3 ms of random reads from memory (the most variable part)
        return (time.perf_counter() - started) * 1000

    def ms(self, repeats: int = 3) -> float:
        """The fastest of `repeats` runs: a probe of a few ms, so a single interruption does not
        count as a slow spell."""
        return min(self.once_ms() for _ in range(repeats))


def slow_rows(probes: dict[str, float]) -> list[str]:
    """The keys whose probe is `SLOW_SPELL` times the fastest of the run or more."""
    if not probes:
        return []
    fastest = min(probes.values())
    return [key for key, ms in probes.items() if ms >= SLOW_SPELL * fastest]


def summary(probes: dict[str, float]) -> str:
    """A line for a bench's footer: the probe's median and range in this run, and its slow rows."""
    if not probes:
        return ""
    values = list(probes.values())
    slow = slow_rows(probes)
    line = (f"Machine probe (bench/machine.py, a fixed Python + numpy workload, each row's median): "
            f"median {median(values):.2f} ms, {min(values):.2f}-{max(values):.2f}")
    if slow:
        line += f"; rows at ≥ {SLOW_SPELL:.2f}x the run's fastest (a slow spell): " + ", ".join(slow)
    return line + "."
