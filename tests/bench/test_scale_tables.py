"""bench.scale's tables with a baseline served from a database built beforehand (--baseline-db)."""

from __future__ import annotations

from pathlib import Path

from bench.scale import KINDS, MODES, tables


def _times(ms: float) -> dict:
    return {f"{kind}|{mode}": {"server": [ms] * 10, "http": [ms + 1] * 10} for kind in KINDS for mode in MODES}


def test_a_served_only_baseline_row_gives_the_ratios_and_no_build_row():
    served = {"rss": {"rss": 2048.0, "peak": 2048.0}}
    baseline = {"label": "bundled", "size": None, "build": None, "tree_id": "abc",
                "served": {**served, "times": _times(9.0)}, "load": (1.0, 1.0, 1.0)}
    build = {"papers": 1_000_000, "ingest_and_index_s": 3000.0, "disk": {"database": 2**33, "index": 2**32,
             "vectors": 2**31}, "peak_mb": {"after index": {"self": 9000.0}},
             "timings": {"corpus read": 10.0, "store writes": 900.0, "people": 300.0, "index": 1500.0}}
    million = {"label": "1m", "size": 1_000_000, "build": build, "tree_id": "abc",
               "served": {**served, "times": _times(19.0)}, "load": (2.0, 2.0, 2.0)}
    text = tables([baseline, million], None, Path("."))
    build_rows = [line for line in text.split("Serving:")[0].splitlines() if line.startswith("| 1,000,000")]
    assert len(build_rows) == 1 and "(-)" in build_rows[0]  # no built baseline: no build ratio
    assert "| bundled (served from a built copy) | abc | 2.00 (2.00) | title with typos |" in text
    assert "| 20.0 (2.00) |" in text  # the 1M row's HTTP p95 against the served baseline's
