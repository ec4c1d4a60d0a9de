"""Lists taken from the conference virtual sites: no OpenReview ids, joined by title.

* `neurips2024-jingshi-yang/nips2024.json`: JSON Lines, authors with one affiliation each;
  strings carry HTML entities and Python-style `\\xfc` escapes.
* `icml2024-events-lukasmosser/ICML_2024_Events.json`: the ICML virtual-site export,
  with abstracts; workshops, tutorials and talks are not papers and are skipped.
* `neurips2025-bsantraigi/neurips_2025_full_analysis.tsv`: tab-separated with a header;
  only the titles and authors are real metadata (the other columns are derived).
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path
from typing import Iterator

from paperfind.catalog.venues import normalize_status
from paperfind.ingest.extra import build
from paperfind.ingest.extra.files import read_cells, read_json_array, read_json_lines
from paperfind.model import BadRecord, Record
from paperfind.text.names import split_authors

_PY_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")
PAPER_TYPES = {"poster", "oral", "spotlight", "paper"}


def _unescape(value: object) -> str:
    """Undo the `\\xfc` escapes a Python `repr` left in the strings, and HTML entities."""
    if not isinstance(value, str):
        return ""
    value = value.replace("\\\\", "\\")  # LaTeX backslashes come doubled: `$\\\\alpha$`
    return html.unescape(_PY_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), value))


def matches_jingshi(path: Path) -> bool:
    return path.parent.name == "neurips2024-jingshi-yang" and path.name.startswith("nips2024.json")


def read_jingshi(path: Path) -> Iterator[Record | BadRecord]:
    for item in read_json_lines(path):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, obj = item
        people = obj.get("authors") if isinstance(obj, dict) else None
        if not isinstance(people, list):
            yield BadRecord(str(path), index, "field 'authors' is not a list")
            continue
        people = [p for p in people if isinstance(p, dict)]
        yield build.new_record(
            path, index, "nips", 2024, _unescape(obj.get("title")), source_id="",
            authors=build.plain_authors([_unescape(p.get("name")) for p in people],
                                        [_unescape(p.get("affiliation")) for p in people]))


def matches_events(path: Path) -> bool:
    return path.parent.name == "icml2024-events-lukasmosser" and path.name.startswith("ICML_2024_Events")


def read_events(path: Path) -> Iterator[Record | BadRecord]:
    for index, obj in enumerate(read_json_array(path)):
        if not isinstance(obj, dict):
            yield BadRecord(str(path), index, "not a JSON object")
            continue
        kind = str(obj.get("type") or "")
        if kind.casefold() not in PAPER_TYPES:
            yield BadRecord(str(path), index, f"not a paper: a {kind or 'untyped'} event")
            continue
        site = str(obj.get("virtualsite_url") or "").replace("//virtual", "/virtual")
        yield build.new_record(
            path, index, "icml", 2024, obj.get("name"), source_id="",
            abstract=build.text(obj.get("abstract")),
            authors=build.plain_authors(split_authors(obj.get("speakers/authors"))),
            links={"site": site} if site else {})


def matches_bsantraigi(path: Path) -> bool:
    return path.parent.name == "neurips2025-bsantraigi" and ".tsv" in path.name


def _author_list(raw: str, fallback: str) -> list[str]:
    try:
        value = ast.literal_eval(raw) if raw.strip().startswith("[") else None
    except (ValueError, SyntaxError):
        value = None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return split_authors(fallback)


def read_bsantraigi(path: Path) -> Iterator[Record | BadRecord]:
    for item in read_cells(path, "\t", ("paper_id", "name", "type", "speakers/authors")):
        if isinstance(item, BadRecord):
            yield item
            continue
        index, cell = item
        kind = cell["type"].strip()
        if kind.casefold() not in PAPER_TYPES:
            yield BadRecord(str(path), index, f"not a paper: a {kind or 'untyped'} event")
            continue
        names = _author_list(cell.get("author_list", ""), cell["speakers/authors"])
        yield build.new_record(
            path, index, "nips", 2025, cell.get("clean_name") or cell["name"],
            source_id=cell["paper_id"].strip(), authors=build.plain_authors(names),
            status=normalize_status(kind))
