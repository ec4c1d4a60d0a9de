"""ACL Anthology papers: which volume of an event a paper is in, and the kostikova crawls.

An ACL or EMNLP event publishes many volumes under one roof: the main conference (long and
short papers), Findings, demos, the student research workshop, industry papers, and the
proceedings of a dozen co-located workshops and even other conferences (WMT, CoNLL). A user
who filters on "ACL 2020" means the conference, so only the conference's own volumes are its
papers: Findings is a track of its venue (as in the paper lists), demos, SRW and industry
papers are tracks too, and workshop volumes stay out (reported, per record). Volume front
matter (paper number 0: the proceedings themselves, with the editors as authors) is no paper.

`acl-emnlp-kostikova/` holds whole-volume crawls made for a survey (arXiv:2505.19240): a JSON
array of `{title, authors[], summary, pdf_link, published}`; the Anthology id is the last part
of `pdf_link` and is the paper's key (`acl2023:2023.acl-long.1`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json_array
from paperfind.model import BadRecord, Record

FOLDER = "acl-emnlp-kostikova"
_NAME = re.compile(r"^(?P<venue>acl|emnlp)(?P<year>\d{4})\.json(\.gz)?$")
# `2023.acl-long.12`, `2020.findings-emnlp.7`, `2021.emnlp-demo.3`
ANTHOLOGY_ID = re.compile(r"(?P<id>(?P<year>\d{4})\.(?P<volume>[a-z0-9-]+)\.(?P<number>\d+))(?:\.pdf)?/?$")


@dataclass(frozen=True)
class Volume:
    """What an Anthology volume is to its event: the track and status its papers get."""

    track: str
    status: str


def conference_volume(venue: str, volume: str) -> Volume | None:
    """The track of a volume of `venue`'s own proceedings; None for a co-located workshop's."""
    kinds = {
        f"{venue}-main": Volume("main", "Accept"), f"{venue}-long": Volume("main", "Long"),
        f"{venue}-short": Volume("main", "Short"), f"findings-{venue}": Volume("findings", "Findings"),
        f"{venue}-demos": Volume("demo", "Demo"), f"{venue}-demo": Volume("demo", "Demo"),
        f"{venue}-srw": Volume("srw", "Accept"), f"{venue}-industry": Volume("industry", "Industry"),
    }
    return kinds.get(volume)


def anthology_record(path: Path, index: int, venue: str, year: int, url: object, title: object,
                     **fields: object) -> Record | BadRecord:
    """A record keyed by its Anthology id, or a `BadRecord` saying why the paper is left out."""
    found = ANTHOLOGY_ID.search(url.strip()) if isinstance(url, str) else None
    if not found:
        return BadRecord(str(path), index, f"no ACL Anthology id in the paper's link ({str(url)[:80]!r})")
    volume = conference_volume(venue, found["volume"])
    if volume is None:
        return BadRecord(str(path), index, f"{found['year']}.{found['volume']} is a co-located "
                                           f"workshop's volume, not {venue.upper()} {year}'s")
    if found["number"] == "0":
        return BadRecord(str(path), index, f"{found['id']} is the volume's front matter, not a paper")
    ident = found["id"]
    links = {"site": f"https://aclanthology.org/{ident}/", "pdf": f"https://aclanthology.org/{ident}.pdf"}
    return build.new_record(path, index, venue, year, title, source_id=ident, track=volume.track,
                            status=normalize_status(volume.status, volume.track), links=links, **fields)


def _venue_year(path: Path) -> tuple[str, int] | None:
    match = _NAME.match(path.name) if path.parent.name == FOLDER else None
    return (match["venue"], int(match["year"])) if match else None


def matches_kostikova(path: Path) -> bool:
    return _venue_year(path) is not None


def read_kostikova(path: Path) -> Iterator[Record | BadRecord]:
    found = _venue_year(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like acl2023.json.gz or emnlp2024.json.gz in {FOLDER}/")
    venue, year = found
    for index, obj in enumerate(read_json_array(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        authors = obj.get("authors")
        yield anthology_record(
            path, index, venue, year, obj.get("pdf_link"), obj.get("title"),
            abstract=build.text(obj.get("summary")),
            authors=build.plain_authors([a for a in authors if isinstance(a, str)]
                                        if isinstance(authors, list) else []))
