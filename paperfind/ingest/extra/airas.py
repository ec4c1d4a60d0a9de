"""airas-papers-db (MIT): normalised copies of the ICML and NeurIPS virtual-site files.

Each file is a pretty-printed JSON array of `{id, title, authors[], abstract, topic,
conference, year, paper_url}`. `id` is 32 hex: the icml.cc virtual uid, or for NeurIPS
2020 the proceedings hash (the key the proceedings CSV gives the same papers). Rows repeat
(ICML 2022 lists every paper twice), and in ICML 2023 eight ids are shared by two different
papers, so a row is a duplicate only when id *and* title repeat. ICML 2020-2022 and NeurIPS
2020 have no OpenReview ids: the id is the paper's key. ICML 2023's papers have theirs (the
Paper Copilot venue file), so that year is joined by title. `topic` is always empty.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json_array
from paperfind.model import BadRecord, Record
from paperfind.text.clean import normalize_title

FOLDER = "airas-papers-db"
_NAME = re.compile(r"^(?P<venue>icml|neurips)-(?P<year>\d{4})\.json(\.gz)?$")
_VENUE_IDS = {"icml": "icml", "neurips": "nips"}
TITLED = {("icml", 2023)}  # venue-years whose papers already have forum ids


def _venue_year(path: Path) -> tuple[str, int] | None:
    match = _NAME.match(path.name) if path.parent.name == FOLDER else None
    return (_VENUE_IDS[match["venue"]], int(match["year"])) if match else None


def matches_keyed(path: Path) -> bool:
    found = _venue_year(path)
    return found is not None and found not in TITLED


def matches_titled(path: Path) -> bool:
    return _venue_year(path) in TITLED


def read(path: Path) -> Iterator[Record | BadRecord]:
    found = _venue_year(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like icml-2021.json.gz in {FOLDER}/")
    venue, year = found
    seen: dict[tuple[str, str], int] = {}
    for index, obj in enumerate(read_json_array(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        ident = str(obj.get("id") or "").strip()
        title = obj.get("title") if isinstance(obj.get("title"), str) else ""
        twin = (ident, normalize_title(title))
        if twin in seen:
            yield BadRecord(str(path), index, f"the same paper as record {seen[twin]} "
                                              f"(id and title repeat)")
            continue
        seen[twin] = index
        authors = obj.get("authors")
        url = obj.get("paper_url")
        yield build.new_record(
            path, index, venue, year, title, source_id=ident, abstract=build.text(obj.get("abstract")),
            authors=build.plain_authors([a for a in authors if isinstance(a, str)]
                                        if isinstance(authors, list) else []),
            links={"site": url.strip()} if isinstance(url, str) and url.startswith("http") else {})
