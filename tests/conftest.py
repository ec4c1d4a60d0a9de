"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realdata import DATA, PAPERLISTS


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not PAPERLISTS.is_dir():
        pytest.fail(f"the real data is expected at {DATA} (../shared/data beside the repo)")
    return DATA
