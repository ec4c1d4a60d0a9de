"""The machine's speed probe (bench/machine.py) and how a bench names the rows of a slow spell."""

from __future__ import annotations

from bench.machine import SLOW_SPELL, Probe, slow_rows, summary


def test_the_probe_times_its_work_and_keeps_the_fastest_run() -> None:
    probe = Probe()
    runs = [probe.once_ms() for _ in range(3)]
    assert all(ms > 0 for ms in runs)
    assert probe.ms(repeats=5) <= max(runs) * 3  # the fastest of five, not a sum


def test_rows_at_the_slow_spell_ratio_are_named() -> None:
    probes = {"typo lexical": 5.0, "TL;DR lexical": 5.0 * SLOW_SPELL, "Chinese lexical": 5.5}
    assert slow_rows(probes) == ["TL;DR lexical"]
    line = summary(probes)
    assert "median 5.50 ms, 5.00-5.75" in line and "slow spell): TL;DR lexical." in line
    assert "slow spell" not in summary({"a": 5.0, "b": 5.2})
    assert summary({}) == "" and slow_rows({}) == []
