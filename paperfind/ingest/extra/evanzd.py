"""The evanzd OpenReview crawls of ICLR 2021 (`iclr2021-evanzd/`) and ICLR 2022 (`-pr3/`).

`paperlist*.tsv`: `paper_id, title, link, keywords, abstract`, tab-separated with a header.
It must be read with quoting off: the crawler wrote raw `"` characters inside fields, and
replaced tabs and newlines by spaces, so a line is a record. No authors: those come by
forum id from the Paper Copilot list of the same year. `ratings.tsv`: the review scores and
the decision per forum id; "Unknown" is what the crawler saw for withdrawn papers.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterator

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_cells
from paperfind.ingest.reviews import read_columns
from paperfind.model import BadRecord, Record

_FOLDER = re.compile(r"^iclr(?P<year>\d{4})-evanzd(-pr\d+)?$")


def _year(path: Path) -> int | None:
    match = _FOLDER.match(path.parent.name)
    return int(match["year"]) if match else None


def matches_papers(path: Path) -> bool:
    return _year(path) is not None and path.name.startswith("paperlist") and ".tsv" in path.name


def matches_ratings(path: Path) -> bool:
    return _year(path) is not None and path.name.startswith("ratings") and ".tsv" in path.name


def read_papers(path: Path) -> Iterator[Record | BadRecord]:
    year = _year(path)
    if year is None:
        raise SourceError(str(path), "not in an iclr<year>-evanzd folder")
    for item in read_cells(path, "\t", ("paper_id", "title", "abstract"), csv.QUOTE_NONE):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, cell = item
        yield build.crawled_paper(path, index, "iclr", year, cell)


def read_ratings(path: Path) -> Iterator[Record | BadRecord]:
    """The scores and decision per forum id, titled from the paper list beside it."""
    year = _year(path)
    papers = next(iter(sorted(path.parent.glob("paperlist*.tsv*"))), None)
    if year is None or papers is None:
        raise SourceError(str(path), "needs the paperlist.tsv of its crawl beside it for the titles")
    titles = {cell["paper_id"].strip(): cell["title"] for cell in (
        item[1] for item in read_cells(papers, "\t", ("paper_id", "title"), csv.QUOTE_NONE)
        if not isinstance(item, BadRecord))}
    for item in read_cells(path, "\t", ("paper_id", "decision"), csv.QUOTE_NONE):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, cell = item
        forum_id = cell["paper_id"].strip()
        if forum_id not in titles:
            yield BadRecord(str(path), index, f"paper_id {forum_id!r} is not in {papers.name}")
            continue
        decision = cell["decision"].strip()
        status = "Withdraw" if decision.casefold() == "unknown" else normalize_status(decision)
        yield build.new_record(path, index, "iclr", year, titles[forum_id], source_id=forum_id,
                               forum_id=forum_id, status=status,
                               links=build.openreview_links(forum_id),
                               reviews=read_columns("iclr", year, _score_cells(cell), status))


def _score_cells(cell: dict[str, str]) -> list[str]:
    """The columns `0`, `1`, ... of a ratings row, one review each, in order."""
    return [cell[name] for name in sorted((n for n in cell if n.isdigit()), key=int)]
