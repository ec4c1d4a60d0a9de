"""Ingest test helpers: raw records of the real paperlists files, picked by id."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from tests.realdata import load_paperlist


@pytest.fixture(scope="session")
def raw_record() -> Callable[..., dict[str, Any]]:
    """`raw_record("3dv", 2025, "05T81ScPFb")`: the raw JSON object with that id (or other field)."""
    cache: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def find(venue: str, year: int, ident: str, field: str = "id") -> dict[str, Any]:
        if (venue, year) not in cache:
            cache[venue, year] = load_paperlist(venue, year)
        return next(r for r in cache[venue, year] if r.get(field) == ident)

    return find
