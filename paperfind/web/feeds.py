"""Which list has which feed, and answering a feed reader's repeated poll cheaply.

A page (or its JSON twin) of a list names its feed: `FEEDS` maps the page's route to the feed's
route and the query parameters the feed keeps (the list's filters; not its page or order: a
feed is the list's first page, newest venue-year first). A feed is validated by an ETag made
of what its body is computed from (the database's and the index's versions, the base URL, the
language, the request, the entries' keys) before the body is built, so a 304 costs the list
only, and by a Last-Modified: the later of its newest entry's stated date and the last ingest.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from paperfind.core import Paperfind
from paperfind.web.atom import ATOM_TYPE
from paperfind.web.twins import LANGUAGE_PARAM, query_string

SEARCH_FILTERS = ("q", "venue", "year", "status", "area", "inst", "institution", "mode", "since",
                  "size")


@dataclass(frozen=True)
class FeedOf:
    """A list's feed: its route (path parameters as in the page's) and the parameters kept."""

    path: str
    keeps: tuple[str, ...]


# page or twin route (without /api) -> its feed
FEEDS: dict[str, FeedOf] = {
    "/": FeedOf("/feeds/search.atom", SEARCH_FILTERS),
    "/search": FeedOf("/feeds/search.atom", SEARCH_FILTERS),
    "/authors/{author_id}": FeedOf("/feeds/authors/{author_id}.atom", ("since",)),
    "/institutions/{slug}": FeedOf("/feeds/institutions/{slug}.atom", ("since", "size")),
    "/venues/{slug}": FeedOf("/feeds/venues/{slug}.atom", ("year", "size")),
    "/areas/{name:path}": FeedOf("/feeds/areas/{name}.atom", ("size",)),
}


def feed_url(request: Request, lang: str | None = None) -> str | None:
    """The feed of the list `request` shows (a page or a JSON twin), relative, or None when it
    shows no list; in `lang` when given (a page's feed is titled in the page's language)."""
    route = request.scope.get("route")
    path = getattr(route, "path", "")
    feed = FEEDS.get(path.removeprefix("/api") or "/")
    if feed is None:
        return None
    url = feed.path
    for name, value in request.path_params.items():
        url = url.replace("{" + name + "}", quote(str(value), safe=":" if name == "key" else ""))
    return url + kept_query(feed, request.query_params.multi_items(), lang)


# a query-string parameter as `urlencode` writes it: its name and value escaped by quote_plus,
# which leaves letters, digits and `_.-~` as they are, writes a space `+` and every other byte
# `%XX` in capitals (never a letter, digit, `_.-~` or space escaped)
AS_URLENCODED = re.compile(r"(?:[A-Za-z0-9_.~+-]|%(?:[01][0-9A-F]|2[1-9A-CF]|3[A-F]|40|5[B-E]|60"
                           r"|7[B-DF]|[89A-F][0-9A-F]))+=(?:[A-Za-z0-9_.~+-]|%(?:[01][0-9A-F]"
                           r"|2[1-9A-CF]|3[A-F]|40|5[B-E]|60|7[B-DF]|[89A-F][0-9A-F]))*")


def search_feed_url(pairs: list[tuple[str, str]], written: list[str] | None = None) -> str:
    """The feed of a search asked with the query parameters `pairs` (what `feed_url` gives a
    request of /api/search, without the request: its plain answer has none, search_route).

    `written`: the query string's own `name=value` segments, one per pair. Those the feed keeps
    are its query as they are when each is written as `urlencode` would write its pair (a search
    box's request, nearly always): the same text, without decoding and escaping the query again
    (~20 µs of a request: issue 33, web35); otherwise the pairs are encoded."""
    feed = FEEDS["/search"]
    if written is not None:
        kept = [segment for (name, _), segment in zip(pairs, written, strict=True) if name in feed.keeps]
        if all(AS_URLENCODED.fullmatch(segment) for segment in kept):
            return feed.path + ("?" + "&".join(kept) if kept else "")
    return feed.path + kept_query(feed, pairs)


def kept_query(feed: FeedOf, pairs: list[tuple[str, str]], lang: str | None = None) -> str:
    """The query string of `feed`: the parameters of `pairs` it keeps, then `lang` if given."""
    kept: list[tuple[str, object]] = [(k, v) for k, v in pairs if k in feed.keeps]
    if lang:
        kept.append((LANGUAGE_PARAM, lang))
    return query_string(kept)


def base_url(pf: Paperfind, request: Request) -> str:
    """Where the feed's links point: the configured public URL, else this request's base."""
    return (pf.settings.public_url or str(request.base_url)).rstrip("/")


def entity_tag(pf: Paperfind, request: Request, lang: str, keys: list[str]) -> str:
    """The feed's ETag: a hash of everything its body is computed from."""
    store = pf.store()
    parts = [store.data_version(), store.meta("people_version"), pf.searcher().live.generation(),
             base_url(pf, request), lang, request.url.path, sorted(request.query_params.multi_items()),
             keys]
    return '"' + hashlib.sha256(repr(parts).encode()).hexdigest()[:32] + '"'


def last_modified(pf: Paperfind, newest_entry: datetime) -> datetime:
    """The feed's Last-Modified: the later of its newest entry's stated date and the store's
    last ingest, so a client validating by date alone sees a paper added to a venue-year the
    feed already holds (its dates do not move; the ETag moves too)."""
    ingested = pf.store().last_ingested()
    return max(newest_entry, ingested) if ingested is not None else newest_entry


def _tags(header: str) -> set[str]:
    """The entity tags of an If-None-Match, weak ones compared as strong (RFC 9110 13.1.2)."""
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def not_modified(request: Request, etag: str, last_modified: datetime) -> bool:
    """Whether the client's copy is current: If-None-Match decides when sent (RFC 9110 13.2.2),
    else If-Modified-Since (a date at or after the feed's newest entry's)."""
    if_none_match = request.headers.get("if-none-match")
    if if_none_match is not None:
        tags = _tags(if_none_match)
        return "*" in tags or etag in tags
    since = request.headers.get("if-modified-since")
    if not since:
        return False
    try:
        when = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False  # a date we cannot read validates nothing
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return last_modified <= when


def feed_response(request: Request, etag: str, last_modified: datetime,
                  body: "bytes | None") -> Response:
    """The feed (`body`), or a 304 without one when `body` is None."""
    headers = {"etag": etag, "last-modified": format_datetime(last_modified, usegmt=True),
               "cache-control": "no-cache"}
    if body is None:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=f"{ATOM_TYPE}; charset=utf-8", headers=headers)
