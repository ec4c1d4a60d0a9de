"""`python -m bench` lists every bench of bench/, and only those: a new script is either a bench
of the index (bench/__init__.py BENCHES) or a shared part (HELPERS)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench import BENCHES, HELPERS

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = {p.stem for p in BENCH.glob("*.py")} - {"__init__", "__main__"}


def test_every_script_is_a_listed_bench_or_a_helper_and_every_listed_one_exists():
    names = [bench.name for bench in BENCHES]
    assert len(names) == len(set(names))
    assert not set(names) & set(HELPERS)
    assert SCRIPTS - set(HELPERS) == set(names)
    assert set(HELPERS) <= SCRIPTS


def test_every_bench_says_what_it_guards_how_long_and_how_to_run_it():
    for bench in BENCHES:
        assert bench.promise and bench.takes, bench.name
        assert f"-m bench.{bench.name}" in bench.command
        assert '__name__ == "__main__"' in (BENCH / f"{bench.name}.py").read_text("utf-8"), bench.name


def test_python_m_bench_prints_the_index_and_refuses_an_unknown_name():
    listed = subprocess.run([sys.executable, "-m", "bench"], cwd=BENCH.parent, capture_output=True,
                            text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    for bench in BENCHES:
        assert f"\n{bench.name} " in listed.stdout and bench.command in listed.stdout
    unknown = subprocess.run([sys.executable, "-m", "bench", "fusion_sweep"], cwd=BENCH.parent,
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "no bench named 'fusion_sweep'" in unknown.stderr


def test_python_m_bench_name_runs_that_bench():
    done = subprocess.run([sys.executable, "-m", "bench", "parity", "--help"], cwd=BENCH.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--base" in done.stdout
