"""NeurIPS OpenReviewData crawls: comma-separated `paper_id,title,link,keywords,abstract`.

The 2022 repo has one `papers.csv` (accepted papers plus rejected ones that opted in; the
decisions are in the Paper Copilot venue file of the same year, so `ratings.csv` adds
nothing but review scores), the 2023 repo one file per presentation type, which is the
status. Abstracts may span lines inside quotes. No authors: those come by forum id from
the Paper Copilot files. `ratings.csv` (`paper_id,0..5,decision`) is read for its scores and
decision, titled by id from `papers.csv` beside it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_table, require_columns
from paperfind.ingest.reviews import read_columns
from paperfind.model import BadRecord, Record

_FOLDER = re.compile(r"^neurips(?P<year>\d{4})-openreviewdata$")
_STATUS_BY_FILE = {"oral": "Oral", "spotlight": "Spotlight", "poster": "Poster", "papers": ""}


def _year(path: Path) -> int | None:
    match = _FOLDER.match(path.parent.name)
    return int(match["year"]) if match else None


def _stem(path: Path) -> str:
    return path.name.split(".")[0]


def matches(path: Path) -> bool:
    return _year(path) is not None and _stem(path) in _STATUS_BY_FILE and ".csv" in path.name


def is_ratings(path: Path) -> bool:
    return _year(path) is not None and _stem(path) == "ratings"


def read_ratings(path: Path) -> Iterator[Record | BadRecord]:
    """The scores and decision per forum id (Accept, Reject; "Unknown" says nothing)."""
    year = _year(path)
    papers = path.with_name(path.name.replace("ratings", "papers", 1))
    if year is None or not papers.is_file():
        raise SourceError(str(path), f"needs {papers.name} beside it for the titles")
    columns, rows = read_table(papers, ",")
    col = require_columns(papers, columns, ("paper_id", "title"))
    titles = {r[col["paper_id"]].strip(): r[col["title"]] for r in rows if len(r) > col["title"]}
    columns, rows = read_table(path, ",")
    col = require_columns(path, columns, ("paper_id", "decision"))
    for index, row in enumerate(rows):
        forum_id = row[col["paper_id"]].strip() if len(row) > col["paper_id"] else ""
        decision = row[col["decision"]].strip() if len(row) > col["decision"] else ""
        if forum_id not in titles:
            yield BadRecord(str(path), index, f"paper_id {forum_id!r} is not in {papers.name}")
            continue
        status = "" if decision.casefold() in ("", "unknown") else build.status_from_venue(
            decision, decided=True)
        scores = [row[i] for name, i in sorted(col.items(), key=lambda c: c[1])
                  if name.isdigit() and i < len(row)]
        yield build.new_record(path, index, "nips", year, titles[forum_id], source_id=forum_id,
                               forum_id=forum_id, status=status,
                               links=build.openreview_links(forum_id),
                               reviews=read_columns("nips", year, scores, status))


def read(path: Path) -> Iterator[Record | BadRecord]:
    year = _year(path)
    if year is None:
        raise SourceError(str(path), "not in a neurips<year>-openreviewdata folder")
    status = _STATUS_BY_FILE.get(_stem(path), "")
    columns, rows = read_table(path, ",")
    col = require_columns(path, columns, ("paper_id", "title", "abstract"))
    for index, row in enumerate(rows):
        cell = {name: row[i] if i < len(row) else "" for name, i in col.items()}
        yield build.crawled_paper(path, index, "nips", year, cell, status=status)
