"""bench.lexical_engine's profile wraps the searcher's own functions by name."""

from __future__ import annotations

import importlib

from bench.lexical_engine import PHASES


def test_every_phase_names_a_function_the_search_calls_there() -> None:
    """A phase is timed by replacing `module[.owner].name`: a function moved to another module
    (second-stage features went to search/row_features) left --phases failing at its start."""
    for module, owner, name, label in PHASES:
        holder = importlib.import_module(module)
        holder = getattr(holder, owner) if owner else holder
        assert callable(getattr(holder, name, None)), (module, owner, name, label)
