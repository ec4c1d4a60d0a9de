"""Fixtures the benches' tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def colt_two_years(tmp_path_factory):
    """A lexical Paperfind over every COLT 2018 and 2019 paper (the repo's slices): the expert
    benches' tests need a year of earlier work before the year a query is asked from."""
    from paperfind.core import Paperfind
    from paperfind.settings import Settings
    from tests.realdata import load_paperlist, write_slice

    root = tmp_path_factory.mktemp("colt-two-years")
    for year in (2018, 2019):
        write_slice(root / "data", "colt", year, load_paperlist("colt", year))
    app = Paperfind(Settings(db_path=root / "p.db", semantic=False))
    app.ingest([root / "data"], progress=False)
    return app
