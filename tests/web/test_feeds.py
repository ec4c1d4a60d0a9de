"""The Atom feeds, read by a real feed parser (feedparser) from the real test portal: every kind
of list has one, it holds the first page of its list, it answers a repeated poll with 304, it
has the elements RFC 4287 requires, and hostile query text still makes well-formed XML."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import datetime, timezone
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import quote

import feedparser
import httpx
import pytest

from paperfind.catalog.dates import venue_year_date
from paperfind.core import Paperfind
from tests.web.conftest import GPQA, PAGE_KINDS, portal_settings, serve

A = "{http://www.w3.org/2005/Atom}"
AREA = "Knowledge Representation and Reasoning"
# each kind of feed, and the JSON list (route, parameters, where its cards are) it must equal
FEEDS = {
    "search": ("/feeds/search.atom", {"q": "learning"},
               "/api/search", {"q": "learning", "sort": "date"}, "results"),
    "search-filtered": ("/feeds/search.atom", {"q": "learning", "venue": ["colm", "corl"], "since": "2023"},
                        "/api/search", {"q": "learning", "venue": ["colm", "corl"], "since": "2023",
                                        "sort": "date"}, "results"),
    "search-relevance": ("/feeds/search.atom", {"q": "benchmark", "sort": "relevance", "size": "5"},
                         "/api/search", {"q": "benchmark", "size": "5"}, "results"),
    "author": ("/feeds/authors/andreas-geiger.atom", {}, "/api/authors/andreas-geiger", {}, "papers"),
    "author-since": ("/feeds/authors/andreas-geiger.atom", {"since": "2024"},
                     "/api/authors/andreas-geiger", {"since": "2024"}, "papers"),
    "institution": ("/feeds/institutions/google.atom", {}, "/api/institutions/google", {}, "papers"),
    "institution-since": ("/feeds/institutions/google.atom", {"since": "2024", "size": "5"},
                          "/api/institutions/google", {"since": "2024", "size": "5"}, "papers"),
    "venue": ("/feeds/venues/colm.atom", {}, "/api/venues/colm", {}, "papers"),
    "venue-year": ("/feeds/venues/corl.atom", {"year": "2022"}, "/api/venues/corl", {"year": "2022"},
                   "papers"),
    "area": (f"/feeds/areas/{quote(AREA)}.atom", {}, f"/api/areas/{quote(AREA)}", {}, "papers"),
}


def parsed(response: httpx.Response) -> feedparser.FeedParserDict:
    assert response.status_code == 200, response.text[:300]
    assert response.headers["content-type"] == "application/atom+xml; charset=utf-8"
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


@pytest.mark.parametrize("kind", sorted(FEEDS))
def test_every_kind_of_feed_holds_the_first_page_of_its_list(portal, kind):
    feed_path, feed_params, list_path, list_params, cards = FEEDS[kind]
    feed = parsed(portal.get(feed_path, params=feed_params))
    listed = portal.get(list_path, params=list_params).json()[cards][:50]  # an author's feed: 50
    assert listed, kind
    assert [e.id for e in feed.entries] == [f"{portal.url}/papers/{quote(c['key'], safe=':')}"
                                            for c in listed]
    for entry, card in zip(feed.entries, listed):
        assert entry.title == card["title"]
        assert [a.name for a in entry.get("authors", [])] == [p["name"] for p in card["authors"]] \
            or not card["authors"]
        assert entry.link == entry.id  # the paper page is the alternate link
        pdfs = [link.href for link in entry.links if link.type == "application/pdf"]
        assert pdfs == ([card["links"]["pdf"]] if card["links"].get("pdf") else [])
        assert entry.get("summary", "") == card["abstract"]
        assert entry.tags[0].term == card["venue"] and str(card["year"]) in entry.tags[0].label
        assert entry.updated_parsed[:3] == venue_year_date(card["venue"], card["year"]).timetuple()[:3]
    newest = max(venue_year_date(c["venue"], c["year"]) for c in listed)
    assert feed.feed.updated_parsed[:3] == newest.timetuple()[:3]
    assert feed.feed.links[0].rel == "self" and feed.feed.links[0].href.startswith(portal.url + "/feeds/")


def test_since_and_date_give_the_same_list_on_every_route(portal):
    every = portal.get("/api/authors/andreas-geiger").json()["papers"]
    recent = portal.get("/api/authors/andreas-geiger", params={"since": 2024}).json()["papers"]
    assert recent == [p for p in every if p["year"] >= 2024] and 0 < len(recent) < len(every)
    inst = portal.get("/api/institutions/google", params={"since": 2024, "size": 100}).json()
    whole = portal.get("/api/institutions/google", params={"size": 100}).json()
    assert inst["papers"] == [p for p in whole["papers"] if p["year"] >= 2024]
    assert inst["paging"]["total"] == len(inst["papers"]) < whole["paging"]["total"]
    base = {"q": "learning", "size": 50}
    date = portal.get("/api/search", params={**base, "sort": "date"}).json()
    newest = portal.get("/api/search", params={**base, "sort": "newest"}).json()
    assert [r["key"] for r in date["results"]] == [r["key"] for r in newest["results"]]
    years = [r["year"] for r in date["results"]]
    assert years == sorted(years, reverse=True)
    since = portal.get("/api/search", params={**base, "sort": "date", "since": 2024}).json()
    assert since["results"] and {r["year"] for r in since["results"]} == {y for y in years if y >= 2024}
    assert since["filters"]["since"] == ["2024"]
    # the query's own years are cut by since too
    both = portal.get("/api/search", params={"q": "learning year:2021..2025", "since": 2024}).json()
    assert both["results"] and min(r["year"] for r in both["results"]) >= 2024


def test_a_second_poll_with_the_validators_gets_304(portal):
    first = portal.get("/feeds/search.atom", params={"q": "learning"})
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    again = portal.get("/feeds/search.atom", params={"q": "learning"}, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    by_date = portal.get("/feeds/search.atom", params={"q": "learning"},
                         headers={"if-modified-since": modified})
    assert by_date.status_code == 304 and by_date.content == b""
    older = format_datetime(datetime(2001, 1, 1, tzinfo=timezone.utc), usegmt=True)
    assert portal.get("/feeds/search.atom", params={"q": "learning"},
                      headers={"if-modified-since": older}).status_code == 200
    # If-None-Match decides when both are sent, and a stale tag gets the feed
    stale = portal.get("/feeds/search.atom", params={"q": "learning"},
                       headers={"if-none-match": '"stale"', "if-modified-since": modified})
    assert stale.status_code == 200 and stale.content == first.content
    for path, params in [(FEEDS[k][0], FEEDS[k][1]) for k in FEEDS]:
        response = portal.get(path, params=params)
        assert response.headers["etag"] and response.headers["last-modified"], path
        assert portal.get(path, params=params, headers={"if-none-match": response.headers["etag"]}
                          ).status_code == 304, path
    # another list, another tag
    tags = {portal.get("/feeds/search.atom", params=p).headers["etag"]
            for p in ({"q": "learning"}, {"q": "learning", "since": 2024}, {"q": "learning", "size": 3})}
    assert len(tags) == 3


def test_the_feed_has_every_element_rfc_4287_requires(portal):
    """4.1.1: a feed has one id, title and updated, and authors unless every entry has them;
    4.1.2: an entry has one id, title and updated, an author (its own or the feed's), and a
    summary where it has no content with an alternate link... (here: both)."""
    body = portal.get("/feeds/search.atom", params={"q": "learning", "size": 30}).content
    root = ET.fromstring(body)
    assert root.tag == A + "feed"
    for name in ("id", "title", "updated"):
        assert len(root.findall(A + name)) == 1, name
    assert root.find(A + "author/" + A + "name") is not None
    rels = {link.get("rel"): link for link in root.findall(A + "link")}
    assert rels["self"].get("type") == "application/atom+xml" and rels["alternate"].get("type") == "text/html"
    assert rels["alternate"].get("href") == f"{portal.url}/?q=learning&size=30&sort=date"
    assert root.get("{http://www.w3.org/XML/1998/namespace}lang") in ("zh-CN", "en")
    entries = root.findall(A + "entry")
    assert len(entries) == 30
    for entry in entries:
        for name in ("id", "title", "updated"):
            assert len(entry.findall(A + name)) == 1, name
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT00:00:00Z", entry.find(A + "updated").text)
        alternates = [link for link in entry.findall(A + "link") if link.get("rel") == "alternate"]
        assert len(alternates) == 1 and alternates[0].get("href") == entry.find(A + "id").text
    assert root.find(A + "updated").text == max(e.find(A + "updated").text for e in entries)


@pytest.mark.parametrize("q", ['<script>alert("x")</script> & &amp; ]]>', "graph\x00\x01\x0b\x1f\ufffe networks",
                               "联邦学习 " * 400 + "<&>", "x" * 20_000],
                         ids=["markup", "control-characters", "long-chinese", "very-long"])
def test_hostile_query_text_gives_well_formed_xml(portal, q):
    response = portal.get("/feeds/search.atom", params={"q": q, "venue": "<b>&"})
    feed = parsed(response)
    ET.fromstring(response.content)  # well-formed by the standard library's parser too
    assert "<script>" not in response.text and "\x01" not in response.text
    title = feed.feed.title
    assert len(title) < 1200
    if q.startswith("<script>"):
        assert '<script>alert("x")</script> & &amp; ]]>' in title and "venue:<b>&" in title


def test_feeds_refuse_what_the_api_refuses(portal):
    unknown = portal.get("/feeds/search.atom", params={"q": "x", "limit": 5})
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_parameter"
    assert "'size'" in unknown.json()["error"]["message"]
    assert portal.get("/feeds/authors/andreas-geiger.atom", params={"page": 2}).json()["error"]["code"] \
        == "unknown_parameter"
    for path, params, name in [("/feeds/search.atom", {"since": "last year"}, "since"),
                               ("/feeds/search.atom", {"sort": "random"}, "sort"),
                               ("/feeds/institutions/google.atom", {"since": 1800}, "since"),
                               ("/feeds/venues/colm.atom", {"lang": "fr"}, "lang")]:
        bad = portal.get(path, params=params)
        assert bad.status_code == 422 and name in bad.json()["error"]["message"], path
    for path in ("/feeds/authors/no-such-person.atom", "/feeds/institutions/atlantis.atom",
                 "/feeds/venues/nowhere.atom", "/feeds/areas/Alchemy.atom"):
        missing = portal.get(path)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found", path
    assert portal.get("/feeds/venues/colm.atom", params={"year": 1999}).status_code == 404


def test_the_feed_is_titled_in_the_requests_language(portal):
    zh = parsed(httpx.get(portal.url + "/feeds/authors/andreas-geiger.atom", params={"lang": "zh"}))
    en = parsed(httpx.get(portal.url + "/feeds/authors/andreas-geiger.atom", params={"lang": "en"}))
    assert zh.feed.title == "论文检索 · Andreas Geiger 的论文" and en.feed.title == "paperfind · Papers by Andreas Geiger"
    assert zh.feed.id == en.feed.id == f"{portal.url}/feeds/authors/andreas-geiger.atom"
    assert parsed(httpx.get(portal.url + "/feeds/venues/corl.atom", params={"year": 2022, "lang": "en"})
                  ).feed.title == "paperfind · CoRL 2022"
    by_header = parsed(httpx.get(portal.url + "/feeds/search.atom", params={"q": "learning"},
                                 headers={"accept-language": "en-US,en;q=0.9"}))
    assert by_header.feed.title == "paperfind · Search: learning"


@pytest.mark.parametrize("kind", ["search", "author", "institution", "venue", "area"])
def test_every_list_page_and_its_twin_name_the_feed(portal, kind):
    url = PAGE_KINDS[kind] + ("&" if "?" in PAGE_KINDS[kind] else "?") + "lang=en"
    page = httpx.get(portal.url + url)  # not the shared client: ?lang= would set its cookie
    head = re.search(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" href="([^"]+)">',
                     page.text)
    button = re.search(r'<a class="[^"]*feed-button" id="feed-button" href="([^"]+)"', page.text)
    assert head and button and head.group(1) == button.group(1), url
    assert '<span class="feed-icon" aria-hidden="true"></span>Feed</a>' in page.text
    feed = head.group(1).replace("&amp;", "&")
    assert feed.startswith("/feeds/") and feed.endswith("lang=en")
    assert f'<{feed}>; rel="alternate"; type="application/atom+xml"' in page.headers["link"]
    twin = portal.get(re.search(r'type="application/json" href="([^"]+)"', page.text).group(1)
                      .replace("&amp;", "&")).json()
    assert twin["feed"] == re.sub(r"[?&]lang=en$", "", feed)
    parsed(httpx.get(portal.url + feed))  # not the shared client: ?lang= would set its cookie


def test_a_home_page_without_a_query_announces_no_feed(portal):
    assert "application/atom+xml" not in portal.get("/").text


def test_feed_links_use_the_public_url_when_one_is_set(portal_db, web_milvus):
    settings = replace(portal_settings(portal_db, web_milvus), public_url="https://papers.example.org")
    with serve(Paperfind(settings)) as running:
        feed = parsed(running.get("/feeds/search.atom", params={"q": "Google-Proof"}))
    assert feed.entries[0].id == f"https://papers.example.org/papers/{GPQA}"
    assert feed.feed.id == "https://papers.example.org/feeds/search.atom?q=Google-Proof"


def test_the_etag_changes_when_the_list_does(tmp_path, web_milvus):
    """A paper added to a venue-year already in the feed moves no entry's date, but the ETag
    and the Last-Modified (the last ingest) move with the list: a reader's next poll, by either
    validator, gets the new entry, not a 304."""
    from tests.realdata import load_paperlist, write_slice

    records = load_paperlist("colt", 2019)
    write_slice(tmp_path / "data", "colt", 2019, records[:10])
    settings = portal_settings(tmp_path / "grow.db", None)
    assert not Paperfind(settings).ingest([tmp_path / "data"], progress=False).failed
    settings = portal_settings(settings.db_path, web_milvus)
    with serve(Paperfind(settings)) as running:
        first = running.get("/feeds/venues/colt.atom")
        etag = first.headers["etag"]
        assert len(parsed(first).entries) == 10
        assert running.get("/feeds/venues/colt.atom", headers={
            "if-modified-since": first.headers["last-modified"]}).status_code == 304
        time.sleep(1.1)  # HTTP dates are to the second
        write_slice(tmp_path / "data", "colt", 2019, records[:12])
        assert not Paperfind(settings).ingest([tmp_path / "data"], progress=False).failed
        if web_milvus is not None:
            Paperfind(settings).sync_milvus(progress=False)
        again = running.get("/feeds/venues/colt.atom", headers={"if-none-match": etag})
        assert again.status_code == 200 and again.headers["etag"] != etag
        feed = parsed(again)
        assert len(feed.entries) == 12 and feed.feed.updated == parsed(first).feed.updated
        assert parsedate_to_datetime(again.headers["last-modified"]) > \
            parsedate_to_datetime(first.headers["last-modified"])
        assert running.get("/feeds/venues/colt.atom", headers={
            "if-modified-since": first.headers["last-modified"]}).status_code == 200
        search = running.get("/feeds/search.atom", params={"q": "learning"})
        assert running.get("/feeds/search.atom", params={"q": "learning"},
                           headers={"if-none-match": search.headers["etag"]}).status_code == 304
