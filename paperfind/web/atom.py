"""Atom (RFC 4287) documents of paper lists, built as XML trees, never as strings.

Any text a user typed (a query in a feed's title) or a source wrote (titles, abstracts) goes
through `xml_text`: XML 1.0 has no way to write most control characters, escaped or not, so
they are dropped; ElementTree escapes the rest (`<`, `&`, quotes).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from paperfind import __version__
from paperfind.catalog.dates import venue_year_date

ATOM_NS = "http://www.w3.org/2005/Atom"
ATOM_TYPE = "application/atom+xml"
# what XML 1.0 cannot hold: C0 controls but tab, newline and return; surrogates; U+FFFE/FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# a feed of no papers is dated at the epoch: nothing in it is newer than anything
NOTHING_DATED = datetime(1970, 1, 1, tzinfo=timezone.utc)


def xml_text(text: str) -> str:
    return _NOT_XML.sub("", text or "")


def rfc3339(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def paper_date(card: dict[str, Any]) -> datetime:
    """An entry's `<updated>`: its venue-year's stated date (paperfind.catalog.dates)."""
    return venue_year_date(card.get("venue", ""), int(card.get("year") or 1))


def newest_date(cards: list[dict[str, Any]]) -> datetime:
    return max((paper_date(c) for c in cards), default=NOTHING_DATED)


@dataclass(frozen=True)
class FeedMeta:
    """What a feed says of itself; URLs absolute. `feed_id` is the feed's own URL without its
    language, so the two languages' feeds of a list are one feed to a reader."""

    feed_id: str
    title: str
    self_url: str
    page_url: str
    lang: str


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_"): v for k, v in attrs.items()})
    if text is not None:
        element.text = xml_text(text)
    return element


def atom_document(meta: FeedMeta, cards: list[dict[str, Any]], base: str) -> bytes:
    """The feed of `cards` (paperfind.cards' cards, in list order), links under `base`."""
    feed = ET.Element("feed", {"xmlns": ATOM_NS, "xml:lang": "zh-CN" if meta.lang == "zh" else "en"})
    _sub(feed, "id", meta.feed_id)
    _sub(feed, "title", meta.title)
    _sub(feed, "updated", rfc3339(newest_date(cards)))
    _sub(feed, "link", rel="self", type=ATOM_TYPE, href=meta.self_url)
    _sub(feed, "link", rel="alternate", type="text/html", href=meta.page_url)
    # the feed's author stands in for a paper's when the source named none (RFC 4287 4.1.1)
    _sub(_sub(feed, "author"), "name", "paperfind")
    _sub(feed, "generator", "paperfind", version=__version__)
    for card in cards:
        _entry(feed, card, base)
    ET.indent(feed, space=" ")
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


def _entry(feed: ET.Element, card: dict[str, Any], base: str) -> None:
    entry = _sub(feed, "entry")
    page = base + "/papers/" + quote(card["key"], safe=":")
    _sub(entry, "id", page)
    _sub(entry, "title", card["title"])
    _sub(entry, "updated", rfc3339(paper_date(card)))
    for person in card.get("authors", []):
        author = _sub(entry, "author")
        _sub(author, "name", person["name"])
        if person.get("id"):
            _sub(author, "uri", base + "/authors/" + quote(person["id"], safe=""))
    where = f"{card.get('venue_name') or card.get('venue', '')} {card['year']}"
    _sub(entry, "category", term=xml_text(card.get("venue", "")), label=xml_text(where),
         scheme=base + "/venues/")
    _sub(entry, "link", rel="alternate", type="text/html", href=page)
    pdf = (card.get("links") or {}).get("pdf")
    if pdf:
        _sub(entry, "link", rel="related", type="application/pdf", href=xml_text(pdf), title="PDF")
    if card.get("abstract"):
        _sub(entry, "summary", card["abstract"], type="text")
    standing = " · ".join(p for p in (where, card.get("status", ""), card.get("area", "")) if p)
    _sub(entry, "content", standing, type="text")
