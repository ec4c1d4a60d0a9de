"""bench/ is a package: every script runs as `python -m bench.NAME` and imports its shared parts
from the package, with no edits of sys.path."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
MODULES = sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", MODULES)
def test_every_bench_module_imports_from_the_package(name):
    assert "sys.path" not in (BENCH / f"{name}.py").read_text("utf-8")
    importlib.import_module(f"bench.{name}")


def test_a_bench_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "bench.parity", "--help"], cwd=BENCH.parent,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--base" in done.stdout and "--corpus" in done.stdout
