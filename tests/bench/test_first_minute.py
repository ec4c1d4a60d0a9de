"""bench/first_minute.py's table of several runs: medians per step, one line a run with who went
first, and the ratio and the 60 s count taken from the runs themselves."""

from __future__ import annotations

from bench.first_minute import median_result, render


def _start(total: float, commit: str, place: int, read: float) -> dict:
    return {"clone": 0.5, "parts": {"corpus read": read}, "commit": commit, "papers": 105548,
            "total": total, "venv+pip": 7.0, "build": total - 8.0, "cpu": 70.0, "place": place}


def test_steps_are_medians_and_papers_stay_a_count():
    runs = [_start(41.0, "a1", 1, 8.0), _start(50.0, "a1", 2, 9.0), _start(44.0, "a1", 1, 7.0)]
    median = median_result(runs)
    assert median["total"] == 44.0 and median["parts"]["corpus read"] == 8.0
    assert median["papers"] == 105548 and "place" not in median


def test_each_run_says_who_went_first_and_the_summary_counts_the_branch():
    runs = [{"main": _start(60.0, "m", 1, 8.0), "fast": _start(45.0, "f", 2, 7.0) | {"steal": 0.4}},
            {"main": _start(66.0, "m", 2, 8.0), "fast": _start(61.0, "f", 1, 7.0)}]
    table = render(runs, "main", cold=True)
    assert "| 1 | 60.0 | 45.0 | 0.75 | main | –, 0.4 |" in table
    assert "| 2 | 66.0 | 61.0 | 0.92 | fast | –, – |" in table
    assert "Median ratio 0.84; fast answered within 60 s of the clone in 1 of 2 runs (slowest 61.0 s)." in table
    assert "| **clone → first answered query** | 63.0 | 53.0 |" in table
