"""What the data holds per venue-year (abstracts, authors, affiliations) is counted with the index
build and stored, so a venue page reads it: counting it is a pass over every paper (0.6-1 s on
the bundled corpus), which the first venue page of every connection used to pay."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperfind.core import Paperfind
from paperfind.settings import Settings
from paperfind.store import Store
from tests.realdata import load_paperlist, pick, write_slice

COUNTING = "GROUP BY p.venue, p.year"  # the one pass that counts every paper's fields


@pytest.fixture()
def built(tmp_path: Path) -> Paperfind:
    """A database ingested from two real venue-years, with its index built as `ingest` does."""
    for venue, year in (("3dv", 2025), ("colm", 2024)):
        write_slice(tmp_path / "data", venue, year, pick(load_paperlist(venue, year), set(), extra=20))
    app = Paperfind(Settings(db_path=tmp_path / "p.db", semantic=False))
    assert not app.ingest([tmp_path / "data"], progress=False).failed
    return app


def traced(store: Store) -> list[str]:
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    return statements


def test_a_venue_page_reads_the_coverage_counted_with_the_index(built: Paperfind) -> None:
    venues = []
    for _ in range(2):  # two new connections, as two web worker threads open them
        store = Store(built.settings.db_path)
        statements = traced(store)
        venue = store.venue("colm", 2024)
        institution_slug = next(iter(store.institution_names()), None)
        if institution_slug:
            store.institution(institution_slug)
        store.stats()
        store.close()
        assert not [s for s in statements if COUNTING in s], "counted on the request path"
        venues.append(venue)
    counted = built.store().store_coverage()  # counted again now, to compare
    for venue in venues:
        assert venue["coverage"]["papers"] == counted["colm", 2024]["papers"] == venue["versions"]
        assert venue["coverage"]["with_abstract"] == counted["colm", 2024]["with_abstract"] > 0


def test_a_data_change_is_counted_once_and_stored(built: Paperfind, tmp_path: Path) -> None:
    """A store whose counts are older than its data (an ingest without an index build, or a
    database from before they were stored) counts once; the next connection reads them."""
    write_slice(tmp_path / "more", "corl", 2022, pick(load_paperlist("corl", 2022), set(), extra=5))
    report = built.ingest([tmp_path / "more"], progress=False, build_index=False)
    assert report.changed
    first = Store(built.settings.db_path)
    statements = traced(first)
    assert first.venue("corl", 2022)["coverage"]["papers"] == 5
    assert [s for s in statements if COUNTING in s]
    first.close()
    second = Store(built.settings.db_path)
    statements = traced(second)
    assert second.venue("corl", 2022)["coverage"]["papers"] == 5
    assert not [s for s in statements if COUNTING in s]
    second.close()


def test_a_page_does_not_wait_for_a_writer_to_store_the_counts(built: Paperfind, tmp_path: Path) -> None:
    """Counts older than the data are counted for the page and stored only when no writer holds
    the database: a venue page during an ingest answers instead of queueing for its lock."""
    import sqlite3

    write_slice(tmp_path / "more", "corl", 2022, pick(load_paperlist("corl", 2022), set(), extra=5))
    assert built.ingest([tmp_path / "more"], progress=False, build_index=False).changed
    writer = sqlite3.connect(built.settings.db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # an ingest writing its next file
    try:
        reader = Store(built.settings.db_path)
        assert reader.venue("corl", 2022)["coverage"]["papers"] == 5  # counted, not stored
        reader.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    later = Store(built.settings.db_path)
    statements = traced(later)
    assert later.venue("corl", 2022)["coverage"]["papers"] == 5
    assert [s for s in statements if COUNTING in s]  # the earlier page could not store them
    later.close()
    stored = Store(built.settings.db_path)
    statements = traced(stored)
    assert stored.venue("corl", 2022)["coverage"]["papers"] == 5
    assert not [s for s in statements if COUNTING in s]  # stored once no writer held it
    stored.close()
