"""AI-Conference-Paper-Lists (`ai-conference-paper-lists-chang-xinhai/`, MIT): normalised lists.

Each file is one JSON object `{venue_key, year, source, records: [...]}`. Two shapes:

* Paper lists (ACL 2020, EMNLP 2020-2021 from the ACL Anthology; CVPR 2020 from CVF open
  access): `title`, `abstract`, `authors[]`, `paper_url`, `pdf_url`. ACL and EMNLP papers are
  keyed by their Anthology id, and only the conference's own volumes are kept
  (`anthology.conference_volume`). CVPR 2020 is keyed by the slug part of the file's `id`.
* `openreview_authorids_iclr2025`: accepted ICLR 2025 papers with their forum id and the
  authors' OpenReview profile ids (`~First_Last1`), in author order, but no author names.
  Names come from the ML Anthology file of the same papers (its companion, by forum id, the
  same author order); where it lacks a paper the name is spelled from the profile id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from paperfind.ingest.errors import SourceError
from paperfind.ingest.extra import anthology, build, mlanthology
from paperfind.ingest.extra.files import read_json
from paperfind.model import AuthorSlot, BadRecord, Record

FOLDER = "ai-conference-paper-lists-chang-xinhai"
_LIST = re.compile(r"^(?P<venue>acl|emnlp|cvpr)(?P<year>\d{4})\.json(\.gz)?$")
_IDS = re.compile(r"^openreview_authorids_(?P<venue>iclr)(?P<year>\d{4})\.json(\.gz)?$")
_PROFILE_SUFFIX = re.compile(r"\d+$")


def _match(pattern: re.Pattern[str], path: Path) -> tuple[str, int] | None:
    match = pattern.match(path.name) if path.parent.name == FOLDER else None
    return (match["venue"], int(match["year"])) if match else None


def matches_lists(path: Path) -> bool:
    return _match(_LIST, path) is not None


def matches_authorids(path: Path) -> bool:
    return _match(_IDS, path) is not None


def _records(path: Path) -> list:
    data = read_json(path)
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise SourceError(str(path), "expected a JSON object with a 'records' array")
    return records


def read_lists(path: Path) -> Iterator[Record | BadRecord]:
    found = _match(_LIST, path)
    if found is None:
        raise SourceError(str(path), f"expected a name like acl2020.json.gz in {FOLDER}/")
    venue, year = found
    for index, obj in enumerate(_records(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        authors = obj.get("authors")
        fields = dict(abstract=build.text(obj.get("abstract")),
                      authors=build.plain_authors([a for a in authors if isinstance(a, str)]
                                                  if isinstance(authors, list) else []))
        if venue in ("acl", "emnlp"):
            yield anthology.anthology_record(path, index, venue, year, obj.get("paper_url"),
                                             obj.get("title"), **fields)
            continue
        ident = str(obj.get("id") or "").rpartition(":")[2].strip()
        links = {name: obj[field].strip() for name, field in (("site", "paper_url"), ("pdf", "pdf_url"))
                 if isinstance(obj.get(field), str) and obj[field].strip().startswith("https://")}
        yield build.new_record(path, index, venue, year, obj.get("title"), source_id=ident,
                               status="Accept", links=links, **fields)


def profile_name(profile_id: str) -> str:
    """The name a profile id spells, for display: `~Jianye_HAO1` → "Jianye HAO"."""
    return _PROFILE_SUFFIX.sub("", profile_id.strip().lstrip("~")).replace("_", " ").strip()


def companion(path: Path, year: int) -> Path:
    return path.parent.parent / mlanthology.FOLDER / f"iclr-{year}.json.gz"


def _companion_names(path: Path, year: int) -> dict[str, list[AuthorSlot]]:
    """Author slots by forum id from the ML Anthology file of the same venue-year, if present."""
    other = companion(path, year)
    if not other.is_file():
        return {}
    data = read_json(other)
    out: dict[str, list[AuthorSlot]] = {}
    for obj in data.get("papers", []) if isinstance(data, dict) else []:
        if isinstance(obj, dict) and mlanthology.forum_id_of(obj):
            out[mlanthology.forum_id_of(obj)] = mlanthology.authors_of(obj.get("authors"))
    return out


def read_authorids(path: Path) -> Iterator[Record | BadRecord]:
    found = _match(_IDS, path)
    if found is None:
        raise SourceError(str(path), f"expected a name like openreview_authorids_iclr2025.json.gz in {FOLDER}/")
    venue, year = found
    named = _companion_names(path, year)
    for index, obj in enumerate(_records(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        forum_id = build.forum_id_from_url(obj.get("paper_url"))
        if not forum_id:
            yield BadRecord(str(path), index, "no OpenReview forum link in 'paper_url'")
            continue
        ids = [i.strip() for i in obj.get("authorids") or [] if isinstance(i, str) and i.strip()]
        names = named.get(forum_id, [])
        if len(names) == len(ids):
            slots = [AuthorSlot(name=slot.name, profile_id=pid if pid.startswith("~") else "")
                     for slot, pid in zip(names, ids)]
        else:  # no companion record, or another author count: the ids spell the names
            slots = [AuthorSlot(name=profile_name(pid), profile_id=pid) for pid in ids
                     if pid.startswith("~") and profile_name(pid)]
        yield build.new_record(path, index, venue, year, obj.get("title"), source_id=forum_id,
                               forum_id=forum_id, authors=slots,
                               links=build.openreview_links(forum_id))
