"""Result lists and author bibliographies as BibTeX and CSV files.

Papers that came with BibTeX from their source keep it verbatim; the others get an entry built
from what we know, keyed by the paper key so entries never collide within one export.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Iterable

from paperfind.cards import rating_fields, standing

# the review scores last, so that files read by column position before they came still read
CSV_COLUMNS = ("key", "title", "authors", "venue", "year", "status", "area", "institutions",
               "citations", "url", "rating", "review_count")
_UNSAFE_KEY = re.compile(r"[^A-Za-z0-9_:\-.]")
_CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def bibtex_entry(paper: dict[str, Any]) -> str:
    """The paper's own BibTeX when it has one, else an entry from its fields: @inproceedings
    for a paper the venue accepted (or a published list without decisions), @misc "Submitted
    to ICLR 2022" for one under review, rejected or withdrawn, which no proceedings hold."""
    own = (paper.get("bibtex") or "").strip()
    if own:
        return own
    names = [a["name"] if isinstance(a, dict) else str(a) for a in paper.get("authors", [])]
    venue = paper.get("venue_name") or paper.get("venue", "")
    accepted = standing(paper.get("status") or "") == 0
    fields = [("title", paper.get("title", "")), ("author", " and ".join(names)),
              ("booktitle" if accepted else "note",
               venue if accepted else f"Submitted to {venue} {paper.get('year', '')}".strip()),
              ("year", str(paper.get("year", "")))]
    url = (paper.get("links") or {}).get("site") or (paper.get("links") or {}).get("openreview")
    if url:
        fields.append(("url", url))
    body = ",\n".join(f"  {name} = {{{_bibtex_value(value)}}}" for name, value in fields if value)
    kind = "inproceedings" if accepted else "misc"
    return f"@{kind}{{{_UNSAFE_KEY.sub('_', paper['key'])},\n{body}\n}}"


def _bibtex_value(text: str) -> str:
    """Drop braces that do not balance, which would end the field early and break the file."""
    depth, out = 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    result = "".join(out)
    return result + "}" * depth


def to_bibtex(papers: Iterable[dict[str, Any]]) -> str:
    return "\n\n".join(bibtex_entry(p) for p in papers) + "\n"


def to_csv(papers: Iterable[dict[str, Any]], base_url: str = "") -> str:
    """One row per paper; cells that a spreadsheet would run as a formula are quoted with '.
    A paper's link starts with `base_url` (the configured public URL; "" writes it relative)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for p in papers:
        authors = "; ".join(a["name"] if isinstance(a, dict) else str(a) for a in p.get("authors", []))
        row = [p.get("key", ""), p.get("title", ""), authors, p.get("venue_name", ""),
               p.get("year", ""), p.get("status", ""), p.get("area", ""),
               "; ".join(p.get("institutions", [])),
               "" if p.get("citations") is None else p.get("citations"),
               f"{base_url}/papers/{p.get('key', '')}"]
        scores = rating_fields(p.get("reviews"))  # the card's figures, from the stored scores
        row += ["" if scores[name] is None else scores[name] for name in ("rating", "review_count")]
        writer.writerow([_csv_cell(v) for v in row])
    return out.getvalue()


def _csv_cell(value: object) -> object:
    # spreadsheets skip leading spaces before a formula (" =HYPERLINK(...)" runs too)
    if isinstance(value, str) and (value.startswith(_CSV_FORMULA_START)
                                   or value.lstrip().startswith(_CSV_FORMULA_START)):
        return "'" + value
    return value
