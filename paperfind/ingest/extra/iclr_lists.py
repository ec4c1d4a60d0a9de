"""ICLR submission lists without ids, joined by title: whitney-house CSV and euisuk Markdown.

* `iclr2025-whitney-house/papers.csv`: `Title,Authors,Affiliations,Decision` for every ICLR
  2025 submission. Authors are sorted alphabetically (so `authors_ordered=False`), and the
  affiliations are a `, `-joined set not aligned with the authors: they become the paper's
  institutions. A name containing a comma cannot be told from two names; a piece is only
  re-joined to the one before when it is a place qualifying a known institution
  ("University of Minnesota, Minneapolis"); "PESIT, Bangalore, India" stays three pieces. Decisions are OpenReview venue strings, taken
  after the decisions, so "Submitted to ICLR 2025" is a rejection.
* `vlm-paper-search-euisuk/<year>-iclr-formatted.md`: `## N. Title` blocks whose bold labels
  are shifted by one: `Authors` holds the primary area, `Affiliation` the ordered authors,
  `Country` the institutions (`; `-joined) and `Rating` the countries (not used). In most
  blocks (5,141 of 7,401 and 7,962 of 11,665) `Authors` is "-" and everything is shifted
  by two: `Affiliation` is the area, `Country` the authors, `Rating` the institutions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.catalog.institutions import institution_info
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_table, read_text, require_columns
from paperfind.model import Affiliation, BadRecord, Record

_EUISUK = re.compile(r"^(?P<year>\d{4})-(?P<venue>[a-z]+)-formatted\.md(\.gz)?$")
_HEADING = re.compile(r"^##\s+(?:\d+\.\s*)?(?P<title>.+?)\s*$")
_LABEL = re.compile(r"^\*\*(?P<label>[A-Za-z ]+):\*\*\s*(?P<value>.*)$")


def matches_whitney(path: Path) -> bool:
    return path.parent.name == "iclr2025-whitney-house" and path.name.startswith("papers.csv")


_INSTITUTION_WORDS = re.compile(r"universi|institut|college|school|lab|academ|cent(er|re)|research|"
                                r"hospital|inc\b|ltd|corp|compan|foundation|tech", re.IGNORECASE)


def _qualifies(previous: str, piece: str) -> bool:
    """Whether `piece` is a place qualifying the institution before it, not an institution."""
    if len(piece.split()) > 2 or _INSTITUTION_WORDS.search(piece):
        return False
    joined = build.resolve(f"{previous}, {piece}").slug
    if not institution_info(joined):
        return False
    # "Google, Mountain View" is Google and "University of California, Los Angeles" UCLA: the
    # piece is a place, or names the very institution the two together name ("..., Berkeley");
    # in "Stanford University, MIT" it is an institution of its own
    alone = build.resolve(piece).slug
    if alone == joined:  # a campus of a university system the name alone does not place
        return "universit" in previous.casefold() and not institution_info(build.resolve(previous).slug)
    return not institution_info(alone)


def _institution_set(raw: str) -> list[Affiliation]:
    pieces: list[str] = []
    for piece in (p.strip() for p in raw.split(", ")):
        if not piece:
            continue
        if pieces and _qualifies(pieces[-1], piece):
            pieces[-1] = f"{pieces[-1]}, {piece}"
        else:
            pieces.append(piece)
    return build.paper_level_affiliations(pieces)


def read_whitney(path: Path) -> Iterator[Record | BadRecord]:
    columns, rows = read_table(path, ",")
    col = require_columns(path, columns, ("Title", "Authors", "Affiliations", "Decision"))
    for index, row in enumerate(rows):
        cell = {name: row[i] if i < len(row) else "" for name, i in col.items()}
        yield build.new_record(
            path, index, "iclr", 2025, cell["Title"], source_id="",
            authors=build.plain_authors(cell["Authors"].split(", ")), authors_ordered=False,
            paper_affiliations=_institution_set(cell["Affiliations"]),
            status=build.status_from_venue(cell["Decision"], decided=True))


def matches_euisuk(path: Path) -> bool:
    return path.parent.name == "vlm-paper-search-euisuk" and bool(_EUISUK.match(path.name))


def _blocks(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    title, fields = None, {}
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading and not line.startswith("###"):
            if title is not None:
                yield title, fields
            title, fields = heading["title"], {}
            continue
        label = _LABEL.match(line.strip())
        if label and title is not None:
            fields[label["label"].strip().casefold()] = label["value"].strip()
    if title is not None:
        yield title, fields


def _semicolon_list(raw: str) -> list[str]:
    return [p.strip() for p in raw.split(";") if p.strip()]


def read_euisuk(path: Path) -> Iterator[Record | BadRecord]:
    m = _EUISUK.match(path.name)
    if not m:
        raise SourceError(str(path), "expected a name like 2025-iclr-formatted.md.gz")
    venue, year = m["venue"], int(m["year"])
    for index, (title, fields) in enumerate(_blocks(read_text(path))):
        values = [fields.get(label, "") for label in ("authors", "affiliation", "country", "rating")]
        if values[0].strip() == "-":
            values = values[1:] + [""]
        area, names, institutions, _countries = values
        if not names.strip():
            yield BadRecord(str(path), index, "no author list (the '**Affiliation:**' line, or "
                                              "'**Country:**' after '**Authors:** -')")
            continue
        yield build.new_record(
            path, index, venue, year, title, source_id="", area=build.format_area(area),
            authors=build.plain_authors(_semicolon_list(names)),
            paper_affiliations=build.paper_level_affiliations(_semicolon_list(institutions)))
