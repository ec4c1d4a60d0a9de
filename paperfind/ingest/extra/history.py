"""Early versions of the Paper Copilot paperlists (`papercopilot-paperlists-history/`).

These are the lists from before the abstracts were added, in two shapes:

* OpenReview years (ICLR 2019-2023, NeurIPS 2021): the paperlists shape itself, keyed by
  forum id, with `;`-joined authors, profile ids or e-mails, keywords, decisions. They are
  the spine of their venue-year: the abstract sources (virtual site, evanzd, proceedings)
  join them by forum id or title. Read by the paperlists reader, with the forum id set.
* Virtual-site years (ICML 2020-2022 and 2025, NeurIPS 2019, 2020 and 2024): `site_…` ids
  that are no one else's key, `, `-joined authors, the status. Joined to the papers of
  their venue-year by title; their status is what they add. Early author lists carry HTML
  entities (`d&#x27;Autume`), undone before the names are split so a `;` inside an entity
  cannot cut a name. ICML 2025's list has Google Scholar counts (`gs_citation`, -1 when
  not known). NeurIPS 2020's list also links each paper's proceedings page, whose
  hash is the key the proceedings give the paper: that joins even a renamed title.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Iterator

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json_array
from paperfind.ingest.extra.proceedings import KEYED_YEARS, PROCEEDINGS_HASH
from paperfind.ingest.paperlists import _citations as citation_count, read_paperlists
from paperfind.model import BadRecord, Record, paper_key
from paperfind.text.names import split_authors

FOLDER = "papercopilot-paperlists-history"
_NAME = re.compile(r"^(?P<venue>[a-z]+)(?P<year>\d{4})\.json(\.gz)?$")
# venue-years whose `id` is the OpenReview forum id; the others have virtual-site ids
FORUM_ID_YEARS = {("iclr", year) for year in range(2019, 2024)} | {("nips", 2021)}


def _venue_year(path: Path) -> tuple[str, int] | None:
    match = _NAME.match(path.name) if path.parent.name == FOLDER else None
    return (match["venue"], int(match["year"])) if match else None


def matches_forum_lists(path: Path) -> bool:
    return _venue_year(path) in FORUM_ID_YEARS


def matches_site_lists(path: Path) -> bool:
    found = _venue_year(path)
    return found is not None and found not in FORUM_ID_YEARS


def read_forum_lists(path: Path) -> Iterator[Record | BadRecord]:
    """The paperlists records, with their id taken as the forum id it is.

    ICLR 2023 names the author field `authors` (the other years `author`).
    """
    found = _venue_year(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like iclr2021.json.gz in {FOLDER}/")
    venue, year = found
    for item in read_paperlists(path, venue, year):
        if isinstance(item, Record) and item.source_id:
            item.forum_id = item.source_id
            item.links.setdefault("openreview", build.openreview_links(item.source_id)["openreview"])
        yield item


def _unescaped(raw: object) -> object:
    """HTML entities undone, twice-escaped ones (`&amp;#x27;`) too."""
    for _ in range(3):
        if not isinstance(raw, str) or "&" not in raw:
            break
        raw, before = html.unescape(raw), raw
        if raw == before:
            break
    return raw


def read_site_lists(path: Path) -> Iterator[Record | BadRecord]:
    found = _venue_year(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like icml2025.json.gz in {FOLDER}/")
    venue, year = found
    for index, obj in enumerate(read_json_array(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        site = obj.get("site") if isinstance(obj.get("site"), str) else ""
        record = build.new_record(
            path, index, venue, year, obj.get("title"), source_id=str(obj.get("id") or ""),
            authors=build.plain_authors(split_authors(_unescaped(obj.get("author")))),
            status=normalize_status(obj.get("status", ""), obj.get("track", "")),
            track=str(obj.get("track") or ""), links={"site": site} if site else {},
            citations=citation_count(obj.get("gs_citation")))  # -1: not known
        found = PROCEEDINGS_HASH.search(str(obj.get("proceeding") or ""))
        if isinstance(record, Record) and found and venue == "nips" and year in KEYED_YEARS:
            record.key = paper_key(venue, year, found["hash"])
        yield record
