"""Google Scholar citation counts of the accepted ICLR 2019 and 2020 papers (isingmodel, 2022).

Each file (`googlescholar_iclrYYYY_YYMMDD.json.gz`) is one JSON object keyed by the ICLR title
that was searched; its value is Scholar's top hit: `num_citations` and `bib.title` (Scholar's
own title). A record carries the title and the count, nothing else, and is joined by title to
its paper (title-only, join-only: a count that pairs with no paper is reported, not stored).

The top hit is not always the paper searched for (9 keys of 2019, 52 of 2020 per the source's
README: a survey with a similar name, a journal version, an unrelated paper), so a count is
taken only when Scholar's title is the key's. "The same" allows one title to be a prefix of the
other when the shorter keeps 90% of the longer: Scholar cuts titles at about 90 characters and
drops or adds a plural "s" ("…instance embedding" for "…Instance Embeddings"), while a prefix
much shorter than the title ("Music transformer") could as well be another paper.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json
from paperfind.ingest.paperlists import _citations as citation_count
from paperfind.model import BadRecord, Record
from paperfind.text.clean import normalize_title

FOLDER = "iclr-citations-isingmodel"
VENUE = "iclr"
_NAME = re.compile(r"^googlescholar_iclr(?P<year>\d{4})_\d{6}\.json(\.gz)?$")
PREFIX_SHARE = 0.9  # how much of the longer title a prefix must keep to count as the same


def _year(path: Path) -> int | None:
    match = _NAME.match(path.name) if path.parent.name == FOLDER else None
    return int(match["year"]) if match else None


def matches(path: Path) -> bool:
    return _year(path) is not None


def same_title(query: str, found: str) -> bool:
    """Whether Scholar's title `found` names the paper searched as `query` (see the module)."""
    a, b = normalize_title(query), normalize_title(found)
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and len(short) >= PREFIX_SHARE * len(long)


def read(path: Path) -> Iterator[Record | BadRecord]:
    year = _year(path)
    if year is None:
        raise SourceError(str(path), f"expected a name like googlescholar_iclr2019_220419.json.gz "
                                     f"in {FOLDER}/")
    data = read_json(path)
    if not isinstance(data, dict):
        raise SourceError(str(path), f"expected one JSON object keyed by title, "
                                     f"found {type(data).__name__}")
    for index, (title, hit) in enumerate(data.items()):
        if not isinstance(hit, dict):
            yield BadRecord(str(path), index, "the Scholar hit is not a JSON object")
            continue
        bib = hit.get("bib") if isinstance(hit.get("bib"), dict) else {}
        found = bib.get("title") if isinstance(bib.get("title"), str) else ""
        if not same_title(title, found):
            yield BadRecord(str(path), index, f"Scholar's top hit is another title "
                                              f"('{found[:60]}'): its count is not this paper's")
            continue
        count = citation_count(hit.get("num_citations"))
        if count is None:
            yield BadRecord(str(path), index, f"field 'num_citations' is not a count "
                                              f"({str(hit.get('num_citations'))[:20]!r})")
            continue
        yield build.new_record(path, index, VENUE, year, title, source_id="", citations=count)
