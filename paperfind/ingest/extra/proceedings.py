"""NeurIPS proceedings pages scraped into CSV: `neurips-proceedings-thuinanutshell/` and
`neurips2019-msalvaris/`.

* `neurips_abstract_<year>.csv`: `year, proceeding_link, paper_link, title, authors,
  abstract`, RFC-quoted, abstracts with newlines inside the quotes. `paper_link` ends in
  `/hash/<32 hex>-Abstract.html`, the proceedings id, which airas's NeurIPS 2020 file uses
  too: for 2019 and 2020 it is the paper's key. In 2021 the papers already have their
  OpenReview forum ids (the Paper Copilot list), so that year is joined by title.
* `neurips2019.csv` (msalvaris): an unnamed pandas index column, authors joined by bare
  commas, the old `papers.nips.cc/paper/<n>-<slug>` page and the PDF link. Its
  `event_type` knows poster and oral but not spotlight (164 spotlights read "poster"), so
  it is not taken as a status. Joined by title.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_cells
from paperfind.model import BadRecord, Record
from paperfind.text.names import split_authors

_PROCEEDINGS = re.compile(r"^neurips_abstract_(?P<year>\d{4})\.csv(\.gz)?$")
# the proceedings id in a paper's page link, `.../hash/<32 hex>-Abstract.html`
PROCEEDINGS_HASH = re.compile(r"/hash/(?P<hash>[0-9a-f]{32})-")
KEYED_YEARS = (2019, 2020)  # no OpenReview ids for these years: the proceedings hash is the key


def _proceedings_year(path: Path) -> int | None:
    match = _PROCEEDINGS.match(path.name) if path.parent.name == "neurips-proceedings-thuinanutshell" else None
    return int(match["year"]) if match else None


def matches_keyed(path: Path) -> bool:
    return _proceedings_year(path) in KEYED_YEARS


def matches_titled(path: Path) -> bool:
    year = _proceedings_year(path)
    return year is not None and year not in KEYED_YEARS


def matches_msalvaris(path: Path) -> bool:
    return path.parent.name == "neurips2019-msalvaris" and path.name.startswith("neurips2019.csv")


def read_proceedings(path: Path) -> Iterator[Record | BadRecord]:
    year = _proceedings_year(path)
    if year is None:
        raise SourceError(str(path), "expected a name like neurips_abstract_2019.csv.gz")
    for item in read_cells(path, ",", ("paper_link", "title", "authors", "abstract")):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, cell = item
        link = cell["paper_link"].strip()
        found = PROCEEDINGS_HASH.search(link)
        yield build.new_record(
            path, index, "nips", year, cell["title"], source_id=found["hash"] if found else "",
            abstract=build.text(cell["abstract"]),
            authors=build.plain_authors(split_authors(cell["authors"])),
            links={"site": link} if link.startswith("https://") else {})


def read_msalvaris(path: Path) -> Iterator[Record | BadRecord]:
    for item in read_cells(path, ",", ("title", "authors", "doc_link", "abstract", "pdf_link")):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, cell = item
        links = {name: cell[field].strip() for name, field in (("site", "doc_link"), ("pdf", "pdf_link"))
                 if cell[field].strip().startswith(("https://", "http://"))}
        yield build.new_record(
            path, index, "nips", 2019, cell["title"], source_id="",
            abstract=build.text(cell["abstract"]),
            authors=build.plain_authors(cell["authors"].split(",")), links=links)
