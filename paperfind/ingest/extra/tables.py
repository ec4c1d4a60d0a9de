"""dotd/NeurIPS2024Scrape conference tables: headerless, tab-separated, named `.csv`.

The column order is the scraper's `fields` list of the commit the file came from: the
ICML 2024 table starts with the forum URL, the older ICLR 2024 table has no id column at
all (its only link is the pdf, whose hash is not the forum id), so that one can join other
sources only by title. A row with the wrong number of columns is reported, not guessed at.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_table
from paperfind.model import BadRecord, Record
from paperfind.text.names import split_authors

FOLDER = "dotd-openreview-tables"
_NAME = re.compile(r"^(?P<venue>[A-Za-z]+)_cc_(?P<year>\d{4})_Conference\.csv(\.gz)?$")
_VENUES = {"icml": "icml", "iclr": "iclr", "neurips": "nips", "nips": "nips"}

WITH_ID = ["id", "title", "authors", "keywords", "primary_area", "venue", "pdf",
           "supplementary_material", "TLDR", "spotlight", "abstract"]
WITHOUT_ID = ["title", "authors", "keywords", "primary_area", "venue", "pdf",
              "supplementary_material", "TLDR", "abstract"]


def venue_year(path: Path) -> tuple[str, int] | None:
    match = _NAME.match(path.name)
    if path.parent.name != FOLDER or not match:
        return None
    venue = _VENUES.get(match["venue"].lower())
    return (venue, int(match["year"])) if venue else None


def matches_with_id(path: Path) -> bool:
    """The ICML tables of the current scraper carry the forum URL first."""
    vy = venue_year(path)
    return vy is not None and vy[0] == "icml"


def matches_without_id(path: Path) -> bool:
    """The ICLR table here is the older 9-column layout without ids."""
    vy = venue_year(path)
    return vy is not None and vy[0] == "iclr"


def read_with_id(path: Path) -> Iterator[Record | BadRecord]:
    return _read(path, WITH_ID)


def read_without_id(path: Path) -> Iterator[Record | BadRecord]:
    return _read(path, WITHOUT_ID)


def _read(path: Path, columns: list[str]) -> Iterator[Record | BadRecord]:
    vy = venue_year(path)
    if vy is None:
        raise SourceError(str(path), f"not a dotd table name (expected e.g. ICML_cc_2024_Conference.csv.gz "
                                     f"in {FOLDER}/)")
    venue, year = vy
    _, rows = read_table(path, "\t", header=False, quoting=csv.QUOTE_NONE)
    if rows and all(len(r) != len(columns) for r in rows[:20]):
        raise SourceError(str(path), f"expected {len(columns)} tab-separated columns "
                                     f"({', '.join(columns)}), the first row has {len(rows[0])}")
    for index, row in enumerate(rows):
        if len(row) != len(columns):
            yield BadRecord(str(path), index, f"{len(row)} columns instead of {len(columns)}")
            continue
        cell = dict(zip(columns, row))
        forum_id = build.forum_id_from_url(cell.get("id", ""))
        if "id" in cell and not forum_id:
            yield BadRecord(str(path), index, f"column 'id' is not an OpenReview forum URL: "
                                              f"{cell['id'][:60]!r}")
            continue
        yield build.new_record(
            path, index, venue, year, cell["title"], source_id=forum_id, forum_id=forum_id,
            abstract=build.text(cell["abstract"]), tldr=build.text(cell["TLDR"]),
            authors=build.plain_authors(split_authors(cell["authors"])),
            keywords=build.split_keywords(cell["keywords"]),
            area=build.format_area(cell["primary_area"]),
            status=build.status_from_venue(cell["venue"], decided=True),
            links=build.openreview_links(forum_id, cell["pdf"]))
