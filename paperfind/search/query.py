"""The query language, parsed forgivingly: whatever a user types is a valid query.

Forms: plain words, "quoted phrases", `-word` / `-"phrase"` / `NOT word` to exclude, `OR`
between words (any word may match instead of most), and fields `author:`, `title:`, `venue:`,
`year:2019`, `year:2017..2019`, `inst:`, `area:`, `status:`. A field value is one word or a
quoted string. Nothing raises: an unbalanced quote quotes to the end, an unknown field or a
stray operator is read as text or dropped, an impossible year is ignored, and the input is
cut at `paperfind.limits.MAX_QUERY_CHARS`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from paperfind.limits import MAX_QUERY_CHARS

MAX_ITEMS = 64
FIELDS = ("author", "title", "venue", "year", "inst", "area", "status")
FIELD_ALIASES = {"au": "author", "authors": "author", "ti": "title", "institution": "inst",
                 "affiliation": "inst", "aff": "inst", "years": "year", "decision": "status"}
_YEAR = re.compile(r"^(\d{4})?\s*(\.\.|-|–|~|to)?\s*(\d{4})?$")
_YEAR_CMP = re.compile(r"^(>=|<=|>|<)(\d{4})$")


@dataclass
class ParsedQuery:
    raw: str
    words: list[str] = field(default_factory=list)  # free text, in order (phrase words included)
    phrases: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)  # words or phrases
    authors: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    venues: list[str] = field(default_factory=list)
    insts: list[str] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    year_from: int | None = None
    year_to: int | None = None
    any_of: bool = False  # an OR was used: any word may match

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def has_text(self) -> bool:
        return bool(self.words or self.titles or self.authors)


def _clean(raw: object) -> str:
    text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
    text = text[:MAX_QUERY_CHARS]
    # control and format characters (NUL, zero-width, bidi marks) become spaces
    if text.isprintable():
        return text
    return "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)


def _lex(text: str) -> list[tuple[str, str, bool]]:
    """Split into (prefix, value, quoted) items: prefix is '', '-', or 'field:'."""
    items: list[tuple[str, str, bool]] = []
    i, n = 0, len(text)
    while i < n and len(items) < MAX_ITEMS:
        if text[i].isspace():
            i += 1
            continue
        prefix = ""
        m = re.match(r"([A-Za-z]+):", text[i:])
        if m and (m.group(1).lower() in FIELDS or m.group(1).lower() in FIELD_ALIASES):
            name = m.group(1).lower()
            prefix = FIELD_ALIASES.get(name, name) + ":"
            i += m.end()
        elif text[i] == "-" and i + 1 < n and not text[i + 1].isspace():
            prefix = "-"
            i += 1
        if i < n and text[i] in "\"“”":
            end = re.search("[\"“”]", text[i + 1:])
            stop = i + 1 + end.start() if end else n
            items.append((prefix, text[i + 1:stop].strip(), True))
            i = stop + 1
            continue
        m = re.match(r"\S+", text[i:])
        value = m.group(0) if m else ""
        items.append((prefix, value, False))
        i += len(value)
    return items


def _parse_years(value: str, q: ParsedQuery) -> None:
    value = value.strip().replace(" ", "")
    cmp = _YEAR_CMP.match(value)
    if cmp:
        year = int(cmp.group(2))
        op = cmp.group(1)
        if op in (">", ">="):
            q.year_from = year + (op == ">")
        else:
            q.year_to = year - (op == "<")
        return
    m = _YEAR.match(value)
    if not m or not (m.group(1) or m.group(3)):
        return
    lo = int(m.group(1)) if m.group(1) else None
    hi = int(m.group(3)) if m.group(3) else None
    if not m.group(2):
        hi = lo = lo if lo is not None else hi
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    q.year_from, q.year_to = lo, hi


def parse_query(raw: object) -> ParsedQuery:
    """Parse user input into a `ParsedQuery`; never raises."""
    text = _clean(raw)
    q = ParsedQuery(raw=text)
    negate_next = False
    for prefix, value, quoted in _lex(text):
        if not value:
            continue
        if not quoted and not prefix and value in ("OR", "|", "||"):
            q.any_of = True
            continue
        if not quoted and not prefix and value in ("AND", "&&", "+"):
            continue
        if not quoted and not prefix and value == "NOT":
            negate_next = True
            continue
        if prefix == "-" or negate_next:
            negate_next = False
            if prefix.endswith(":"):
                continue
            q.excluded.append(value)
            continue
        if prefix.endswith(":"):
            name = prefix[:-1]
            if name == "year":
                _parse_years(value, q)
            else:
                target = {"author": q.authors, "title": q.titles, "venue": q.venues,
                          "inst": q.insts, "area": q.areas, "status": q.statuses}[name]
                target.append(value)
            continue
        if quoted:
            q.phrases.append(value)
        q.words.append(value)
    return q
