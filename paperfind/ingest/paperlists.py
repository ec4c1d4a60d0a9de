"""Reader for the Paper Copilot "paperlists" files: one JSON list of papers per venue-year.

Fields differ between venues and years and are often missing, empty, numbers or
misaligned (see `shared/data/README.md`), so everything here is defensive: a file that
cannot be read at all raises `SourceError`; a list element that is not an object or has
no usable title is yielded as a `BadRecord`; anything else becomes a `Record`, with the
fields the source got wrong left empty rather than guessed.

Alignment of the per-author fields (`author`, `authorids`, `or_profile`, `aff`,
`aff_unique_index`) is by position and is checked by counting: a field whose count
differs from the number of authors is not used per author. The ICRA/IROS files print
every author (and id) twice; a list that is exactly two copies of itself is halved.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Any, Iterator

from paperfind.catalog.institutions import resolve_affiliation
from paperfind.catalog.venues import normalize_status
from paperfind.ingest.errors import SourceError, json_problem
from paperfind.ingest.reviews import read_reviews
from paperfind.model import Affiliation, AuthorSlot, BadRecord, Record
from paperfind.text.clean import clean_text, clean_title, text_problem, usable_id
from paperfind.text.names import clean_name, split_authors

_FILE_NAME = re.compile(r"([a-z0-9]+?)(\d{4})\.json(?:\.gz)?", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\]\((https?://[^)\s]+)\)")
_ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
# Record link name → paperlists field.
_LINK_FIELDS = (("site", "site"), ("pdf", "pdf"), ("openreview", "openreview"),
                ("code", "github"), ("project", "project"), ("arxiv", "arxiv"), ("oa", "oa"))
# Every field a record is built from; each is checked for size and encoding before use.
_USED_FIELDS = ("id", "title", "abstract", "tldr", "author", "authors", "authorids", "or_profile", "aff",
                "aff_unique_norm", "aff_unique_abbr", "aff_unique_index", "aff_country_unique",
                "aff_country_unique_index", "keywords", "primary_area", "status", "track",
                "bibtex") + tuple(source for _, source in _LINK_FIELDS)
_MAX_CITATIONS = 10**9  # beyond any real count; larger numbers are a broken field


class _BadField(Exception):
    """A record-level problem; its message becomes the `BadRecord` reason."""


def matches(path: Path) -> bool:
    return path.name.endswith((".json", ".json.gz"))


def read_file(path: Path) -> Iterator[Record | BadRecord]:
    """The records of a paper list named `<venue><year>.json[.gz]`."""
    venue, year = venue_year_from_path(path)
    return read_paperlists(path, venue, year)


def venue_year_from_path(path: Path | str) -> tuple[str, int]:
    """(`nips`, 2018) from `.../nips/nips2018.json.gz`; the venue is the file-name prefix."""
    match = _FILE_NAME.fullmatch(Path(path).name)
    if not match:
        raise SourceError(str(path), "cannot tell venue and year from the file name "
                                     "(expected <venue><year>.json or .json.gz, e.g. nips2018.json.gz)")
    return match.group(1).lower(), int(match.group(2))


def read_paperlists(path: Path, venue: str, year: int) -> Iterator[Record | BadRecord]:
    """Every record of one paperlists file, in file order, as `Record` or `BadRecord`.

    Raises `SourceError` before yielding anything when the file itself is unreadable.
    """
    source = str(path)
    items = _load_list(Path(path))
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            yield BadRecord(source, index, f"record is {_kind(item)}, expected an object")
            continue
        try:
            yield _to_record(item, venue, year, source, index)
        except _BadField as problem:
            yield BadRecord(source, index, str(problem))


def _load_list(path: Path) -> list[Any]:
    """The top-level JSON list of a file, or a `SourceError` saying what is wrong with it."""
    source = str(path)
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(source, "file not found") from None
    except OSError as problem:
        raise SourceError(source, f"cannot read file: {problem.strerror or problem}") from None
    if blob[:2] == b"\x1f\x8b":
        try:
            blob = gzip.decompress(blob)
        except (EOFError, gzip.BadGzipFile, zlib.error) as problem:
            raise SourceError(source, f"truncated or corrupt gzip data ({problem})") from None
    if not blob.strip():
        raise SourceError(source, "file is empty")
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise SourceError(source, f"not valid UTF-8 (bad byte at offset {problem.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as problem:
        raise SourceError(source, f"not valid JSON: {json_problem(problem)}") from None
    if not isinstance(data, list):
        raise SourceError(source, f"expected a JSON list of paper records, found {_kind(data)}")
    return data


def _to_record(item: dict[str, Any], venue: str, year: int, source: str, index: int) -> Record:
    _check_text_fields(item)
    title = item.get("title")
    if title is None:
        raise _BadField("missing field 'title'")
    if not isinstance(title, str):
        raise _BadField(f"field 'title' is {_kind(title)}, expected a string")
    clean = clean_title(title)
    if not clean:
        raise _BadField("field 'title' is empty")
    authors, paper_affiliations = _authors(item)
    source_id = _string(item, "id").strip()
    if not usable_id(source_id):
        source_id = ""  # not usable in a URL: the paper gets a key derived from its content
    links = _links(item)
    site = links.get("site", "")
    status = normalize_status(_string(item, "status"), _string(item, "track"))
    return Record(
        venue=venue, year=year, source_id=source_id, title=clean,
        abstract=clean_text(_string(item, "abstract")), tldr=clean_text(_string(item, "tldr")),
        authors=authors, paper_affiliations=paper_affiliations,
        keywords=_keywords(item.get("keywords")),
        status=status,
        track=clean_text(_string(item, "track")), area=clean_text(_string(item, "primary_area")),
        links=links, bibtex=_string(item, "bibtex").strip(), citations=_citations(item.get("gs_citation")),
        forum_id=source_id if source_id and "openreview.net" in site else "",
        source=source, source_index=index,
        reviews=read_reviews(venue, year, item.get("rating"), item.get("confidence"),
                             item.get("rating_avg"), decision=status),
    )


def _check_text_fields(item: dict[str, Any]) -> None:
    """Refuse a record whose text could not be stored whole (see `text_problem`)."""
    for name in _USED_FIELDS:
        value = item.get(name)
        values = value if isinstance(value, list) else [value]
        for part in values:
            if isinstance(part, str):
                problem = text_problem(name, part)
                if problem:
                    raise _BadField(problem)


def _authors(item: dict[str, Any]) -> tuple[list[AuthorSlot], list[Affiliation]]:
    """Author slots with ids and affiliations, plus paper-level affiliations that did not align."""
    raw = item.get("author") if "author" in item else item.get("authors")  # ICLR 2023: `authors`
    if isinstance(raw, list):
        names = [clean_name(n) if isinstance(n, str) else "" for n in raw]
    elif raw is None or isinstance(raw, str):
        names = [clean_name(n) for n in split_authors(raw)]
    else:
        raise _BadField(f"field 'author' is {_kind(raw)}, expected a string")
    names = _undouble(names)
    count = len(names)
    ids = _aligned(_undouble(_split(item.get("authorids"), keep_empty=True)), count)
    profiles = _in_author_order(ids, _aligned(_undouble(_split(item.get("or_profile"),
                                                                keep_empty=True)), count))
    affs = _split(item.get("aff"), keep_empty=True)
    unique = _UniqueAffiliations(item)
    slot_indexes = _aligned(_split(item.get("aff_unique_index"), keep_empty=True), count)
    per_author = len(affs) == count
    slots = []
    for i, name in enumerate(names):
        if not name:
            continue  # an empty slot only kept positions aligned
        profile = ids[i] if ids and ids[i].startswith("~") else ""
        alias = profiles[i] if profiles and profiles[i].startswith("~") else ""
        if not profile:
            profile, alias = alias, ""
        affiliations = unique.for_slot(affs[i], slot_indexes[i] if slot_indexes else "") if per_author else []
        slots.append(AuthorSlot(name=name, profile_id=profile,
                                alias_profile_id=alias if alias != profile else "",
                                affiliations=affiliations))
    paper_level: list[Affiliation] = []
    if not per_author and any(a.strip() for a in affs):
        paper_level = unique.whole_paper(affs)
    return slots, paper_level


def _in_author_order(ids: list[str], profiles: list[str]) -> list[str]:
    """`or_profile` where it lines up with the authors, else nothing.

    Some files (COLM 2024, CoRL 2021-2024) list `or_profile` in another order than the authors:
    a slot whose profile is another author's id of the same paper gives that away, and then no
    slot of the record can be trusted as an alias.
    """
    if not profiles or not ids:
        return profiles
    own = {i for i in ids if i.startswith("~")}
    for i, profile in enumerate(profiles):
        if profile.startswith("~") and profile != ids[i] and profile in own:
            return []
    return profiles


class _UniqueAffiliations:
    """The `aff_unique_*` lists of one record, looked up by the per-slot indexes."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.norms = _split(item.get("aff_unique_norm"), keep_empty=True)
        self.abbrs = _split(item.get("aff_unique_abbr"), keep_empty=True)
        self.country_of: dict[int, str] = {}
        # Countries are listed per slot like the institution indexes, but the source
        # skips slots without a country; only a list of the same length can be trusted.
        flat = [p for s in _split(item.get("aff_unique_index"), keep_empty=True) for p in s.split("+")]
        flat_country = [p for s in _split(item.get("aff_country_unique_index"), keep_empty=True)
                        for p in s.split("+")]
        countries = _split(item.get("aff_country_unique"), keep_empty=True)
        if len(flat) == len(flat_country):
            for aff_index, country_index in zip(flat, flat_country):
                a, c = _int(aff_index), _int(country_index)
                if a is not None and c is not None and c < len(countries):
                    self.country_of.setdefault(a, countries[c].strip())

    def for_slot(self, raw_slot: str, index_slot: str) -> list[Affiliation]:
        raw_parts = [p.strip() for p in raw_slot.split("+")]
        index_parts = index_slot.split("+") if index_slot else []
        if len(index_parts) != len(raw_parts):
            index_parts = [""] * len(raw_parts)  # counts disagree: raw strings only
        result = []
        for raw, index in zip(raw_parts, index_parts):
            affiliation = self._resolve(raw, _int(index))
            if affiliation.raw:
                result.append(affiliation)
        return result

    def whole_paper(self, affs: list[str]) -> list[Affiliation]:
        """Distinct institutions of a paper whose `aff` does not line up with its authors."""
        if any(n.strip() for n in self.norms):
            found = [self._resolve("", i) for i in range(len(self.norms))]
        else:
            found = [self._resolve(p.strip(), None) for a in affs for p in a.split("+")]
        seen, result = set(), []
        for affiliation in found:
            key = affiliation.slug or affiliation.raw
            if affiliation.raw and key not in seen:
                seen.add(key)
                result.append(affiliation)
        return result

    def _resolve(self, raw: str, index: int | None) -> Affiliation:
        if index is None or index >= len(self.norms):
            return resolve_affiliation(raw)
        abbr = self.abbrs[index] if index < len(self.abbrs) else ""
        return resolve_affiliation(raw, self.norms[index], abbr, self.country_of.get(index, ""))


def _links(item: dict[str, Any]) -> dict[str, str]:
    """Absolute URLs only; markdown badges unwrapped, bare hosts and arXiv ids completed."""
    links = {}
    for name, field_name in _LINK_FIELDS:
        value = _string(item, field_name).strip()
        if value.startswith("["):
            found = _MARKDOWN_LINK.findall(value)
            value = found[-1] if found else ""
        if not value or "paperswithcode.com" in value:
            continue  # a community-implementations badge is not the paper's code
        if name == "arxiv" and _ARXIV_ID.fullmatch(value):
            value = f"https://arxiv.org/abs/{value}"
        elif not value.startswith(("http://", "https://")):
            if " " in value or "." not in value:
                continue
            value = "https://" + value
        links[name] = value
    return links


def _keywords(value: Any) -> list[str]:
    parts = value if isinstance(value, list) else _split(value)
    result, seen = [], set()
    for part in parts:
        keyword = clean_text(part) if isinstance(part, str) else ""
        if keyword and keyword.casefold() not in seen:
            seen.add(keyword.casefold())
            result.append(keyword)
    return result


def _citations(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value <= _MAX_CITATIONS else None


def _string(item: dict[str, Any], name: str) -> str:
    """A text field as a string: numbers converted, None/lists/objects treated as absent."""
    value = item.get(name)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _split(value: Any, keep_empty: bool = False) -> list[str]:
    """A `;`-separated field as stripped parts; [] when absent or not a string.

    `keep_empty` keeps positions for the fields aligned with the author list.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        return []
    parts = [p.strip() for p in value.split(";")]
    return parts if keep_empty else [p for p in parts if p]


def _undouble(values: list[str]) -> list[str]:
    """Halve a list that is exactly two copies of itself (ICRA/IROS print authors twice)."""
    half = len(values) // 2
    if half and len(values) % 2 == 0 and values[:half] == values[half:]:
        return values[:half]
    return values


def _aligned(values: list[str], count: int) -> list[str]:
    """The list when it has one entry per author, else [] (it cannot be trusted by position)."""
    return values if len(values) == count else []


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "a number",
             float: "a number", bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)
