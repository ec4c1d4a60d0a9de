"""Paper Copilot's OpenReview archive: venue files, review-time lists and author files.

* `venues_<v>_<v><year>.json`: a JSON array in the paperlists conventions (title, status,
  ordered authors with profile ids and affiliations; no abstract in these versions).
* `venues_<v>_<v><year>.init.jsonl`: submissions at review time, anonymous, status Active,
  with the scores before the rebuttal (`Reviews.initial`).
* `authors_<v>_<v><year>.json[l]`: ordered authors and affiliations keyed by forum id, but
  no title. The store keeps no record without a title, so the title is joined here: by id
  from the venue file of the same year when it is in this folder, else by author list from
  the early paperlists version of the same year in `papercopilot-paperlists-history/`.
  An author entry that joins neither is reported as skipped, with its forum id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.author_join import match_author_lists
from paperfind.ingest.extra.files import read_json_array, read_json_lines
from paperfind.ingest.reviews import read_reviews
from paperfind.model import BadRecord, Record
from paperfind.text.names import split_authors

FOLDER = "papercopilot-openreview"
HISTORY_FOLDER = "papercopilot-paperlists-history"
_NAME = re.compile(r"^(?P<kind>venues|authors)_(?P<venue>[a-z]+)_(?P=venue)(?P<year>\d{4})"
                   r"(?P<init>\.init)?\.(?P<ext>jsonl|json)(\.gz)?$")


def _parse(path: Path) -> re.Match[str] | None:
    return _NAME.match(path.name) if path.parent.name == FOLDER else None


def matches_venues(path: Path) -> bool:
    m = _parse(path)
    return bool(m and m["kind"] == "venues" and not m["init"])


def matches_init(path: Path) -> bool:
    m = _parse(path)
    return bool(m and m["kind"] == "venues" and m["init"])


def matches_authors(path: Path) -> bool:
    m = _parse(path)
    return bool(m and m["kind"] == "authors")


def _venue_year(path: Path) -> tuple[str, int]:
    m = _parse(path)
    if not m:
        raise SourceError(str(path), f"not a Paper Copilot archive file name in {FOLDER}/")
    return m["venue"], int(m["year"])


def _items(path: Path) -> Iterator[tuple[int, dict] | BadRecord]:
    for item in read_json_lines(path):
        if isinstance(item, BadRecord):
            yield item
        elif not isinstance(item[1], dict):
            yield BadRecord(str(path), item[0], "not a JSON object")
        else:
            yield item


def _with_forum_ids(path: Path) -> Iterator[tuple[int, dict, str] | BadRecord]:
    """(index, object, forum id) per record of a file keyed by forum id; a record without one
    is reported."""
    for item in _items(path):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, obj = item
        forum_id = str(obj.get("id") or "").strip()
        if forum_id:
            yield index, obj, forum_id
        else:
            yield BadRecord(str(path), index, "no 'id'")


def read_venues(path: Path) -> Iterator[Record | BadRecord]:
    """Venue file records; an `author` field left empty (NeurIPS 2023) gives no authors."""
    venue, year = _venue_year(path)
    for item in _with_forum_ids(path):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, obj, forum_id = item
        authors, paper_affs = build.openreview_authors(obj)
        if not authors and isinstance(obj.get("aff"), str):
            paper_affs = build.paper_level_affiliations(obj["aff"].split(";"))
        status = normalize_status(obj.get("status", ""), obj.get("track", ""))
        yield build.new_record(
            path, index, venue, year, obj.get("title"), source_id=forum_id, forum_id=forum_id,
            authors=authors, paper_affiliations=paper_affs,
            keywords=build.split_keywords(obj.get("keywords")),
            area=build.format_area(obj.get("primary_area")),
            status=status, track=str(obj.get("track") or ""), links=build.openreview_links(forum_id),
            reviews=read_reviews(venue, year, obj.get("rating"), obj.get("confidence"),
                                 obj.get("rating_avg"), decision=status))


def read_init(path: Path) -> Iterator[Record | BadRecord]:
    """Submissions as listed during review: no authors (anonymous), no decision yet."""
    venue, year = _venue_year(path)
    for item in _with_forum_ids(path):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, obj, forum_id = item
        yield build.new_record(
            path, index, venue, year, obj.get("title"), source_id=forum_id, forum_id=forum_id,
            keywords=build.split_keywords(obj.get("keywords")),
            status=normalize_status(obj.get("status", "")), track=str(obj.get("track") or ""),
            links=build.openreview_links(forum_id),
            reviews=read_reviews(venue, year, obj.get("rating"), obj.get("confidence"),
                                 obj.get("rating_avg"), initial=True))


def _titles_by_id(path: Path) -> dict[str, str]:
    return {str(o.get("id")): o.get("title") for o in read_json_array(path)
            if isinstance(o, dict) and isinstance(o.get("title"), str)}


def _titles_by_authors(entries: list[tuple[int, dict]], history: Path) -> dict[int, str]:
    """Titles of the history file's papers for the author entries whose lists pair up."""
    papers = [o for o in read_json_array(history) if isinstance(o, dict)
              and isinstance(o.get("title"), str)]
    left = [split_authors(obj.get("author")) for _, obj in entries]
    right = [split_authors(o.get("author")) for o in papers]
    pairs = match_author_lists(left, right)
    return {entries[i][0]: papers[j]["title"] for i, j in pairs.items()}


def read_authors(path: Path) -> Iterator[Record | BadRecord]:
    """Ordered authors with affiliations per forum id, titled from a companion file."""
    venue, year = _venue_year(path)
    entries: list[tuple[int, dict]] = []
    for item in _items(path):
        if isinstance(item, BadRecord):
            yield item
        elif not str(item[1].get("id") or "").strip():
            yield BadRecord(str(path), item[0], "no 'id'")
        else:
            entries.append(item)
    suffix = ".gz" if path.name.endswith(".gz") else ""
    by_id = path.with_name(f"venues_{venue}_{venue}{year}.json{suffix}")
    history = path.parent.parent / HISTORY_FOLDER / f"{venue}{year}.json{suffix}"
    if by_id.is_file():
        titles = _titles_by_id(by_id)
        title_of = {index: titles.get(str(obj["id"]).strip()) for index, obj in entries}
        companion = by_id.name
    elif history.is_file():
        title_of = _titles_by_authors(entries, history)
        companion = f"{HISTORY_FOLDER}/{history.name}"
    else:
        raise SourceError(str(path), f"this file has no titles and neither companion file with "
                                     f"titles exists ({by_id.name}, {HISTORY_FOLDER}/{history.name})")
    for index, obj in entries:
        forum_id = str(obj["id"]).strip()
        title = title_of.get(index)
        if not title:
            yield BadRecord(str(path), index, f"forum id {forum_id}: no title, the paper is not "
                                              f"found in {companion}")
            continue
        authors, paper_affs = build.openreview_authors(obj)
        yield build.new_record(path, index, venue, year, title, source_id=forum_id,
                               forum_id=forum_id, authors=authors, paper_affiliations=paper_affs,
                               links=build.openreview_links(forum_id))
