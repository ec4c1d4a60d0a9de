"""ML Anthology (`mlanthology-rbnyng/`, Apache-2.0): proceedings metadata with abstracts.

Each file is one JSON object `{venue, year, papers: [...]}` of a venue-year's accepted papers,
with the camera-ready title, the abstract and `{given, family}` authors. The files fill the
abstracts that the OpenReview-era lists lack (ICLR 2023-2025, ICML 2025, NeurIPS 2024-2025)
and bring whole venue-years of CVPR, ICCV and ECCV that no other source has.

Joins: camera-ready titles differ from the lists' for 10-15 % of NeurIPS 2024/2025 and ICML
2025 papers, so the OpenReview forum id is the key wherever the file has one: in `source_id`
when `source` is `openreview`, in `openreview_url` otherwise (ICML 2025's PMLR records, NeurIPS
2024's proceedings records). The CVF and ECVA years have no other source: their papers are
keyed by the file's own `bibtex_key` (unique in every file), e.g. `cvpr2021:liu2021cvpr-invertible`.

Decisions: the files list proceedings, so a paper in one was accepted. A record with an
OpenReview forum id says so ("Accept"): the review-time lists it joins (ICLR 2024's 7,304
submissions, all "Active") would otherwise keep "Under Review" for the accepted papers no
source with a presentation type joins (69 of ICLR 2024's 2,260). The merge ranks a stated
Oral/Spotlight/Poster above "Accept" (paperfind.store.merge), so no tier is lost. The CVF and
ECVA years have no review-time list and no status from any source, so they get none.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_json
from paperfind.model import AuthorSlot, BadRecord, Record
from paperfind.text.names import clean_name

FOLDER = "mlanthology-rbnyng"
_NAME = re.compile(r"^(?P<venue>[a-z]+)-(?P<year>\d{4})\.json(\.gz)?$")
# ML Anthology's venue slugs → paperfind's venue ids (the paperlists folder names)
VENUE_IDS = {"iclr": "iclr", "icml": "icml", "neurips": "nips", "cvpr": "cvpr", "iccv": "iccv",
             "eccv": "eccv"}


def venue_year(path: Path) -> tuple[str, int] | None:
    match = _NAME.match(path.name) if path.parent.name == FOLDER else None
    if not match or match["venue"] not in VENUE_IDS:
        return None
    return VENUE_IDS[match["venue"]], int(match["year"])


def matches(path: Path) -> bool:
    return venue_year(path) is not None


def read(path: Path) -> Iterator[Record | BadRecord]:
    found = venue_year(path)
    if found is None:
        raise SourceError(str(path), f"expected a name like cvpr-2024.json.gz in {FOLDER}/ "
                                     f"(venues: {', '.join(sorted(VENUE_IDS))})")
    venue, year = found
    data = read_json(path)
    papers = data.get("papers") if isinstance(data, dict) else None
    if not isinstance(papers, list):
        raise SourceError(str(path), "expected a JSON object with a 'papers' array")
    for index, obj in enumerate(papers):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        yield paper_record(path, index, venue, year, obj)


def forum_id_of(obj: dict) -> str:
    """The OpenReview forum id of a record, wherever this file keeps it (or "")."""
    if obj.get("source") == "openreview" and isinstance(obj.get("source_id"), str):
        return obj["source_id"].strip()
    return build.forum_id_from_url(obj.get("openreview_url")) or build.forum_id_from_url(
        obj.get("venue_url"))


def authors_of(raw: object) -> list[AuthorSlot]:
    """Author slots from `{given, family}` objects ("Rogelio A." + "Mancisidor")."""
    slots = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            parts = [item.get("given"), item.get("family")]
            name = clean_name(" ".join(p.strip() for p in parts if isinstance(p, str) and p.strip()))
        elif isinstance(item, str):
            name = clean_name(item)
        else:
            name = ""
        if name:
            slots.append(AuthorSlot(name=name))
    return slots


def paper_record(path: Path, index: int, venue: str, year: int, obj: dict) -> Record | BadRecord:
    forum_id = forum_id_of(obj)
    ident = forum_id or str(obj.get("bibtex_key") or "").strip()
    links: dict[str, str] = {}
    for name, field in (("pdf", "pdf_url"), ("site", "venue_url"), ("code", "code_url")):
        value = obj.get(field)
        if isinstance(value, str) and value.startswith(("https://", "http://")):
            links[name] = value.strip()
    if forum_id:
        links.update(build.openreview_links(forum_id))
    doi = obj.get("doi")
    if isinstance(doi, str) and doi.strip().startswith("10."):
        links["doi"] = f"https://doi.org/{doi.strip()}"
    return build.new_record(path, index, venue, year, obj.get("title"), source_id=ident,
                            forum_id=forum_id, abstract=build.text(obj.get("abstract")),
                            authors=authors_of(obj.get("authors")), links=links,
                            status="Accept" if forum_id else "")
