"""Reader for paperfind's own JSON Lines export: one normalised `Record` per line.

It is how users bring their own lists and how the bundled corpus ships; `paperfind export`
writes it. A bad line is reported with its line number; the other lines still go in.

Export lines are trusted to be normalised already (no cleaning happens), so each one is
checked field by field against the shape `Record.to_json` writes before it is built: a
hand-edited or hostile file must be refused line by line here, not fail the database
transaction of its whole file (or reach a page) later.

An export has one line per paper, so two lines of one paper (the same `key`, or the key their
venue, year and id make, or the same title and authors without any id) are a mistake the store
would merge into one paper, or make two of, unseen: the first line is stored and each later
one is refused, naming the line it repeats, so nothing is overwritten by a line the user did
not know was there and the counts say what went in.

The slugs of an export are those of the resolver that wrote it: each affiliation is resolved
again from its raw string and stored name (`resolve_affiliation`), so a corpus shipped before
a resolver fix (a duplicate merged, an address that is no institution) is read as today's
resolver reads it, without being written again.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import re
import zlib
from pathlib import Path
from typing import IO, Any, Iterator

from paperfind.ingest.errors import SourceError, json_problem
from paperfind.catalog.institutions import resolve_affiliation
from paperfind.model import Affiliation, BadRecord, Record, content_key, paper_key
from paperfind.text.clean import text_problem, usable_id

_TEXT_FIELDS = ("source_id", "title", "abstract", "tldr", "status", "track", "area", "bibtex",
                "forum_id", "source", "key")
_AFFILIATION_FIELDS = ("raw", "slug", "name", "country")
_VENUE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
# A key is the public id in URLs (/papers/{key}): `{venue}{year}:{id}`, a `usable_id` after the colon.
_KEY_PREFIX = re.compile(r"[a-z0-9_-]+\d{4}")
_MIN_YEAR, _MAX_YEAR = 1900, 2100
_MAX_CITATIONS = 10**9
_MAX_ITEMS = 5000  # authors, keywords or affiliations of one paper


def matches(path: Path) -> bool:
    return path.name.endswith((".jsonl", ".jsonl.gz"))


def read_export(path: Path) -> Iterator[Record | BadRecord]:
    """Records of an export file (`.jsonl` or `.jsonl.gz`); `index` of a BadRecord is the line number."""
    source = str(path)
    lines = _read_lines(path)
    if not any(line.strip() for line in lines):
        raise SourceError(source, "the file is empty")
    first_line: dict[str, int] = {}  # paper key → the line that has it
    resolved: dict[tuple[str, str, str, str], Affiliation] = {}  # a file repeats its strings
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield BadRecord(source, number, f"not JSON ({json_problem(exc, line=False)})")
            continue
        except RecursionError:
            yield BadRecord(source, number, "not JSON (nested too deeply)")
            continue
        try:
            record = Record.from_json(checked_export_line(data))
        except (TypeError, ValueError) as exc:
            yield BadRecord(source, number, str(exc))
            continue
        key, said = _paper_of(record)
        if key in first_line:
            yield BadRecord(source, number, f"{said} line {first_line[key]}: one paper on two "
                            f"lines; line {first_line[key]} is stored, not line {number}")
            continue
        first_line[key] = number
        record.source_index = number
        _resolve_again(record, resolved)
        yield record


def _resolve_again(record: Record, seen: dict[tuple[str, str, str, str], Affiliation]) -> None:
    """The record's affiliations as the current resolver maps them (in place).

    The stored name is the paperlists norm for the slots that had one (a curated name
    otherwise, which resolves to itself); an affiliation the resolver now finds no institution
    in (a postal address) keeps its raw string without a slug."""
    for slot in record.authors:
        if slot.affiliations:
            slot.affiliations = [_again(a, seen) for a in slot.affiliations]
    if record.paper_affiliations:
        record.paper_affiliations = [_again(a, seen) for a in record.paper_affiliations]


def _again(aff: Affiliation, seen: dict[tuple[str, str, str, str], Affiliation]) -> Affiliation:
    key = (aff.raw, aff.slug, aff.name, aff.country)
    known = seen.get(key)
    if known is None:
        now = resolve_affiliation(aff.raw, aff.name, "", aff.country) if aff.raw or aff.name else aff
        known = seen[key] = aff if now.slug == aff.slug else now
    return known


def _paper_of(record: Record) -> tuple[str, str]:
    """(the paper key the store files a line under, how to say two lines share it).

    As `Store._assign_key` does for the first line of an id: its key, else its venue, year and
    forum id or id; a line without any id is known by its title and authors (`content_key`)."""
    if record.key:
        return record.key, f"key '{record.key}' is already on"
    for name in ("forum_id", "source_id"):
        ident = getattr(record, name)
        if ident:
            key = paper_key(record.venue, record.year, ident)
            return key, f"paper '{key}' (from venue, year and {name}) is already on"
    return content_key(record), "the same venue, year, title and authors, without an id, are on"


def checked_export_line(data: Any) -> dict[str, Any]:
    """The line with null texts as "" (hand-written files use null); `ValueError` naming the
    first field that has the wrong shape."""
    if not isinstance(data, dict):
        raise ValueError(f"line is {_kind(data)}, expected a JSON object")
    data = {k: ("" if v is None and k in _TEXT_FIELDS else v) for k, v in data.items()}
    for name in _TEXT_FIELDS:
        _text(data, name)
    venue = data.get("venue")
    if not isinstance(venue, str) or not _VENUE.fullmatch(venue):
        raise ValueError("field 'venue' must be a lower-case venue slug such as 'iclr' "
                         f"(got {_shown(venue)})")
    year = data.get("year")
    if isinstance(year, str) and year.strip().isdigit():
        year = data["year"] = int(year)
    if not isinstance(year, int) or isinstance(year, bool) or not _MIN_YEAR <= year <= _MAX_YEAR:
        raise ValueError(f"field 'year' must be a year between {_MIN_YEAR} and {_MAX_YEAR} "
                         f"(got {_shown(data.get('year'))})")
    if not (data.get("title") or "").strip():
        raise ValueError("field 'title' must be a non-empty string")
    if "source_id" not in data:  # the one field `Record` has no default for
        raise ValueError("field 'source_id' is missing (the paper's id in its source; "
                         "\"\" or null when it has none)")
    key = data.get("key") or ""
    if key and not _is_key(key):
        raise ValueError("field 'key' must look like 'iclr2024:abc123' (no spaces, slashes or "
                         "control or invisible characters, at most 200 characters after the "
                         f"colon; got {_shown(key)})")
    for name in ("source_id", "forum_id"):
        if data.get(name) and not usable_id(data[name]):
            raise ValueError(f"field '{name}' must be an id without spaces, slashes, '?', '#', '%', "
                             "backslashes or control or invisible characters, at most 200 "
                             f"characters (got {_shown(data[name])})")
    citations = data.get("citations")
    if citations is not None and (not isinstance(citations, int) or isinstance(citations, bool)
                                  or not 0 <= citations <= _MAX_CITATIONS):
        raise ValueError(f"field 'citations' must be a count or null (got {_shown(citations)})")
    if not isinstance(data.get("authors_ordered", True), bool):
        raise ValueError("field 'authors_ordered' must be true or false")
    for i, slot in enumerate(_items(data, "authors")):
        where = f"authors[{i}]"
        if not isinstance(slot, dict):
            raise ValueError(f"field '{where}' must be an object with a 'name'")
        unknown = sorted(set(slot) - {"name", "profile_id", "alias_profile_id", "affiliations"})
        if unknown:
            raise ValueError(f"field '{where}' has unknown field(s): {', '.join(unknown)}")
        if not isinstance(slot.get("name"), str) or not slot["name"].strip():
            raise ValueError(f"field '{where}.name' must be a non-empty string")
        for name in ("name", "profile_id", "alias_profile_id"):
            _text(slot, name, f"{where}.{name}")
        _affiliations(slot, "affiliations", f"{where}.affiliations")
    _affiliations(data, "paper_affiliations", "paper_affiliations")
    for i, keyword in enumerate(_items(data, "keywords")):
        if not isinstance(keyword, str) or not keyword.strip():
            raise ValueError(f"field 'keywords[{i}]' must be a non-empty string")
        _check(f"keywords[{i}]", keyword)
    links = data.get("links") or {}
    if not isinstance(links, dict):
        raise ValueError("field 'links' must be an object of name → URL")
    for name, url in links.items():
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"field 'links.{name}' must be an http(s) URL (got {_shown(url)})")
        _check(f"links.{name}", name)
        _check(f"links.{name}", url)
    return data


def _is_key(key: str) -> bool:
    venue_year, colon, ident = key.partition(":")
    return bool(colon and _KEY_PREFIX.fullmatch(venue_year) and usable_id(ident))


def _text(data: dict[str, Any], name: str, where: str | None = None) -> None:
    value = data.get(name)
    if value is None:
        return
    if not isinstance(value, str):
        raise ValueError(f"field '{where or name}' is {_kind(value)}, expected a string")
    _check(where or name, value)


def _check(where: str, value: str) -> None:
    problem = text_problem(where, value)
    if problem:
        raise ValueError(problem)


def _items(data: dict[str, Any], name: str, where: str | None = None) -> list[Any]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"field '{where or name}' is {_kind(value)}, expected a list")
    if len(value) > _MAX_ITEMS:
        raise ValueError(f"field '{where or name}' has {len(value):,} entries; "
                         f"at most {_MAX_ITEMS:,} are taken")
    return value


def _affiliations(data: dict[str, Any], name: str, where: str) -> None:
    """Check the affiliations of a paper or an author slot; null parts become "" (in place)."""
    for i, aff in enumerate(_items(data, name, where)):
        if isinstance(aff, str):
            _check(f"{where}[{i}]", aff)
            continue
        if not isinstance(aff, dict):
            raise ValueError(f"field '{where}[{i}]' must be a string or an object")
        unknown = sorted(set(aff) - set(_AFFILIATION_FIELDS))
        if unknown:
            raise ValueError(f"field '{where}[{i}]' has unknown field(s): {', '.join(unknown)}")
        for part in _AFFILIATION_FIELDS:
            _text(aff, part, f"{where}[{i}].{part}")
            if aff.get(part, "") is None:
                aff[part] = ""
        if not isinstance(aff.get("raw"), str) or not aff["raw"].strip():
            # the one part `Affiliation` has no default for; null failed the file's transaction
            raise ValueError(f"field '{where}[{i}].raw' must be a non-empty string "
                             "(the affiliation as printed)")


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "a number",
             float: "a number", bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_lines(path: Path) -> list[str]:
    """All lines, decoded, so a truncated or mis-encoded file fails before anything is written."""
    try:
        with _open(path) as fh:
            blob = fh.read()
    except FileNotFoundError:
        raise SourceError(str(path), "no such file") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise SourceError(str(path), f"damaged or truncated gzip file ({exc})") from None
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    # JSON Lines ends lines with \n alone: U+2028, \x85 and friends may stand raw in a string
    # (the export writes them so), and str.splitlines() would cut a record there. Decoded line
    # by line: the whole file as one str takes 4 bytes a character once one character needs
    # them (914 MB for the bundled corpus's 229 MB), all of it fresh memory
    lines: list[str] = []
    offset = 0
    if blob.startswith(codecs.BOM_UTF8):  # some editors save UTF-8 so: not part of line 1
        blob, offset = blob[len(codecs.BOM_UTF8):], len(codecs.BOM_UTF8)
    try:
        for raw in io.BytesIO(blob):  # split at b"\n" only, which no UTF-8 sequence contains
            lines.append(raw.decode("utf-8").rstrip("\n").rstrip("\r"))
            offset += len(raw)
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), f"not valid UTF-8 (byte {offset + exc.start})") from None
    if not blob or blob.endswith(b"\n"):
        lines.append("")  # as str.split gives: the line after the last newline
    return lines


def _open(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")
